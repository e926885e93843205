package dev.etl.clickhouse;

import java.util.List;
import java.util.Objects;

import io.micrometer.core.instrument.MeterRegistry;

import dev.etl.sink.SinkDefinition;

/**
 * Assembles a ClickHouse sink for the engine: a {@link SinkDefinition} with one
 * {@link ClickHouseShardWriter} per configured shard, the configured batching and retries.
 *
 * <pre>{@code
 * ClickHouseSinkConfig config = ClickHouseSinkConfig.builder()
 *         .table("shop", "orders_local")
 *         .shard("http://ch-1a:8123", "http://ch-1b:8123")
 *         .shard("http://ch-2a:8123", "http://ch-2b:8123")
 *         .credentials("etl", System.getenv("CH_PASSWORD"))
 *         .validation(ValidationMode.FULL)
 *         .build();
 * SinkDefinition sink = ClickHouseSink.definition("orders", "orders-pipeline", config, ORDERS_ENCODER, registry);
 * }</pre>
 *
 * <p>When the engine starts the sink it calls the writer factory once per shard; that call validates
 * the shard's replicas ({@link ClickHouseSchemaValidator}: version, capabilities, engine, columns) and
 * fails startup with a {@link ClickHouseSchemaException} on a mismatch. Capabilities are read there,
 * once, and fixed for the writer's life.
 */
public final class ClickHouseSink {
    private ClickHouseSink() {
    }

    /** A sink writing rows encoded by {@code encoder} (its columns are validated against the table). */
    public static SinkDefinition definition(String sinkName, String pipelineName, ClickHouseSinkConfig config,
            RowBinaryEncoder<?> encoder, MeterRegistry registry) {
        return definition(sinkName, pipelineName, config, encoder.columns(), registry,
                ClickHouseHttpTransport.of(config));
    }

    /** A sink for rows with {@code columns}, over a given transport (tests, custom HTTP stacks). */
    public static SinkDefinition definition(String sinkName, String pipelineName, ClickHouseSinkConfig config,
            List<ClickHouseColumn> columns, MeterRegistry registry, ClickHouseTransport transport) {
        Objects.requireNonNull(sinkName, "sinkName");
        Objects.requireNonNull(pipelineName, "pipelineName");
        Objects.requireNonNull(registry, "registry");
        List<ClickHouseColumn> expected = List.copyOf(columns);
        ClickHouseSchemaValidator validator = new ClickHouseSchemaValidator(config, transport);
        return SinkDefinition.of(sinkName, config.shards().size(), shard -> {
            ClickHouseCapabilities capabilities = validator.validateShard(shard, expected);
            return new ClickHouseShardWriter(config, shard, sinkName, pipelineName, capabilities, transport, registry,
                    System::nanoTime);
        }).withBatch(config.batch()).withRetry(config.retry());
    }
}
