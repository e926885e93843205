package dev.etl.bench.engine;

import dev.etl.error.ErrorClass;
import dev.etl.error.ErrorPolicy;
import dev.etl.error.RecordException;
import dev.etl.internal.ops.LaneContext;
import dev.etl.internal.record.MutableRecordMeta;
import dev.etl.internal.sink.ChunkOutbox;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.util.List;

/** The minimal lane context the chain needs, with one sink. */
final class BenchChainContext implements LaneContext {
    private final MutableRecordMeta meta = new MutableRecordMeta();
    private final ChunkOutbox outbox;
    private final MeterRegistry registry = new SimpleMeterRegistry();

    BenchChainContext(ChunkOutbox outbox) {
        this.outbox = outbox;
    }

    @Override
    public String pipelineName() {
        return "bench";
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
        return List.of("null");
    }

    @Override
    public ChunkOutbox outbox(String sinkName) {
        return outbox;
    }

    @Override
    public dev.etl.sink.SinkDefinition sink(String sinkName) {
        return dev.etl.sink.SinkDefinition.builder(sinkName, outbox.shardCount(), shard -> batch -> {})
                .build();
    }

    @Override
    public String describePartition(int partition) {
        return "bench-" + partition;
    }

    @Override
    public ErrorPolicy policy(String stage, ErrorClass errorClass, ErrorPolicy declared) {
        return declared;
    }

    @Override
    public void skipped(RecordException failure) {
        throw new IllegalStateException("the benchmark has no bad records", failure);
    }
}
