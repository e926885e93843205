package dev.etl.ops;

import dev.etl.error.ErrorClass;
import dev.etl.error.ErrorPolicy;
import dev.etl.error.RecordException;
import dev.etl.internal.ops.LaneContext;
import dev.etl.internal.record.MutableRecordMeta;
import dev.etl.internal.sink.ChunkOutbox;
import dev.etl.sink.ChunkConfig;
import dev.etl.sink.RowEncoder;
import dev.etl.sink.SinkDefinition;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/** A lane's {@link ChainContext} for tests: named sinks over fake chunk sinks, policy overrides, recorded skips. */
final class TestChainContext implements LaneContext {
    private final MutableRecordMeta meta = new MutableRecordMeta();
    private final java.util.Map<String, SinkDefinition> definitions = new java.util.HashMap<>();
    private final MeterRegistry registry = new SimpleMeterRegistry();
    private final Map<String, ChunkOutbox> outboxes = new LinkedHashMap<>();
    private final Map<String, ErrorPolicy> overrides = new HashMap<>();
    private final List<String> policyQueries = new ArrayList<>();
    private final List<RecordException> skipped = new ArrayList<>();
    private final Map<Integer, String> topics = new HashMap<>();

    private final List<dev.etl.internal.ops.StatefulStage> statefulStages = new ArrayList<>();
    private long nowNs = 1_000_000_000L;

    /** The lane clock tests drive ({@link #nanoTime()}). */
    TestChainContext advance(java.time.Duration by) {
        nowNs += by.toNanos();
        return this;
    }

    @Override
    public long nanoTime() {
        return nowNs;
    }

    @Override
    public void statefulStage(dev.etl.internal.ops.StatefulStage stage) {
        statefulStages.add(stage);
    }

    /** Fires the stages' timers due now, as the lane's loop does; returns how many fired. */
    int fireDueTimers() {
        int fired = 0;
        for (dev.etl.internal.ops.StatefulStage stage : statefulStages) {
            long deadline = stage.timerDeadlineNs();
            if (deadline != Long.MAX_VALUE && deadline - nowNs <= 0) {
                stage.fireTimer();
                fired++;
            }
        }
        return fired;
    }

    /** Partition {@code partition} belongs to {@code topic} (default "default"). */
    TestChainContext topic(int partition, String topic) {
        topics.put(partition, topic);
        return this;
    }

    @Override
    public String topicOf(int partition) {
        return topics.getOrDefault(partition, "default");
    }

    /** Adds sink {@code name} backed by {@code sink}, handing chunks off at the default chunk size. */
    ChunkOutbox addSink(String name, RecordingChunkSink sink) {
        return addSink(name, sink, ChunkConfig.DEFAULTS);
    }

    /** Adds sink {@code name} backed by {@code sink}, handing chunks off at {@code config}'s size. */
    ChunkOutbox addSink(String name, RecordingChunkSink sink, ChunkConfig config) {
        return addSink(name, sink, config, null);
    }

    /** Adds sink {@code name} backed by {@code sink}, whose definition has {@code encoder} as its own. */
    ChunkOutbox addSink(String name, RecordingChunkSink sink, ChunkConfig config, RowEncoder<?> encoder) {
        ChunkOutbox outbox = new ChunkOutbox(sink, config);
        outboxes.put(name, outbox);
        definitions.put(
                name,
                SinkDefinition.builder(name, sink.shardCount(), shard -> batch -> {})
                        .chunks(config)
                        .encoder(encoder)
                        .build());
        return outbox;
    }

    /** Adds sink {@code name} backed by {@code sink}, writing deterministic blocks (as the ClickHouse sink does). */
    ChunkOutbox addBlockSink(String name, RecordingChunkSink sink) {
        SinkDefinition definition = SinkDefinition.builder(name, sink.shardCount(), shard -> batch -> {})
                .deterministicBlocks(true)
                .build();
        ChunkOutbox outbox = new ChunkOutbox(sink, definition);
        outboxes.put(name, outbox);
        definitions.put(name, definition);
        return outbox;
    }

    @Override
    public SinkDefinition sink(String sinkName) {
        outbox(sinkName); // the same error as the outbox's for an unknown sink
        return definitions.get(sinkName);
    }

    /** Configuration override: stage {@code stage} uses {@code policy} whatever the code declared. */
    TestChainContext override(String stage, ErrorPolicy policy) {
        overrides.put(stage, policy);
        return this;
    }

    List<RecordException> skipped() {
        return skipped;
    }

    /** Every {@code stage/errorClass/declared} the chain asked a policy for, in order. */
    List<String> policyQueries() {
        return policyQueries;
    }

    @Override
    public String pipelineName() {
        return "test";
    }

    @Override
    public int laneIndex() {
        return 0;
    }

    @Override
    public MutableRecordMeta meta() {
        return meta;
    }

    @Override
    public MeterRegistry meterRegistry() {
        return registry;
    }

    @Override
    public List<String> sinkNames() {
        return List.copyOf(outboxes.keySet());
    }

    @Override
    public ChunkOutbox outbox(String sinkName) {
        ChunkOutbox outbox = outboxes.get(sinkName);
        if (outbox == null) {
            throw new IllegalArgumentException("no sink '" + sinkName + "'; known sinks: " + outboxes.keySet());
        }
        return outbox;
    }

    @Override
    public String describePartition(int partition) {
        return "orders-" + partition;
    }

    @Override
    public ErrorPolicy policy(String stage, ErrorClass errorClass, ErrorPolicy declared) {
        policyQueries.add(stage + "/" + errorClass + "/" + declared);
        return overrides.getOrDefault(stage, declared);
    }

    @Override
    public void skipped(RecordException failure) {
        skipped.add(failure);
    }
}
