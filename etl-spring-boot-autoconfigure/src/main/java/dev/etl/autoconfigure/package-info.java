/** Auto-configuration of the pipeline ({@code etl.*}): {@code EtlAutoConfiguration}, its properties, customizers and lifecycle. Public API. */
@NullMarked
package dev.etl.autoconfigure;

import org.jspecify.annotations.NullMarked;
