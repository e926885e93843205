package dev.etl.internal.sink;

import dev.etl.error.ErrorClass;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.DistributionSummary;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Tags;
import io.micrometer.core.instrument.Timer;
import java.util.concurrent.TimeUnit;

/**
 * The meters of one shard of one sink, registered once at construction and updated from its io
 * thread without lookups. Names and labels are listed in {@code docs/design/sink-metrics.md}.
 *
 * <p>Every update is a lock-free Micrometer increment; all are called once per batch or attempt,
 * never per row.
 */
final class SinkMetrics {
    private final Counter rows;
    private final Counter bytes;
    private final Counter batchesSucceeded;
    private final Counter batchesFailed;
    private final Counter batchesAbandoned;
    private final DistributionSummary batchRows;
    private final DistributionSummary batchBytes;
    private final Timer writeSucceeded;
    private final Timer writeFailed;
    private final Counter retries;
    private final Counter abandonedBatches;
    private final Counter ioFailures;
    private final Counter blocks;
    private final Counter transientErrors;
    private final Counter permanentErrors;
    private final Counter rejectedRows;

    SinkMetrics(MeterRegistry registry, String pipeline, String sink, int shard, ShardQueue... queues) {
        Tags tags = Tags.of("pipeline", pipeline, "sink", sink, "shard", Integer.toString(shard));
        this.rows = Counter.builder("etl.sink.rows")
                .description("Rows durably written")
                .tags(tags)
                .register(registry);
        this.bytes = Counter.builder("etl.sink.bytes")
                .description("Encoded bytes durably written")
                .tags(tags)
                .register(registry);
        this.batchesSucceeded = batches(registry, tags, "success");
        this.batchesFailed = batches(registry, tags, "failed");
        this.batchesAbandoned = batches(registry, tags, "abandoned");
        this.batchRows = DistributionSummary.builder("etl.sink.batch.rows")
                .description("Rows per sealed batch")
                .tags(tags)
                .register(registry);
        this.batchBytes = DistributionSummary.builder("etl.sink.batch.bytes")
                .description("Encoded bytes per sealed batch")
                .tags(tags)
                .register(registry);
        this.writeSucceeded = writeDuration(registry, tags, "success");
        this.writeFailed = writeDuration(registry, tags, "failed");
        this.retries = Counter.builder("etl.sink.retries")
                .description("Write attempts scheduled again after a transient failure")
                .tags(tags)
                .register(registry);
        this.abandonedBatches = Counter.builder("etl.sink.abandoned.batches")
                .description("Batches (or queued remainders) left unwritten at the shutdown deadline; acks failed")
                .tags(tags)
                .register(registry);
        this.ioFailures = Counter.builder("etl.sink.io.failures")
                .description("Unexpected throwables on the shard's io thread (a bug or a JVM error); each fails "
                        + "what the shard holds and the pipeline")
                .tags(tags)
                .register(registry);
        this.blocks = Counter.builder("etl.sink.blocks")
                .description("Deterministic blocks sealed: one partition's offset range, written as an insert of "
                        + "its own with a token named after the range (a replay rebuilds the same block)")
                .tags(tags)
                .register(registry);
        this.rejectedRows = Counter.builder("etl.sink.rejected.rows")
                .description("Rows the server refused for their content and the sink skipped (policy SKIP); the "
                        + "rest of their batches was written")
                .tags(tags)
                .register(registry);
        // Strong: nothing else holds this shard's array, and a weakly held gauge reads NaN after a GC.
        Gauge.builder("etl.sink.queue.chunks", queues, SinkMetrics::queued)
                .description("Chunks waiting in the shard's queues (one per writer of the shard)")
                .strongReference(true)
                .tags(tags)
                .register(registry);
        // etl_errors_total is shared with the rest of the engine: same tag keys (pipeline, error_type, stage).
        String stage = "sink:" + sink;
        this.transientErrors = errors(registry, pipeline, stage, ErrorClass.SINK_TRANSIENT);
        this.permanentErrors = errors(registry, pipeline, stage, ErrorClass.SINK_PERMANENT);
    }

    private static double queued(ShardQueue[] queues) {
        int total = 0;
        for (ShardQueue queue : queues) {
            total += queue.size();
        }
        return total;
    }

    private static Counter batches(MeterRegistry registry, Tags tags, String outcome) {
        return Counter.builder("etl.sink.batches")
                .description("Sealed batches by final outcome")
                .tags(tags)
                .tag("outcome", outcome)
                .register(registry);
    }

    private static Timer writeDuration(MeterRegistry registry, Tags tags, String outcome) {
        return Timer.builder("etl.sink.write.duration")
                .description("Duration of one write attempt")
                .tags(tags)
                .tag("outcome", outcome)
                .register(registry);
    }

    private static Counter errors(MeterRegistry registry, String pipeline, String stage, ErrorClass errorClass) {
        return Counter.builder("etl.errors")
                .description("Failures by class and stage")
                .tag("pipeline", pipeline)
                .tag("error_type", errorClass.label())
                .tag("stage", stage)
                .register(registry);
    }

    void sealed(int rowCount, int byteCount) {
        batchRows.record(rowCount);
        batchBytes.record(byteCount);
    }

    void written(int rowCount, int byteCount, long durationNs) {
        writeSucceeded.record(durationNs, TimeUnit.NANOSECONDS);
        rows.increment(rowCount);
        bytes.increment(byteCount);
        batchesSucceeded.increment();
    }

    void attemptFailed(boolean transientFailure, long durationNs) {
        writeFailed.record(durationNs, TimeUnit.NANOSECONDS);
        (transientFailure ? transientErrors : permanentErrors).increment();
    }

    void rowsRejected(int count) {
        rejectedRows.increment(count);
    }

    void blockSealed() {
        blocks.increment();
    }

    void retryScheduled() {
        retries.increment();
    }

    void batchFailed() {
        batchesFailed.increment();
    }

    void ioFailure() {
        ioFailures.increment();
    }

    void batchesAbandoned(int count) {
        batchesAbandoned.increment(count);
        abandonedBatches.increment(count);
    }
}
