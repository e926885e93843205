/**
 * A built-in load generator: {@link dev.etl.datagen.DatagenSource} is a {@link dev.etl.source.Source} of
 * synthetic records, bounded (a number of records, then the run is done) or rate-limited (records per
 * second), made by a {@link dev.etl.datagen.RecordGenerator} (a function of partition, sequence and a
 * seeded {@link dev.etl.datagen.DatagenRandom}) or by {@link dev.etl.datagen.AvroRecordGenerator} from an
 * Avro schema. It honours the source contract of every connector: one batch per partition and poll,
 * pause and resume, an in-memory committed watermark per partition.
 */
@NullMarked
package dev.etl.datagen;

import org.jspecify.annotations.NullMarked;
