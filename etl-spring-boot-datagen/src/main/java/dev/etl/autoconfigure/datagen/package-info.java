/**
 * Auto-configuration of the load-generator source ({@code etl-datagen}): {@code etl.source.datagen.*}
 * builds a {@code DatagenSource} that replaces the Kafka source, from an Avro schema or a
 * {@code RecordGenerator} bean, and ends a bounded run when everything generated is committed.
 */
@NullMarked
package dev.etl.autoconfigure.datagen;

import org.jspecify.annotations.NullMarked;
