package dev.etl.internal.metrics;

import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Tags;
import java.util.HashMap;
import java.util.Map;

/**
 * Pre-registered meter handles of one lane (tags {@code pipeline}, {@code lane}); incrementing them
 * allocates nothing. Names are listed in {@code docs/METRICS.md}.
 */
public final class LaneMetrics {
    public final Counter polls;
    public final Counter recordsIn;
    public final Counter batches;
    public final Counter pauses;
    public final Counter commitsAsyncOk;
    public final Counter commitsAsyncFailed;
    public final Counter commitsSyncOk;
    public final Counter commitsSyncFailed;
    public final Counter staleAcks;
    public final Counter rebalanceAssigned;
    public final Counter rebalanceRevoked;
    public final Counter rebalanceLost;
    private final MeterRegistry registry;
    private final Tags tags;
    private final Map<String, Counter> partitionHeld = new HashMap<>();

    public LaneMetrics(MeterRegistry registry, String pipeline, int lane) {
        Tags tags = Tags.of("pipeline", pipeline, "lane", Integer.toString(lane));
        this.registry = registry;
        this.tags = tags;
        polls = Counter.builder("etl.lane.polls")
                .description("Source polls made by the lane, paused or not")
                .tags(tags)
                .register(registry);
        recordsIn = Counter.builder("etl.source.records")
                .description("Records received from the source")
                .tags(tags)
                .register(registry);
        batches = Counter.builder("etl.lane.batches")
                .description("(poll, partition) batches pushed through the chain")
                .tags(tags)
                .register(registry);
        pauses = Counter.builder("etl.backpressure.pauses")
                .description("Times the lane paused its partitions")
                .tags(tags)
                .register(registry);
        commitsAsyncOk = commits(registry, tags, "async", "success");
        commitsAsyncFailed = commits(registry, tags, "async", "failure");
        commitsSyncOk = commits(registry, tags, "sync", "success");
        commitsSyncFailed = commits(registry, tags, "sync", "failure");
        staleAcks = Counter.builder("etl.checkpoint.stale.acks")
                .description("Acks ignored because their partition was revoked or reassigned since")
                .tags(tags)
                .register(registry);
        rebalanceAssigned = rebalance(registry, tags, "assigned");
        rebalanceRevoked = rebalance(registry, tags, "revoked");
        rebalanceLost = rebalance(registry, tags, "lost");
    }

    /**
     * Times {@code partition} (its name) was paused because its oldest outstanding batch was stalled;
     * registered on first use (rare: not on the hot path). Lane thread only.
     */
    public Counter partitionHeld(String partition) {
        return partitionHeld.computeIfAbsent(
                partition,
                p -> Counter.builder("etl.checkpoint.partition.holds")
                        .description(
                                "Times a partition was paused because its oldest outstanding batch failed or too many "
                                        + "batches were outstanding behind it")
                        .tags(tags)
                        .tag("partition", p)
                        .register(registry));
    }

    private static Counter commits(MeterRegistry registry, Tags tags, String mode, String outcome) {
        return Counter.builder("etl.checkpoint.commits")
                .description("Watermark commits to the source")
                .tags(tags)
                .tag("mode", mode)
                .tag("outcome", outcome)
                .register(registry);
    }

    private static Counter rebalance(MeterRegistry registry, Tags tags, String event) {
        return Counter.builder("etl.source.rebalance.events")
                .description("Partitions assigned, revoked or lost")
                .tags(tags)
                .tag("event", event)
                .register(registry);
    }
}
