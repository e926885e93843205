/** Actuator integration: masking of etl secrets in the {@code configprops} and {@code env} endpoints. Public API. */
@NullMarked
package dev.etl.autoconfigure.actuate;

import org.jspecify.annotations.NullMarked;
