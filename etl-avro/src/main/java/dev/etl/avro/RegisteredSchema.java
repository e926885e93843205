package dev.etl.avro;

import org.apache.avro.Schema;

/**
 * A schema as registered under a subject.
 *
 * @param subject the subject, e.g. {@code orders-value}
 * @param id the registry-wide schema id (what the Confluent wire format carries)
 * @param version the version under the subject, from 1
 * @param schema the parsed schema
 */
public record RegisteredSchema(String subject, int id, int version, Schema schema) {}
