package dev.etl.autoconfigure.clickhouse;

import org.springframework.boot.autoconfigure.condition.ConditionOutcome;
import org.springframework.boot.autoconfigure.condition.SpringBootCondition;
import org.springframework.context.annotation.ConditionContext;
import org.springframework.core.type.AnnotatedTypeMetadata;
import org.springframework.util.StringUtils;

/** Matches when a ClickHouse sink is configured: {@code etl.sink.clickhouse.table} or a named table. */
class OnClickHouseSinkCondition extends SpringBootCondition {

    @Override
    public ConditionOutcome getMatchOutcome(ConditionContext context, AnnotatedTypeMetadata metadata) {
        if (StringUtils.hasText(context.getEnvironment().getProperty("etl.sink.clickhouse.table"))) {
            return ConditionOutcome.match("etl.sink.clickhouse.table is set");
        }
        if (!ClickHouseTablesRegistrar.names(context.getEnvironment()).isEmpty()) {
            return ConditionOutcome.match(ClickHouseTablesRegistrar.TABLES + " has named tables");
        }
        return ConditionOutcome.noMatch(
                "neither etl.sink.clickhouse.table nor " + ClickHouseTablesRegistrar.TABLES + ".* is set");
    }
}
