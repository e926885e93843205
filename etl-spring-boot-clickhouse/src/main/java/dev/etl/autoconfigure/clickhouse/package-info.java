/** Auto-configuration of the ClickHouse sink ({@code etl.clickhouse.*}): its properties, connection details, customizers and the placement endpoint. Public API. */
@NullMarked
package dev.etl.autoconfigure.clickhouse;

import org.jspecify.annotations.NullMarked;
