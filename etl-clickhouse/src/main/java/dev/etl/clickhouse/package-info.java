/** The ClickHouse sink: {@code ClickHouseSink}, its configuration, transports, column types, the RowBinary encoder and schema validation. Public API. */
@NullMarked
package dev.etl.clickhouse;

import org.jspecify.annotations.NullMarked;
