/** The Avro → ClickHouse RowBinary bridge: {@code AvroRowTranscoder} and the {@code AvroRowMapping} it compiles from a table's columns. Public API. */
@NullMarked
package dev.etl.avro.clickhouse;

import org.jspecify.annotations.NullMarked;
