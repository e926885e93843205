/** Auto-configuration of the pipeline's Micrometer metrics. Public API. */
@NullMarked
package dev.etl.autoconfigure.metrics;

import org.jspecify.annotations.NullMarked;
