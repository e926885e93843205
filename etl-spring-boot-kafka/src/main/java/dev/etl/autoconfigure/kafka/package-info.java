/** Auto-configuration of the Kafka source and dead-letter writer ({@code etl.kafka.*}, {@code etl.errors.dead-letter.*}). Public API. */
@NullMarked
package dev.etl.autoconfigure.kafka;

import org.jspecify.annotations.NullMarked;
