package dev.etl.pipeline;

import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.function.IntFunction;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import dev.etl.error.ErrorClass;
import dev.etl.error.ErrorPolicy;
import dev.etl.error.RateLimitedLog;
import dev.etl.error.RecordException;
import dev.etl.metrics.ErrorMetrics;
import dev.etl.ops.ChainContext;
import dev.etl.record.RecordMeta;
import dev.etl.sink.ChunkOutbox;
import io.micrometer.core.instrument.MeterRegistry;

/** The {@link ChainContext} a lane hands its chain. Confined to the lane thread. */
final class LaneChainContext implements ChainContext {
    private static final Logger log = LoggerFactory.getLogger(LaneChainContext.class);
    private static final long SKIP_LOG_INTERVAL_NS = 10_000_000_000L;

    private final PipelineConfig config;
    private final int laneIndex;
    private final RecordMeta meta = new RecordMeta();
    private final MeterRegistry registry;
    private final Map<String, ChunkOutbox> outboxes;
    private final List<String> sinkNames;
    private final ErrorMetrics errors;
    private final RateLimitedLog skipLog = new RateLimitedLog(SKIP_LOG_INTERVAL_NS, System::nanoTime);
    private IntFunction<String> partitionNames = p -> "partition-" + p;
    private IntFunction<String> topics = p -> "default";

    LaneChainContext(PipelineConfig config, int laneIndex, MeterRegistry registry, Map<String, ChunkOutbox> outboxes,
            ErrorMetrics errors) {
        this.config = config;
        this.laneIndex = laneIndex;
        this.registry = registry;
        this.outboxes = new LinkedHashMap<>(outboxes);
        this.sinkNames = List.copyOf(outboxes.keySet());
        this.errors = errors;
    }

    void partitionNames(IntFunction<String> partitionNames, IntFunction<String> topics) {
        this.partitionNames = partitionNames;
        this.topics = topics;
    }

    ChunkOutbox[] outboxArray() {
        return outboxes.values().toArray(new ChunkOutbox[0]);
    }

    @Override
    public String pipelineName() {
        return config.name();
    }

    @Override
    public int laneIndex() {
        return laneIndex;
    }

    @Override
    public RecordMeta meta() {
        return meta;
    }

    @Override
    public MeterRegistry meterRegistry() {
        return registry;
    }

    @Override
    public List<String> sinkNames() {
        return sinkNames;
    }

    @Override
    public ChunkOutbox outbox(String sinkName) {
        ChunkOutbox outbox = outboxes.get(sinkName);
        if (outbox == null) {
            throw new IllegalArgumentException(
                    "pipeline '" + config.name() + "' has no sink named '" + sinkName + "'; its sinks are " + sinkNames);
        }
        return outbox;
    }

    @Override
    public String describePartition(int partition) {
        return partitionNames.apply(partition);
    }

    @Override
    public String topicOf(int partition) {
        return topics.apply(partition);
    }

    @Override
    public ErrorPolicy policy(String stage, ErrorClass errorClass, ErrorPolicy declared) {
        ErrorPolicy byStage = config.stagePolicies().get(stage);
        if (byStage != null) {
            return byStage;
        }
        ErrorPolicy byClass = config.classPolicies().get(errorClass);
        return byClass != null ? byClass : declared;
    }

    @Override
    public void skipped(RecordException failure) {
        try {
            errors.increment(failure.errorClass(), failure.stage());
            long suppressed = skipLog.permit();
            if (suppressed >= 0) {
                log.warn("pipeline={} lane={} skipped record ({} similar skips suppressed since the last line): {}",
                        config.name(), laneIndex, suppressed, failure.getMessage(), failure.getCause());
            }
        } catch (RuntimeException e) {
            // Reporting must never turn a skip into a failure.
            log.debug("failed to report a skipped record", e);
        }
    }
}
