package dev.etl.kafka;

import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collection;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.concurrent.TimeUnit;

import org.agrona.collections.Int2ObjectHashMap;
import org.apache.kafka.clients.consumer.CloseOptions;
import org.apache.kafka.clients.consumer.Consumer;
import org.apache.kafka.clients.consumer.ConsumerRebalanceListener;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.ConsumerRecords;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.common.KafkaException;
import org.apache.kafka.common.Metric;
import org.apache.kafka.common.MetricName;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.errors.WakeupException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import dev.etl.error.SourceException;
import dev.etl.source.BatchHandler;
import dev.etl.source.CommitOffsets;
import dev.etl.source.CommittedPosition;
import dev.etl.source.PartitionListener;
import dev.etl.source.SourceLane;

/**
 * The data plane of one lane: its own {@link Consumer} (the Java client is single-threaded), used only
 * by the lane thread, except {@link #wakeup()}. One poll is four named steps:
 *
 * <pre>
 *   fetch (consumer.poll; rebalance callbacks run inside it) → rethrowCallbackFailure → dispatch (one onBatch per partition) → sampleLagIfDue
 * </pre>
 *
 * <h2>Rebalance callbacks</h2>
 * Kafka calls this lane's {@link ConsumerRebalanceListener} on the lane thread, from inside
 * {@code consumer.poll}, and the lane translates each call to its {@link PartitionListener}, with
 * dense ids, in the order Kafka makes them:
 * <ul>
 *   <li>{@code onPartitionsRevoked} → {@link PartitionListener#onRevoked}. With the cooperative
 *       assignor (the default) and with {@code group.protocol=consumer}, only the partitions that
 *       leave; with an eager assignor, every owned partition, before each rebalance. The listener
 *       drains and commits synchronously <em>inside</em> the callback — the Kafka model: the next owner
 *       cannot start until the callback returns — so drain-timeout must stay well below
 *       {@code max.poll.interval.ms} (the rebalance timeout). Then the partitions' state is dropped in
 *       one place ({@link #release}).</li>
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
 * Every lag sample also checks contact with the group: a lane that has not joined its group within
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
 * {@code commitAsync} (outcome reported to the callback on this thread, inside a later poll or
 * commit) and {@code commitSync} bounded by the commit timeout. A shutdown's {@link #wakeup()} that
 * lands inside a synchronous commit (e.g. during a revoke) does not cost the commit: it is retried
 * once and the wakeup re-armed, so the poll still returns early.
 */
final class KafkaSourceLane implements SourceLane {
    private static final Logger log = LoggerFactory.getLogger(KafkaSourceLane.class);

    private final Consumer<byte[], byte[]> consumer;
    private final int laneIndex;
    private final PartitionListener listener;
    private final TopicPartitionIds ids;
    private final PartitionLagGauges lagGauges;
    private final KafkaLaneMetrics metrics;
    private final KafkaSourceConfig config;
    private boolean joined;
    private final Int2ObjectHashMap<AssignedPartition> owned = new Int2ObjectHashMap<>();
    private final KafkaPartitionBatch batch = new KafkaPartitionBatch();
    private final ConsumerRebalanceListener rebalanceListener = new RebalanceAdapter();
    private final Duration commitTimeout;
    private final long lagSampleIntervalNs;
    private final Duration[] timeouts = new Duration[2];
    private final long[] timeoutMs = {-1, -1};
    private long nextLagSampleNs;
    private final long openedNs = System.nanoTime();
    private final long unreachableAfterNs;
    private long nextUnreachableWarnNs;
    private Metric heartbeatAge;
    private boolean paused;
    private boolean closing;
    private RuntimeException callbackFailure;

    KafkaSourceLane(Consumer<byte[], byte[]> consumer, int laneIndex, PartitionListener listener, TopicPartitionIds ids,
            PartitionLagGauges lagGauges, KafkaLaneMetrics metrics, KafkaSourceConfig config) {
        this.consumer = consumer;
        this.laneIndex = laneIndex;
        this.listener = listener;
        this.ids = ids;
        this.lagGauges = lagGauges;
        this.metrics = metrics;
        this.config = config;
        this.commitTimeout = config.commitTimeout();
        this.lagSampleIntervalNs = config.lagSampleInterval().toNanos();
        this.unreachableAfterNs = config.unreachableAfter().toNanos();
        this.nextUnreachableWarnNs = openedNs;
    }

    /** Subscribes to the configured topics or pattern with this lane's rebalance listener. */
    void subscribe() {
        if (config.topicPattern() != null) {
            consumer.subscribe(config.topicPattern(), rebalanceListener);
        } else {
            consumer.subscribe(config.topics(), rebalanceListener);
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
            throw new SourceException("lane " + laneIndex + ": poll of " + config.subscription() + " (group "
                    + config.groupId() + ") failed: " + e, e);
        } finally {
            metrics.pollDuration.record(System.nanoTime() - startNs, TimeUnit.NANOSECONDS);
        }
    }

    private void rethrowCallbackFailure() {
        if (callbackFailure != null) {
            throw callbackFailure;
        }
    }

