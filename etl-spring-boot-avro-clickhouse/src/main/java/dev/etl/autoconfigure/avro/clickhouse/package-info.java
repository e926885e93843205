/** Auto-configuration of the Avro → ClickHouse RowBinary transcoder. Public API. */
@NullMarked
package dev.etl.autoconfigure.avro.clickhouse;

import org.jspecify.annotations.NullMarked;
