/** Auto-configuration of the JSON → ClickHouse RowBinary transcoder for pipelines from YAML alone. Public API. */
@NullMarked
package dev.etl.autoconfigure.json.clickhouse;

import org.jspecify.annotations.NullMarked;
