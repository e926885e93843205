/**
 * The JSON → ClickHouse RowBinary bridge: {@code JsonRowTranscoder} writes JSON objects into a table's
 * columns by column name (or a dotted field path), scanning the bytes once, without a tree. Public API.
 */
@NullMarked
package dev.etl.json.clickhouse;

import org.jspecify.annotations.NullMarked;
