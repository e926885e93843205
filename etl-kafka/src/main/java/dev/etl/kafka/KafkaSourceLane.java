package dev.etl.kafka;

import dev.etl.error.SourceException;
import dev.etl.source.BatchHandler;
import dev.etl.source.CommitOffsets;
import dev.etl.source.CommittedPosition;
import dev.etl.source.PartitionListener;
import dev.etl.source.SourceLane;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.OptionalLong;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.clients.consumer.CloseOptions;
import org.apache.kafka.clients.consumer.Consumer;
import org.apache.kafka.clients.consumer.ConsumerRebalanceListener;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.ConsumerRecords;
import org.apache.kafka.common.KafkaException;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.errors.WakeupException;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The data plane of one lane: its own {@link Consumer} (the Java client is single-threaded), used only
 * by the lane thread, except {@link #wakeup()}. One poll is four named steps:
 *
 * <pre>
 *   fetch (consumer.poll; rebalance callbacks run inside it) → rethrowCallbackFailure → dispatch (one onBatch per partition) → sampleLagIfDue
 * </pre>
 *
 * <h2>Rebalance callbacks</h2>
 * Kafka calls this lane's {@link ConsumerRebalanceListener} ({@link LaneRebalanceListener}) on the
 * lane thread, from inside {@code consumer.poll}, and it translates each call to the lane's
 * {@link PartitionListener}, with dense ids, in the order Kafka makes them:
 * <ul>
 *   <li>{@code onPartitionsRevoked} → {@link PartitionListener#onRevoked}. With the cooperative
 *       assignor (the default) and with {@code group.protocol=consumer}, only the partitions that
 *       leave; with an eager assignor, every owned partition, before each rebalance. The listener
 *       drains and commits synchronously <em>inside</em> the callback — the Kafka model: the next owner
 *       cannot start until the callback returns — so drain-timeout must stay well below
 *       {@code max.poll.interval.ms} (the rebalance timeout). Then the partitions' state is dropped in
 *       one place ({@link OwnedPartitions#release}).</li>
 *   <li>{@code onPartitionsLost} → {@link PartitionListener#onLost}: the partitions already belong to
 *       someone else (session expired, member fenced); nothing is committed for them.</li>
 *   <li>{@code onPartitionsAssigned} → {@link PartitionListener#onAssigned}, only for partitions the
 *       lane did not own; if the lane is paused, they are paused first, so a paused lane stays paused.
 *       A new assignment never inherits an earlier one's {@link #pausePartition} (it starts unpaused
 *       unless the whole lane is paused); {@link #resume()} leaves partitions paused on their own alone.
 *       Reading starts at the group's committed offset (or {@code auto.offset.reset}).</li>
 * </ul>
 * Empty changes are not reported. While the lane closes, Kafka's revoke-on-close is not reported:
 * the engine has made its final commit before closing. An exception thrown by the listener is not
 * allowed to escape into the consumer (which would wrap it and carry on): the first one is kept,
 * later callbacks are not forwarded, and {@link #poll} rethrows it unchanged when
 * {@code consumer.poll} returns.
 *
 * <h2>Broker contact</h2>
 * Every lag sample also checks contact with the group ({@link BrokerContact}): a lane that has not joined its group within
 * {@code unreachableAfter} of opening, or whose consumer's last heartbeat
 * ({@code consumer-coordinator-metrics/last-heartbeat-seconds-ago}) is older than that, sets
 * {@code etl_source_broker_unreachable} to 1 and logs a WARN naming the bootstrap servers, repeated
 * every {@code unreachableAfter} while it lasts; the gauge returns to 0 (with an INFO) on contact.
 * The lane keeps polling: the client reconnects by itself.
 *
 * <p>Tombstones (null values) are counted in {@code etl_source_tombstones_total} and handed to the
 * chain as records with an absent value; the chain's deserializer decides (Avro: emits nothing, the
 * offset commits like a filtered record's).
 *
 * <h2>Commits</h2>
 * Translated by {@link GroupOffsets}: {@code commitAsync} (outcome reported to the callback on this thread, inside a later poll or
 * commit) and {@code commitSync} bounded by the commit timeout. A shutdown's {@link #wakeup()} that
 * lands inside a synchronous commit (e.g. during a revoke) does not cost the commit: it is retried
 * once and the wakeup re-armed, so the poll still returns early.
 */
final class KafkaSourceLane implements SourceLane {
    private static final Logger log = LoggerFactory.getLogger(KafkaSourceLane.class);

    private final Consumer<byte[], byte[]> consumer;
    private final int laneIndex;
    private final TopicPartitionIds ids;
    /** The topics' ids, part of each partition's identity (dedup tokens of its deterministic blocks). */
    private final TopicIds topicIds;

    private final KafkaLaneMetrics metrics;
    private final KafkaSourceConfig config;
    private final OwnedPartitions owned;
    private final LaneRebalanceListener rebalance;
    private final GroupOffsets offsets;
    private final BrokerContact contact;
    private final KafkaPartitionBatch batch = new KafkaPartitionBatch();
    private final long lagSampleIntervalNs;
    private final Duration[] timeouts = new Duration[2];
    private final long[] timeoutMs = {-1, -1};
    private long nextLagSampleNs;
    private boolean paused;

    KafkaSourceLane(
            Consumer<byte[], byte[]> consumer,
            int laneIndex,
            PartitionListener listener,
            TopicPartitionIds ids,
            TopicIds topicIds,
            PartitionLagGauges lagGauges,
            KafkaLaneMetrics metrics,
            KafkaSourceConfig config) {
        this.consumer = consumer;
        this.laneIndex = laneIndex;
        this.ids = ids;
        this.metrics = metrics;
        this.config = config;
        this.owned = new OwnedPartitions(laneIndex, ids, lagGauges);
        this.topicIds = topicIds;
        this.rebalance = new LaneRebalanceListener(consumer, owned, listener, this::isPaused, topicIds);
        this.offsets = new GroupOffsets(consumer, laneIndex, owned, ids, config);
        this.contact = new BrokerContact(consumer, laneIndex, metrics, config);
        this.lagSampleIntervalNs = config.lagSampleInterval().toNanos();
    }

    /** Subscribes to the configured topics or pattern with this lane's rebalance listener. */
    void subscribe() {
        if (config.topicPattern() != null) {
            consumer.subscribe(config.topicPattern(), rebalance);
        } else {
            consumer.subscribe(config.topics(), rebalance);
        }
    }

    @Override
    public void poll(long timeoutMs, BatchHandler handler) {
        ConsumerRecords<byte[], byte[]> records = fetch(timeoutMs);
        rethrowCallbackFailure();
        dispatch(records, handler);
        sampleLagIfDue();
    }

    private ConsumerRecords<byte[], byte[]> fetch(long timeoutMs) {
        long startNs = System.nanoTime();
        try {
            return consumer.poll(timeout(timeoutMs));
        } catch (WakeupException e) {
            return ConsumerRecords.empty();
        } catch (KafkaException e) {
            rethrowCallbackFailure();
            if (KafkaAccessFailure.matches(e)) {
                // no retry fixes it: say which brokers, how the lane connects, and what is wrong
                throw new SourceException("lane " + laneIndex + " " + KafkaAccessFailure.describe(e, config), e);
            }
            throw new SourceException(
                    "lane " + laneIndex + ": poll of " + config.subscription() + " (group " + config.groupId()
                            + ") failed: " + e,
                    e);
        } finally {
            metrics.pollDuration.record(System.nanoTime() - startNs, TimeUnit.NANOSECONDS);
        }
    }

    private void rethrowCallbackFailure() {
        rebalance.rethrowFailure();
    }

    private void dispatch(ConsumerRecords<byte[], byte[]> records, BatchHandler handler) {
        if (records.isEmpty()) {
            return;
        }
        for (TopicPartition tp : records.partitions()) {
            AssignedPartition partition = owned.get(tp);
            if (partition == null) {
                throw new SourceException(
                        "lane " + laneIndex + " received records of " + tp + " without an assignment callback for it",
                        null);
            }
            List<ConsumerRecord<byte[], byte[]>> list = records.records(tp);
            ConsumerRecord<byte[], byte[]> last = list.get(list.size() - 1);
            partition.lastDeliveredOffset = last.offset();
            partition.lastDeliveredLeaderEpoch = last.leaderEpoch();
            countIn(list);
            try {
                // The lag the consumer knows from its last fetch (no broker call): a partition far behind
                // lets its deterministic blocks fill past the linger.
                OptionalLong lag = consumer.currentLag(tp);
                handler.onBatch(batch.wrap(partition.id, list, lag.isPresent() ? lag.getAsLong() : -1));
            } finally {
                batch.clear();
            }
        }
    }

    private void countIn(List<ConsumerRecord<byte[], byte[]>> list) {
        long bytes = 0;
        int tombstones = 0;
        for (int i = 0, n = list.size(); i < n; i++) {
            ConsumerRecord<byte[], byte[]> r = list.get(i);
            bytes += Math.max(0, r.serializedKeySize()) + Math.max(0, r.serializedValueSize());
            if (r.value() == null) {
                tombstones++;
            }
        }
        metrics.bytesIn.increment(bytes);
        if (tombstones > 0) {
            metrics.tombstones.increment(tombstones);
        }
    }

    private void sampleLagIfDue() {
        long nowNs = System.nanoTime();
        if (nowNs - nextLagSampleNs < 0) {
            return;
        }
        nextLagSampleNs = nowNs + lagSampleIntervalNs;
        contact.check(nowNs, rebalance.hasJoined());
        for (AssignedPartition partition : owned.all()) {
            // Local: the client keeps the end offset from its last fetch response; no broker call.
            OptionalLong lag = consumer.currentLag(partition.topicPartition);
            if (lag.isPresent()) {
                partition.lag.lag = lag.getAsLong();
            }
        }
    }

    /** The lane alternates between two poll timeouts; keep both Durations instead of allocating per poll. */
    private Duration timeout(long ms) {
        int slot = timeoutMs[0] == ms ? 0 : timeoutMs[1] == ms ? 1 : -1;
        if (slot < 0) {
            slot = timeoutMs[0] == -1 ? 0 : 1;
            timeoutMs[slot] = ms;
            timeouts[slot] = Duration.ofMillis(ms);
        }
        return timeouts[slot];
    }

    @Override
    public void pause() {
        paused = true;
        consumer.pause(consumer.assignment());
    }

    @Override
    public void resume() {
        paused = false;
        List<TopicPartition> resumable = new ArrayList<>(owned.size());
        for (TopicPartition tp : consumer.assignment()) {
            AssignedPartition partition = owned.get(tp);
            if (partition == null || !partition.pausedAlone) {
                resumable.add(tp);
            }
        }
        consumer.resume(resumable);
    }

    @Override
    public void pausePartition(int partitionId) {
        AssignedPartition partition = owned.get(partitionId);
        if (partition != null && !partition.pausedAlone) {
            partition.pausedAlone = true;
            consumer.pause(List.of(partition.topicPartition));
        }
    }

    @Override
    public void resumePartition(int partitionId) {
        AssignedPartition partition = owned.get(partitionId);
        if (partition != null && partition.pausedAlone) {
            partition.pausedAlone = false;
            if (!paused) {
                consumer.resume(List.of(partition.topicPartition));
            }
        }
    }

    @Override
    public boolean isPaused() {
        return paused;
    }

    @Override
    public void commit(CommitOffsets nextOffsets, boolean sync, @Nullable CommitCallback callback) {
        offsets.commit(nextOffsets, sync, callback);
    }

    /**
     * The group's committed offset and metadata for an owned partition, as they were when it was
     * assigned: fetched once per assignment, for every owned partition not fetched yet in one request
     * (the engine asks from inside {@code onAssigned}, i.e. the consumer's rebalance callback). A failed
     * lookup is logged and reported as {@link CommittedPosition#NONE}: the engine then chooses batch
     * boundaries afresh, which can only cost duplicates.
     */
    @Override
    public CommittedPosition committed(int partitionId) {
        return offsets.committed(partitionId);
    }

    @Override
    public String describe(int partition) {
        return ids.describe(partition);
    }

    /** {@code orders-3@<topic id>}: the topic id tells a recreated topic of the same name apart. */
    @Override
    public String partitionIdentity(int partition) {
        return topicIds.identity(ids.topicPartition(partition));
    }

    /** The Kafka topic of the partition: what several ChainFactories are routed by. */
    @Override
    public String topic(int partition) {
        return ids.topicPartition(partition).topic();
    }

    @Override
    public void wakeup() {
        consumer.wakeup();
    }

    @Override
    public boolean hasJoined() {
        return rebalance.hasJoined();
    }

    /**
     * Closes the consumer (leaving the group, bounded by the close timeout). Partitions still owned
     * are released without reporting a revoke: the engine made its final commit before closing.
     */
    @Override
    public void close() {
        rebalance.closing();
        try {
            consumer.close(CloseOptions.timeout(config.closeTimeout()));
        } catch (KafkaException e) {
            log.warn("lane {}: closing the consumer of group {} failed: {}", laneIndex, config.groupId(), e.toString());
        } finally {
            owned.releaseAll();
        }
    }
}
