package dev.etl.s3;

import dev.etl.kafka.KafkaSource;
import dev.etl.kafka.KafkaSourceConfig;
import dev.etl.source.PartitionListener;
import dev.etl.source.SourceLane;
import java.time.Duration;
import java.util.HashMap;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.common.TopicPartition;

/**
 * The work list as a Kafka topic (the planner's, {@link BackfillPlanner}), consumed by the pipeline's
 * backfill group: a {@link KafkaSource} over the topic opens the lanes, so the broker shares the items
 * between lanes and instances and a rebalance moves them; the group's committed offsets are the
 * progress. The extent is read with {@code read_committed} ({@link WorkListScan}): a list the planner did
 * not write to its end is invisible.
 */
public final class KafkaWorkList implements WorkList {
    private static final Duration TIMEOUT = Duration.ofSeconds(30);

    private final String topic;
    private final KafkaSourceConfig settings;
    private final KafkaSource source;
    private final Map<TopicPartition, Long> end = new HashMap<>();
    private volatile Admin admin;

    /** The work topic of {@code config} ({@link S3BackfillConfig#workTopic()}), with its consumer settings. */
    public KafkaWorkList(S3BackfillConfig config) {
        Objects.requireNonNull(config, "config");
        this.topic = config.workTopicName();
        this.settings = config.workTopic();
        // Work items are big units: few per poll, and a new group starts at the list's beginning.
        KafkaSourceConfig workConfig = KafkaSourceConfig.builder()
                .properties(settings.consumerProperties())
                .property(ConsumerConfig.AUTO_OFFSET_RESET_CONFIG, "earliest")
                .property(ConsumerConfig.MAX_POLL_RECORDS_CONFIG, Math.max(1, config.prefetchItems()))
                .property(ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG, false)
                // the planner writes the list in one transaction: a list not written to its end is never read
                .property(ConsumerConfig.ISOLATION_LEVEL_CONFIG, "read_committed")
                .topics(topic)
                .pipeline(config.pipeline())
                .meterRegistry(config.meterRegistry())
                .commitTimeout(settings.commitTimeout())
                .closeTimeout(settings.closeTimeout())
                .lagSampleInterval(settings.lagSampleInterval())
                .unreachableAfter(settings.unreachableAfter())
                .build();
        this.source = new KafkaSource(workConfig);
    }

    /**
     * The end offsets of the topic's partitions, as they stand now.
     *
     * @throws IllegalStateException when the topic does not exist, is empty, or lost items (retention,
     *     DeleteRecords)
     */
    @Override
    public synchronized long start() {
        if (admin != null) {
            return end.values().stream().mapToLong(Long::longValue).sum();
        }
        WorkListScan.Extent extent = WorkListScan.scan(settings.consumerProperties(), topic, TIMEOUT)
                .orElseThrow(() -> new IllegalStateException("the backfill's work topic '" + topic
                        + "' does not exist: plan the backfill first (etl.source.s3.mode=plan)"));
        if (extent.items() == 0) {
            throw new IllegalStateException("the backfill's work topic '" + topic + "' holds no work items: plan the"
                    + " backfill first (etl.source.s3.mode=plan; a plan that found no objects writes none)");
        }
        extent.truncated().ifPresent(tp -> {
            throw new IllegalStateException("work items were deleted from the work topic '" + topic + "' (partition "
                    + tp.partition() + " starts at offset " + extent.earliest().get(tp) + ", by retention or"
                    + " DeleteRecords): their data would never be read; plan again into a new work topic");
        });
        end.putAll(extent.afterLast());
        admin = Admin.create(KafkaClientSettings.admin(settings.consumerProperties(), "backfill-progress"));
        return extent.items();
    }

    @Override
    public SourceLane openLane(int laneIndex, PartitionListener listener) {
        return source.openLane(laneIndex, listener);
    }

    /** The group's committed offsets against the ends {@link #start()} took. */
    @Override
    public Progress progress() throws Exception {
        Map<TopicPartition, OffsetAndMetadata> committed = admin.listConsumerGroupOffsets(settings.groupId())
                .partitionsToOffsetAndMetadata()
                .get(TIMEOUT.toMillis(), TimeUnit.MILLISECONDS);
        long items = 0;
        boolean all = true;
        for (Map.Entry<TopicPartition, Long> e : end.entrySet()) {
            OffsetAndMetadata c = committed.get(e.getKey());
            long at = c == null ? 0 : c.offset();
            items += Math.min(at, e.getValue()); // approximate: offsets also count transaction markers
            all &= at >= e.getValue();
        }
        return new Progress(items, all);
    }

    /** {@code <topic> group=<group>}. */
    @Override
    public String describe() {
        return topic + " group=" + settings.groupId();
    }

    @Override
    public void close() {
        source.close();
        Admin a = admin;
        if (a != null) {
            a.close(Duration.ofSeconds(5));
        }
    }

    @Override
    public String toString() {
        return "KafkaWorkList[" + describe() + "]";
    }
}
