package dev.etl.clickhouse;

import dev.etl.clickhouse.sharding.PlacementCheck;
import dev.etl.sink.SinkDefinition;
import io.micrometer.core.instrument.MeterRegistry;
import java.util.List;
import java.util.Objects;

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
 * ChainFactory chains = ctx -> Chains.from(ctx, deserializer).map("to-row", Row::of)
 *         .sink(KeyHashRouter.byKey(Row::id)); // written with ORDERS_ENCODER, the validated encoder
 * }</pre>
 *
 * <p>Every insert names the sink's columns ({@code INSERT INTO `db`.`table` (`a`, `b`, …) FORMAT …}, see
 * {@link ClickHouseInsert}), so the encoder's column order need not be the table's and the table's columns
 * with a {@code DEFAULT} may be left out; a sink defined with no columns inserts without a list.
 *
 * <p><b>Column layouts.</b> A sink defined with {@link ColumnLayouts} inserts each batch with the columns of
 * its layout ({@link dev.etl.sink.SealedBatch#layout()}): when the table gains a column under a running
 * pipeline, rows encoded before the encoders switched are inserted with the old list, the others with the
 * new one. Startup validates layout 0; a later layout is checked by whoever registers it (the table must
 * have its columns before an encoder asks for it). With {@link InsertFormat#NATIVE} each layout's columns
 * get their own Native block encoder; a layout whose types a Native block cannot carry fails its batches
 * permanently, naming the layout and the column.
 *
 * <p>When the engine starts the sink it calls the writer factory once per shard; that call validates
 * the shard's replicas ({@code ClickHouseSchemaValidator}: version, capabilities, engine, columns) and
 * fails startup with a {@link ClickHouseSchemaException} on a mismatch. Capabilities are read there,
 * once, and fixed for the writer's life. With a {@link ClickHouseSinkConfig#placementCheck()}, the first
 * writer creation of the definition first runs it ({@link PlacementCheck#run}): under
 * {@code FAIL}, a router that does not place keys like the Distributed table fails startup with a
 * {@link dev.etl.clickhouse.sharding.ShardPlacementException}.
 *
 * <p>Inserts go through client-v2 by default ({@code ClickHouseClientV2Transport}) or raw HTTP
 * ({@link ClickHouseHttpTransport}), per {@link ClickHouseSinkConfig#transport()}; reads always use raw HTTP.
 *
 * <p>With {@link ClickHouseSinkConfig#format()} {@link InsertFormat#NATIVE} the definition needs the columns
 * (the encoder's, or the list given): defining the sink throws an {@link UnsupportedNativeTypeException}
 * when there are none or one of them has a type a Native block cannot carry, naming it.
 */
public final class ClickHouseSink {
    private ClickHouseSink() {}

    /**
     * A sink writing rows encoded by {@code encoder}: its columns are validated against the table, and it
     * is the sink's own encoder ({@link SinkDefinition#encoder()}), so chains end in the sink with
     * {@code .sink(router)} and write exactly what was validated. Inserts go through the configured
     * {@link ClickHouseSinkConfig#transport()}; the sink owns that transport: it is closed when the last
     * open writer closes (and rebuilt on demand if writers are created again).
     */
    public static SinkDefinition definition(
            String sinkName,
            String pipelineName,
            ClickHouseSinkConfig config,
            RowBinaryEncoder<?> encoder,
            MeterRegistry registry) {
        return definition(sinkName, pipelineName, config, encoder.columns(), registry, transport(config), true)
                .toBuilder()
                .encoder(encoder)
                .build();
    }

    /**
     * A sink validated against {@code columns} (none: {@link ValidationMode#OFF}), without an encoder of
     * its own (chains pass theirs, or add it with {@link SinkDefinition#toBuilder()}), over the configured
     * transport, which the sink owns as in {@link #definition(String, String, ClickHouseSinkConfig,
     * RowBinaryEncoder, MeterRegistry)}.
     */
    public static SinkDefinition definition(
            String sinkName,
            String pipelineName,
            ClickHouseSinkConfig config,
            List<ClickHouseColumn> columns,
            MeterRegistry registry) {
        return definition(sinkName, pipelineName, config, columns, registry, transport(config), true);
    }

    /**
     * A sink for rows with {@code columns}, over a given transport (tests, custom HTTP stacks); the
     * caller owns the transport and closes it.
     */
    public static SinkDefinition definition(
            String sinkName,
            String pipelineName,
            ClickHouseSinkConfig config,
            List<ClickHouseColumn> columns,
            MeterRegistry registry,
            ClickHouseTransport transport) {
        return definition(sinkName, pipelineName, config, columns, registry, transport, false);
    }

    /**
     * A sink whose rows can change their columns while it runs (auto-evolve): validated at startup against
     * {@code layouts}' layout 0, and every batch inserted with the columns of its
     * {@linkplain dev.etl.sink.SealedBatch#layout() layout} (a layout registered later is looked up when its
     * first batch is written; a batch of a layout never registered fails permanently, naming it). Otherwise
     * as {@link #definition(String, String, ClickHouseSinkConfig, List, MeterRegistry)}: no encoder of its
     * own, the configured transport, owned by the sink.
     */
    public static SinkDefinition definition(
            String sinkName,
            String pipelineName,
            ClickHouseSinkConfig config,
            ColumnLayouts layouts,
            MeterRegistry registry) {
        return definition(sinkName, pipelineName, config, layouts, registry, transport(config), true);
    }

    /**
     * As {@link #definition(String, String, ClickHouseSinkConfig, ColumnLayouts, MeterRegistry)}, over a
     * given transport (tests, custom HTTP stacks); the caller owns the transport and closes it.
     */
    public static SinkDefinition definition(
            String sinkName,
            String pipelineName,
            ClickHouseSinkConfig config,
            ColumnLayouts layouts,
            MeterRegistry registry,
            ClickHouseTransport transport) {
        return definition(sinkName, pipelineName, config, layouts, registry, transport, false);
    }

    /** The transport {@code config} asks for: client-v2 inserts (reads over raw HTTP) or raw HTTP for both. */
    public static ClickHouseTransport transport(ClickHouseSinkConfig config) {
        return switch (config.transport()) {
            case CLIENT_V2 -> ClickHouseClientV2Transport.of(config);
            case HTTP -> ClickHouseHttpTransport.of(config);
        };
    }

    /** {@code owned}: close {@code transport} whenever the last writer created from the definition closes. */
    static SinkDefinition definition(
            String sinkName,
            String pipelineName,
            ClickHouseSinkConfig config,
            List<ClickHouseColumn> columns,
            MeterRegistry registry,
            ClickHouseTransport transport,
            boolean owned) {
        return definition(sinkName, pipelineName, config, ColumnLayouts.of(columns), registry, transport, owned);
    }

    /** {@code owned}: close {@code transport} whenever the last writer created from the definition closes. */
    static SinkDefinition definition(
            String sinkName,
            String pipelineName,
            ClickHouseSinkConfig config,
            ColumnLayouts layouts,
            MeterRegistry registry,
            ClickHouseTransport transport,
            boolean owned) {
        Objects.requireNonNull(sinkName, "sinkName");
        Objects.requireNonNull(pipelineName, "pipelineName");
        Objects.requireNonNull(registry, "registry");
        Objects.requireNonNull(transport, "transport");
        Objects.requireNonNull(layouts, "layouts");
        List<ClickHouseColumn> expected = layouts.columns(0);
        if (config.format() == InsertFormat.NATIVE) {
            NativeBlockEncoder.of(expected); // refuses, now, what a Native block cannot carry
        }
        ClickHouseSchemaValidator validator = new ClickHouseSchemaValidator(config, transport);
        ShardStates shards = new ShardStates(config, validator, expected, sinkName, pipelineName, registry);
        OpenWriters open = new OpenWriters(owned ? transport : null, shards::forgetValidations);
        PlacementGate placement = new PlacementGate(config, transport);
        return SinkDefinition.builder(sinkName, config.shards().size(), shard -> {
                    open.acquire();
                    try {
                        placement.runOnce();
                        ShardState state = shards.of(shard);
                        return new ClickHouseShardWriter(
                                config,
                                layouts,
                                shard,
                                sinkName,
                                pipelineName,
                                state.capabilities,
                                transport,
                                registry,
                                System::nanoTime,
                                open::release,
                                state.replicas);
                    } catch (RuntimeException | Error e) {
                        open.release();
                        throw e;
                    }
                })
                .batch(config.batch())
                .retry(config.retry())
                .deterministicBlocks(config.deterministicBlocks())
                .writersPerShard(config.writersPerShard())
                .build();
    }

    /** What a shard's writers share: its validation's capabilities and its replicas (breakers, meters). */
    private record ShardState(ClickHouseCapabilities capabilities, ShardReplica[] replicas) {}

    /**
     * Validates a shard once for all its writers and keeps what they share. A validation holds while writers
     * of the definition are open; once the last one closed (the pipeline stopped), the next writers validate
     * again (a definition can run more than once, and the table may have changed in between). The replicas
     * (breakers, meters) are kept for the definition's life.
     */
    private static final class ShardStates {
        private final ClickHouseSinkConfig config;
        private final ClickHouseSchemaValidator validator;
        private final List<ClickHouseColumn> expected;
        private final String sinkName;
        private final String pipelineName;
        private final MeterRegistry registry;
        private final ClickHouseCapabilities[] validated;
        private final ShardReplica[][] replicas;

        ShardStates(
                ClickHouseSinkConfig config,
                ClickHouseSchemaValidator validator,
                List<ClickHouseColumn> expected,
                String sinkName,
                String pipelineName,
                MeterRegistry registry) {
            this.config = config;
            this.validator = validator;
            this.expected = expected;
            this.sinkName = sinkName;
            this.pipelineName = pipelineName;
            this.registry = registry;
            this.validated = new ClickHouseCapabilities[config.shards().size()];
            this.replicas = new ShardReplica[validated.length][];
        }

        synchronized ShardState of(int shard) {
            if (validated[shard] == null) {
                validated[shard] = validator.validateShard(shard, expected);
            }
            if (replicas[shard] == null) {
                replicas[shard] = ClickHouseShardWriter.replicas(
                        config, shard, sinkName, pipelineName, registry, System::nanoTime);
            }
            return new ShardState(validated[shard], replicas[shard]);
        }

        synchronized void forgetValidations() {
            java.util.Arrays.fill(validated, null);
        }
    }

    /** Runs the configured placement check once per definition, before the first writer's validation. */
    private static final class PlacementGate {
        private final ClickHouseSinkConfig config;
        private final ClickHouseTransport transport;
        private boolean done;

        PlacementGate(ClickHouseSinkConfig config, ClickHouseTransport transport) {
            this.config = config;
            this.transport = transport;
        }

        synchronized void runOnce() {
            PlacementCheck check = config.placementCheck();
            if (done || check == null) {
                return;
            }
            check.run(transport, config); // throws under FAIL; a failed check runs again on the next start
            done = true;
        }
    }

    /**
     * Counts the writers being created or open; when none is left, forgets the shards' validations and closes
     * the owned transport.
     */
    private static final class OpenWriters {
        private final ClickHouseTransport owned;
        private final Runnable onNoneOpen;
        private int count;

        OpenWriters(ClickHouseTransport owned, Runnable onNoneOpen) {
            this.owned = owned;
            this.onNoneOpen = onNoneOpen;
        }

        synchronized void acquire() {
            count++;
        }

        synchronized void release() {
            if (--count == 0) {
                onNoneOpen.run();
                if (owned != null) {
                    owned.close();
                }
            }
        }
    }
}
