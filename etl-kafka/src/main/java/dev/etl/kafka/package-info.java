/** The Kafka connector: {@code KafkaSource} (one lane per assigned partition, committed offsets as the watermark), its configuration and the Kafka dead-letter writer. Public API. */
@NullMarked
package dev.etl.kafka;

import org.jspecify.annotations.NullMarked;
