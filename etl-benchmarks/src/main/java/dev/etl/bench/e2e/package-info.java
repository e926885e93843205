/**
 * The end-to-end benchmark's baseline (run by {@code scripts/bench.sh}): the orders pipeline of
 * {@code sample-service} written by hand the way a team would without the framework — a Spring Kafka
 * batch {@code @KafkaListener}, Avro's stock {@code GenericDatumReader}, and JDBC batch inserts into
 * the shard-local tables, committing offsets after each insert.
 */
package dev.etl.bench.e2e;
