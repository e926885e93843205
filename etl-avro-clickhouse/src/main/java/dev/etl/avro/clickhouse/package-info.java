/**
 * The Avro → ClickHouse RowBinary bridge: {@code AvroRowTranscoder} and the {@code AvroRowMapping} it compiles
 * from a table's columns, written column by column or derived from the table by column name
 * ({@code AvroTableMapping}). Public API.
 */
@NullMarked
package dev.etl.avro.clickhouse;

import org.jspecify.annotations.NullMarked;