    private void dispatch(ConsumerRecords<byte[], byte[]> records, BatchHandler handler) {
        if (records.isEmpty()) {
            return;
        }
        for (TopicPartition tp : records.partitions()) {
            AssignedPartition partition = owned.get(ids.idOf(tp));
            if (partition == null) {
                throw new SourceException("lane " + laneIndex + " received records of " + tp
                        + " without an assignment callback for it", null);
            }
            List<ConsumerRecord<byte[], byte[]>> list = records.records(tp);
            ConsumerRecord<byte[], byte[]> last = list.get(list.size() - 1);
            partition.lastDeliveredOffset = last.offset();
            partition.lastDeliveredLeaderEpoch = last.leaderEpoch();
            countIn(list);
            try {
                handler.onBatch(batch.wrap(partition.id, list));
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
        checkContact(nowNs);
        for (AssignedPartition partition : owned.values()) {
            // Local: the client keeps the end offset from its last fetch response; no broker call.
            OptionalLong lag = consumer.currentLag(partition.topicPartition);
            if (lag.isPresent()) {
                partition.lag.lag = lag.getAsLong();
            }
        }
    }

    /** Sets the unreachable gauge and logs (rate-limited) from the join state and heartbeat age. */
    private void checkContact(long nowNs) {
        long silentNs;
        if (!joined) {
            silentNs = nowNs - openedNs;
        } else {
            double seconds = heartbeatSecondsAgo();
            silentNs = seconds >= 0 ? (long) (seconds * 1e9) : 0;
        }
        if (silentNs <= unreachableAfterNs) {
            if (metrics.unreachable != 0) {
                metrics.unreachable = 0;
                log.info("pipeline={} lane={} reached the group {} again (bootstrap.servers={})", config.pipeline(),
                        laneIndex, config.groupId(), config.bootstrapServers());
            }
            return;
        }
        metrics.unreachable = 1;
        if (nowNs - nextUnreachableWarnNs >= 0) {
            nextUnreachableWarnNs = nowNs + unreachableAfterNs;
            log.warn("pipeline={} lane={} has had no contact with the group {} for {} s ({}): Kafka unreachable at "
                    + "bootstrap.servers={}? The lane keeps retrying", config.pipeline(), laneIndex, config.groupId(),
                    silentNs / 1_000_000_000L, joined ? "no heartbeat" : "never joined, readiness is down",
                    config.bootstrapServers());
        }
    }

    /** The consumer's {@code last-heartbeat-seconds-ago}, or -1 when it has none. Looked up once. */
    private double heartbeatSecondsAgo() {
        if (heartbeatAge == null) {
            for (Map.Entry<MetricName, ? extends Metric> e : consumer.metrics().entrySet()) {
                if (e.getKey().name().equals("last-heartbeat-seconds-ago")
                        && e.getKey().group().equals("consumer-coordinator-metrics")) {
                    heartbeatAge = e.getValue();
                    break;
                }
            }
            if (heartbeatAge == null) {
                return -1;
            }
        }
        Object value = heartbeatAge.metricValue();
        return value instanceof Number n ? n.doubleValue() : -1;
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
            AssignedPartition partition = owned.get(ids.idOf(tp));
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
    public void commit(CommitOffsets nextOffsets, boolean sync, CommitCallback callback) {
        Map<TopicPartition, OffsetAndMetadata> offsets = toKafka(nextOffsets);
        if (sync) {
            commitSync(offsets);
            return;
        }
        try {
            consumer.commitAsync(offsets, (committed, error) -> {
                if (callback != null) {
                    callback.onComplete(nextOffsets, error);
                }
            });
        } catch (KafkaException e) {
            if (callback != null) {
                callback.onComplete(nextOffsets, e);
            }
        }
    }

    private void commitSync(Map<TopicPartition, OffsetAndMetadata> offsets) {
        try {
            try {
                consumer.commitSync(offsets, commitTimeout);
            } catch (WakeupException e) {
                // A shutdown woke the consumer while it was committing (typically inside a revoke).
                // The commit still matters: retry it, then re-arm the wakeup for the poll.
                try {
                    consumer.commitSync(offsets, commitTimeout);
                } finally {
                    consumer.wakeup();
                }
            }
        } catch (KafkaException e) {
            throw new SourceException("lane " + laneIndex + ": synchronous commit of " + offsets + " for group "
                    + config.groupId() + " failed: " + e, e);
        }
    }

    private Map<TopicPartition, OffsetAndMetadata> toKafka(CommitOffsets nextOffsets) {
        Map<TopicPartition, OffsetAndMetadata> offsets = new HashMap<>(nextOffsets.size() * 2);
        for (int i = 0; i < nextOffsets.size(); i++) {
            int id = nextOffsets.partition(i);
            long offset = nextOffsets.offset(i);
            String metadata = nextOffsets.metadata(i);
            AssignedPartition partition = owned.get(id);
            Optional<Integer> epoch = partition != null ? partition.leaderEpochFor(offset) : Optional.empty();
            offsets.put(ids.topicPartition(id), new OffsetAndMetadata(offset, epoch, metadata == null ? "" : metadata));
        }
        return offsets;
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
        AssignedPartition partition = owned.get(partitionId);
        if (partition == null) {
            return CommittedPosition.NONE;
        }
        if (partition.committed == null) {
            Map<TopicPartition, AssignedPartition> pending = new HashMap<>();
            for (AssignedPartition p : owned.values()) {
                if (p.committed == null) {
                    pending.put(p.topicPartition, p);
                }
            }
            try {
                Map<TopicPartition, OffsetAndMetadata> committed = consumer.committed(pending.keySet(), commitTimeout);
                pending.forEach((tp, p) -> {
                    OffsetAndMetadata om = committed == null ? null : committed.get(tp);
                    p.committed = om == null ? CommittedPosition.NONE
                            : new CommittedPosition(om.offset(), om.metadata() == null || om.metadata().isEmpty()
                                    ? null : om.metadata());
                });
            } catch (KafkaException e) {
                log.warn("lane {}: reading the committed offsets of {} failed ({}); their batch boundaries are "
                        + "chosen afresh (a replay may duplicate rows)", laneIndex, pending.keySet(), e.toString());
                pending.values().forEach(p -> p.committed = CommittedPosition.NONE);
            }
        }
        return partition.committed;
    }

    @Override
    public String describe(int partition) {
        return ids.describe(partition);
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
        return joined;
    }

    /**
     * Closes the consumer (leaving the group, bounded by the close timeout). Partitions still owned
     * are released without reporting a revoke: the engine made its final commit before closing.
     */
    @Override
    public void close() {
        closing = true;
        try {
            consumer.close(CloseOptions.timeout(config.closeTimeout()));
        } catch (KafkaException e) {
            log.warn("lane {}: closing the consumer of group {} failed: {}", laneIndex, config.groupId(), e.toString());
        } finally {
            for (AssignedPartition partition : new ArrayList<>(owned.values())) {
                release(partition);
            }
        }
    }

    /** The one place a partition's state is dropped. */
    private void release(AssignedPartition partition) {
        owned.remove(partition.id);
        lagGauges.release(partition.lag, laneIndex);
    }

    private void onKafkaAssigned(Collection<TopicPartition> partitions) {
        // Kafka calls this after every completed rebalance, with an empty collection when nothing
        // new was assigned: the first call means the consumer has joined its group.
        joined = true;
        int[] added = new int[partitions.size()];
        int n = 0;
        for (TopicPartition tp : partitions) {
            int id = ids.idOf(tp);
            if (!owned.containsKey(id)) {
                owned.put(id, new AssignedPartition(id, tp, lagGauges.claim(id, tp, laneIndex)));
                added[n++] = id;
            }
        }
        if (n == 0) {
            return;
        }
        if (paused) {
            consumer.pause(partitions);
        } else {
            // A new assignment starts unpaused, whatever pausePartition did to an earlier one (the
            // consumer drops a revoked partition's pause, but not every Consumer does).
            List<TopicPartition> fresh = new ArrayList<>(n);
            for (int i = 0; i < n; i++) {
                fresh.add(owned.get(added[i]).topicPartition);
            }
            consumer.resume(fresh);
        }
        forward(Change.ASSIGNED, Arrays.copyOf(added, n));
    }

    private void onKafkaRevoked(Collection<TopicPartition> partitions, Change change) {
        List<AssignedPartition> leaving = new ArrayList<>(partitions.size());
        for (TopicPartition tp : partitions) {
            AssignedPartition partition = owned.get(ids.idOf(tp));
            if (partition != null) {
                leaving.add(partition);
            }
        }
        if (leaving.isEmpty()) {
            return;
        }
        try {
            if (!closing) {
                int[] gone = new int[leaving.size()];
                for (int i = 0; i < gone.length; i++) {
                    gone[i] = leaving.get(i).id;
                }
                // Still owned while the listener drains and commits (the commit needs the epochs).
                forward(change, gone);
            }
        } finally {
            for (AssignedPartition partition : leaving) {
                release(partition);
            }
        }
    }

    private enum Change { ASSIGNED, REVOKED, LOST }

    private void forward(Change change, int[] partitions) {
        if (callbackFailure != null) {
            return;
        }
        try {
            switch (change) {
                case ASSIGNED -> listener.onAssigned(partitions);
                case REVOKED -> listener.onRevoked(partitions);
                case LOST -> listener.onLost(partitions);
            }
        } catch (RuntimeException e) {
            callbackFailure = e;
        }
    }

    /** Kafka's view of this lane; every method runs on the lane thread inside {@code consumer.poll}. */
    private final class RebalanceAdapter implements ConsumerRebalanceListener {
        @Override
        public void onPartitionsRevoked(Collection<TopicPartition> partitions) {
            onKafkaRevoked(partitions, Change.REVOKED);
        }

        @Override
        public void onPartitionsLost(Collection<TopicPartition> partitions) {
            onKafkaRevoked(partitions, Change.LOST);
        }

        @Override
        public void onPartitionsAssigned(Collection<TopicPartition> partitions) {
            onKafkaAssigned(partitions);
        }
    }
}
