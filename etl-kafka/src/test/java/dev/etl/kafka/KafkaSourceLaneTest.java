package dev.etl.kafka;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.etl.error.SourceException;
import dev.etl.source.CommitOffsets;
import dev.etl.source.PartitionBatch;
import dev.etl.source.PartitionListener;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collection;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.Consumer;
import java.util.regex.Pattern;
import org.apache.kafka.clients.consumer.ConsumerRebalanceListener;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.MockConsumer;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.header.internals.RecordHeaders;
import org.apache.kafka.common.record.TimestampType;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

class KafkaSourceLaneTest {
    private static final TopicPartition ORDERS_0 = new TopicPartition("orders", 0);
    private static final TopicPartition ORDERS_1 = new TopicPartition("orders", 1);
    private static final TopicPartition REFUNDS_0 = new TopicPartition("refunds", 0);

    /** MockConsumer that exposes the rebalance listener, to deliver "lost" (MockConsumer cannot). */
    static final class ScriptedConsumer extends MockConsumer<byte[], byte[]> {
        volatile ConsumerRebalanceListener listener;
        final List<Map<TopicPartition, OffsetAndMetadata>> syncCommits = new ArrayList<>();
        boolean wakeupNextCommit;

        @Override
        public void commitSync(Map<TopicPartition, OffsetAndMetadata> offsets, java.time.Duration timeout) {
            if (wakeupNextCommit) {
                wakeupNextCommit = false;
                throw new org.apache.kafka.common.errors.WakeupException();
            }
            syncCommits.add(Map.copyOf(offsets));
            super.commitSync(offsets, timeout);
        }

        ScriptedConsumer() {
            super("earliest");
        }

        @Override
        public synchronized void subscribe(Collection<String> topics, ConsumerRebalanceListener listener) {
            this.listener = listener;
            super.subscribe(topics, listener);
        }

        @Override
        public synchronized void subscribe(Pattern pattern, ConsumerRebalanceListener listener) {
            this.listener = listener;
            super.subscribe(pattern, listener);
        }
    }

    /** Records every callback as text; optional actions run inside them (on the "lane" thread). */
    static final class RecordingListener implements PartitionListener {
        final List<String> events = new ArrayList<>();
        Consumer<int[]> onRevokedAction = ids -> {};
        Consumer<int[]> onAssignedAction = ids -> {};
        RuntimeException throwOnAssigned;

        @Override
        public void onAssigned(int[] partitions) {
            events.add("assigned" + Arrays.toString(partitions));
            onAssignedAction.accept(partitions);
            if (throwOnAssigned != null) {
                throw throwOnAssigned;
            }
        }

        @Override
        public void onRevoked(int[] partitions) {
            events.add("revoked" + Arrays.toString(partitions));
            onRevokedAction.accept(partitions);
        }

        @Override
        public void onLost(int[] partitions) {
            events.add("lost" + Arrays.toString(partitions));
        }
    }

    private final ScriptedConsumer consumer = new ScriptedConsumer();
    private final RecordingListener listener = new RecordingListener();
    private final SimpleMeterRegistry registry = new SimpleMeterRegistry();
    private final List<String> batches = new ArrayList<>();
    private final List<byte[]> valueArrays = new ArrayList<>();
    private final List<Long> backlogs = new ArrayList<>();
    private KafkaSource source;
    private KafkaSourceLane lane;

    @BeforeEach
    void open() {
        KafkaSourceConfig config = KafkaSourceConfig.builder()
                .property("bootstrap.servers", "mock:9092")
                .property("group.id", "g")
                .topics("orders", "refunds")
                .pipeline("p")
                .meterRegistry(registry)
                .lagSampleInterval(java.time.Duration.ofNanos(1))
                .build();
        source = new KafkaSource(config, props -> consumer);
        lane = (KafkaSourceLane) source.openLane(0, listener);
        consumer.updateBeginningOffsets(Map.of(ORDERS_0, 0L, ORDERS_1, 0L, REFUNDS_0, 0L));
        consumer.updateEndOffsets(Map.of(ORDERS_0, 10L, ORDERS_1, 0L, REFUNDS_0, 0L));
    }

    private void poll() {
        lane.poll(1, this::record);
    }

    private void record(PartitionBatch batch) {
        StringBuilder sb = new StringBuilder(lane.describe(batch.partition())).append(':');
        long last = batch.lastOffset();
        int size = batch.size();
        backlogs.add(batch.backlog());
        while (batch.next()) {
            sb.append(' ')
                    .append(batch.offset())
                    .append('=')
                    .append(batch.key().isPresent() ? batch.key().toUtf8String() : "<no key>")
                    .append('/')
                    .append(batch.value().isPresent() ? batch.value().toUtf8String() : "<tombstone>")
                    .append('@')
                    .append(batch.timestampMs());
            valueArrays.add(batch.value().array());
        }
        batches.add(sb.append(" (size ")
                .append(size)
                .append(", last ")
                .append(last)
                .append(')')
                .toString());
    }

    private static ConsumerRecord<byte[], byte[]> rec(
            TopicPartition tp, long offset, String key, String value, int leaderEpoch) {
        byte[] k = key == null ? null : key.getBytes(StandardCharsets.UTF_8);
        byte[] v = value == null ? null : value.getBytes(StandardCharsets.UTF_8);
        return new ConsumerRecord<>(
                tp.topic(),
                tp.partition(),
                offset,
                1_000 + offset,
                TimestampType.CREATE_TIME,
                k == null ? -1 : k.length,
                v == null ? -1 : v.length,
                k,
                v,
                new RecordHeaders(),
                Optional.of(leaderEpoch));
    }

    private void rebalanceInNextPoll(TopicPartition... assignment) {
        inNextPoll(() -> consumer.rebalance(List.of(assignment)));
    }

    /** MockConsumer runs one scheduled task per poll: combine a poll's actions into one. */
    private void inNextPoll(Runnable... actions) {
        consumer.schedulePollTask(() -> {
            for (Runnable action : actions) {
                action.run();
            }
        });
    }

    @Test
    void assignmentIsReportedWithDenseIdsBeforeTheBatchesOfThatPoll() {
        inNextPoll(() -> consumer.rebalance(List.of(ORDERS_0, REFUNDS_0)), () -> {
            consumer.addRecord(rec(ORDERS_0, 0, "k0", "v0", 1));
            consumer.addRecord(rec(ORDERS_0, 1, null, null, 1));
        });
        poll();
        assertThat(listener.events).containsExactly("assigned[0, 1]");
        int ordersId = source.partitionIds().idOf(ORDERS_0);
        assertThat(lane.describe(ordersId)).isEqualTo("orders-0");
        assertThat(batches).containsExactly("orders-0: 0=k0/v0@1000 1=<no key>/<tombstone>@1001 (size 2, last 1)");
    }

    /**
     * Issue 30 item 3: the identity of a partition (part of its deterministic blocks' dedup tokens) names
     * the topic id, so a topic deleted and recreated under the same name, or the same name on another
     * cluster, never shares a token with blocks written from the old one. Looked up once per topic at its
     * first assignment; a topic whose id could not be read is named without it.
     */
    @Test
    void aPartitionsIdentityNamesItsTopicIdLookedUpOncePerTopicAtAssignment() {
        List<java.util.Collection<String>> lookups = new ArrayList<>();
        TopicIds ids = new TopicIds(
                topics -> {
                    lookups.add(List.copyOf(topics));
                    return topics.contains("orders") ? Map.of("orders", "id-1") : Map.of();
                },
                "g");
        ScriptedConsumer withIds = new ScriptedConsumer();
        KafkaSource idSource = new KafkaSource(
                KafkaSourceConfig.builder()
                        .property("bootstrap.servers", "mock:9092")
                        .property("group.id", "g")
                        .topics("orders", "refunds")
                        .pipeline("p")
                        .meterRegistry(registry)
                        .build(),
                props -> withIds,
                ids);
        KafkaSourceLane idLane = (KafkaSourceLane) idSource.openLane(0, listener);
        withIds.updateBeginningOffsets(Map.of(ORDERS_0, 0L, ORDERS_1, 0L, REFUNDS_0, 0L));
        withIds.schedulePollTask(() -> withIds.rebalance(List.of(ORDERS_0, REFUNDS_0)));
        idLane.poll(1, b -> {});
        withIds.schedulePollTask(() -> withIds.rebalance(List.of(ORDERS_0, ORDERS_1, REFUNDS_0)));
        idLane.poll(1, b -> {});

        assertThat(idLane.partitionIdentity(idSource.partitionIds().idOf(ORDERS_0)))
                .isEqualTo("orders-0@id-1");
        assertThat(idLane.partitionIdentity(idSource.partitionIds().idOf(ORDERS_1)))
                .isEqualTo("orders-1@id-1");
        assertThat(idLane.partitionIdentity(idSource.partitionIds().idOf(REFUNDS_0)))
                .as("no id found: named without one")
                .isEqualTo("refunds-0");
        assertThat(lookups)
                .as("once per topic: orders-1's assignment needed no lookup")
                .containsExactly(List.of("orders", "refunds"));
        idLane.close();
        idSource.close();
    }

    @Test
    void tombstonesAreCountedPerLane() {
        inNextPoll(() -> consumer.rebalance(List.of(ORDERS_0)), () -> {
            consumer.addRecord(rec(ORDERS_0, 0, "k0", null, 1));
            consumer.addRecord(rec(ORDERS_0, 1, "k1", "v1", 1));
            consumer.addRecord(rec(ORDERS_0, 2, null, null, 1));
        });
        poll();
        assertThat(registry.get("etl.source.tombstones")
                        .tag("lane", "0")
                        .tag("pipeline", "p")
                        .counter()
                        .count())
                .isEqualTo(2);
        assertThat(batches).hasSize(1);
    }

    @Test
    void aLaneWithoutContactWithItsGroupSetsTheUnreachableGaugeUntilItJoins() throws Exception {
        ScriptedConsumer silent = new ScriptedConsumer();
        SimpleMeterRegistry meters = new SimpleMeterRegistry();
        KafkaSource unreachable = new KafkaSource(
                KafkaSourceConfig.builder()
                        .property("bootstrap.servers", "nowhere:9092")
                        .property("group.id", "g")
                        .topics("orders")
                        .pipeline("u")
                        .meterRegistry(meters)
                        .lagSampleInterval(java.time.Duration.ofNanos(1))
                        .unreachableAfter(java.time.Duration.ofMillis(20))
                        .build(),
                props -> silent);
        KafkaSourceLane quiet = (KafkaSourceLane) unreachable.openLane(1, listener);
        quiet.poll(1, this::record);
        assertThat(meters.get("etl.source.broker.unreachable")
                        .tag("lane", "1")
                        .gauge()
                        .value())
                .isZero();
        Thread.sleep(40);
        quiet.poll(1, this::record);
        assertThat(meters.get("etl.source.broker.unreachable")
                        .tag("lane", "1")
                        .gauge()
                        .value())
                .isEqualTo(1);
        silent.schedulePollTask(() -> silent.rebalance(List.of(ORDERS_0)));
        silent.updateBeginningOffsets(Map.of(ORDERS_0, 0L));
        quiet.poll(1, this::record);
        assertThat(meters.get("etl.source.broker.unreachable")
                        .tag("lane", "1")
                        .gauge()
                        .value())
                .isZero();
    }

    @Test
    void laneHasJoinedOnlyAfterItsFirstAssignmentEvenAnEmptyOneAndReportsTopics() {
        assertThat(lane.hasJoined()).isFalse();
        rebalanceInNextPoll();
        poll();
        assertThat(lane.hasJoined()).isTrue();
        rebalanceInNextPoll(REFUNDS_0);
        poll();
        assertThat(lane.topic(source.partitionIds().idOf(REFUNDS_0))).isEqualTo("refunds");
    }

    @Test
    void aBatchReportsTheConsumersLagAfterItAsItsBacklog() {
        inNextPoll(() -> consumer.rebalance(List.of(ORDERS_0)), () -> {
            consumer.addRecord(rec(ORDERS_0, 0, "k0", "v0", 1));
            consumer.addRecord(rec(ORDERS_0, 1, "k1", "v1", 1));
        });
        poll();
        assertThat(backlogs).as("end offset 10, position 2 after the batch").containsExactly(8L);
    }

    @Test
    void payloadsWrapTheRecordArraysWithoutCopying() {
        ConsumerRecord<byte[], byte[]> r = rec(ORDERS_0, 0, "k", "value", 1);
        inNextPoll(() -> consumer.rebalance(List.of(ORDERS_0)), () -> consumer.addRecord(r));
        poll();
        assertThat(valueArrays).hasSize(1);
        assertThat(valueArrays.get(0)).isSameAs(r.value());
    }

    @Test
    void cooperativeRevokeReportsOnlyTheLeavingPartitionAndMayCommitInsideTheCallback() {
        rebalanceInNextPoll(ORDERS_0, ORDERS_1);
        poll();
        int orders0 = source.partitionIds().idOf(ORDERS_0);
        listener.onRevokedAction = ids -> {
            CommitOffsets offsets =
                    CommitOffsets.builder(1).add(ids[0], 5, null).build();
            lane.commit(offsets, true, null);
        };
        rebalanceInNextPoll(ORDERS_1);
        poll();
        assertThat(listener.events).containsExactly("assigned[0, 1]", "revoked[" + orders0 + "]");
        assertThat(consumer.syncCommits).containsExactly(Map.of(ORDERS_0, new OffsetAndMetadata(5)));
    }

    @Test
    void aPartitionAssignedAgainAfterARevokeIsReportedAgainWithTheSameId() {
        rebalanceInNextPoll(ORDERS_0);
        poll();
        rebalanceInNextPoll();
        poll();
        rebalanceInNextPoll(ORDERS_0);
        poll();
        assertThat(listener.events).containsExactly("assigned[0]", "revoked[0]", "assigned[0]");
    }

    @Test
    void lostPartitionsAreReportedAsLostNotRevoked() {
        rebalanceInNextPoll(ORDERS_0, ORDERS_1);
        poll();
        consumer.schedulePollTask(() -> consumer.listener.onPartitionsLost(List.of(ORDERS_1)));
        poll();
        assertThat(listener.events).containsExactly("assigned[0, 1]", "lost[1]");
    }

    @Test
    void aPartitionPausedOnItsOwnStaysPausedAcrossTheLaneWidePauseAndEndsWithItsAssignment() {
        rebalanceInNextPoll(ORDERS_0, ORDERS_1);
        poll();
        int orders0 = source.partitionIds().idOf(ORDERS_0);
        lane.pausePartition(orders0);
        assertThat(consumer.paused()).containsExactly(ORDERS_0);
        lane.pause();
        lane.resume(); // byte backpressure ends: must not resume the held partition
        assertThat(consumer.paused()).containsExactly(ORDERS_0);
        lane.pause();
        lane.resumePartition(orders0); // the hold ends while the lane is paused: stays paused
        assertThat(consumer.paused()).containsExactlyInAnyOrder(ORDERS_0, ORDERS_1);
        lane.resume();
        assertThat(consumer.paused()).isEmpty();

        lane.pausePartition(orders0);
        rebalanceInNextPoll(ORDERS_1);
        poll();
        rebalanceInNextPoll(ORDERS_0, ORDERS_1);
        poll();
        assertThat(consumer.paused()).as("a new assignment starts unpaused").isEmpty();
        lane.resumePartition(orders0); // no-op, no error
        assertThat(consumer.paused()).isEmpty();
    }

    @Test
    void partitionsAssignedWhilePausedArePausedBeforeTheListenerHearsOfThem() {
        rebalanceInNextPoll(ORDERS_0);
        poll();
        lane.pause();
        assertThat(consumer.paused()).containsExactly(ORDERS_0);
        AtomicReference<Set<TopicPartition>> pausedWhenReported = new AtomicReference<>();
        listener.onAssignedAction = ids -> pausedWhenReported.set(consumer.paused());
        rebalanceInNextPoll(ORDERS_0, ORDERS_1);
        poll();
        assertThat(pausedWhenReported.get()).containsExactlyInAnyOrder(ORDERS_0, ORDERS_1);
        assertThat(lane.isPaused()).isTrue();
        lane.resume();
        assertThat(consumer.paused()).isEmpty();
        assertThat(lane.isPaused()).isFalse();
    }

    @Test
    void pausedPartitionsReturnNoRecords() {
        rebalanceInNextPoll(ORDERS_0);
        poll();
        lane.pause();
        consumer.addRecord(rec(ORDERS_0, 0, "k", "v", 1));
        poll();
        assertThat(batches).isEmpty();
        lane.resume();
        poll();
        assertThat(batches).hasSize(1);
    }

    @Test
    void aListenerExceptionIsRethrownUnchangedFromPoll() {
        IllegalStateException boom = new IllegalStateException("boom");
        listener.throwOnAssigned = boom;
        rebalanceInNextPoll(ORDERS_0);
        assertThatThrownBy(this::poll).isSameAs(boom);
    }

    @Test
    void aWakeupThatLandsInASyncCommitDoesNotCostTheCommitAndStillEndsThePoll() {
        inNextPoll(
                () -> consumer.rebalance(List.of(ORDERS_0)), () -> consumer.addRecord(rec(ORDERS_0, 0, "k", "v", 1)));
        poll();
        consumer.addRecord(rec(ORDERS_0, 1, "k", "v", 1));
        consumer.wakeupNextCommit = true;
        CommitOffsets offsets = CommitOffsets.builder(1).add(0, 1, null).build();
        lane.commit(offsets, true, null);
        assertThat(consumer.syncCommits).hasSize(1);
        poll(); // the re-armed wakeup ends this poll before it returns records
        assertThat(batches).hasSize(1);
        poll();
        assertThat(batches).hasSize(2);
    }

    @Test
    void wakeupMakesPollReturnNormally() {
        lane.wakeup();
        poll();
        assertThat(batches).isEmpty();
    }

    @Test
    void aPollFailureIsASourceExceptionNamingSubscriptionAndGroup() {
        consumer.setPollException(new org.apache.kafka.common.errors.AuthorizationException("denied"));
        assertThatThrownBy(this::poll)
                .isInstanceOf(SourceException.class)
                .hasMessageContaining("[orders, refunds]")
                .hasMessageContaining("group g")
                .hasMessageContaining("denied");
    }

    @Test
    void commitsCarryTheLeaderEpochOnlyWhenJustPastTheLastDeliveredRecord() {
        inNextPoll(() -> consumer.rebalance(List.of(ORDERS_0, ORDERS_1)), () -> {
            consumer.addRecord(rec(ORDERS_0, 0, "a", "a", 3));
            consumer.addRecord(rec(ORDERS_0, 1, "b", "b", 4));
            consumer.addRecord(rec(ORDERS_1, 0, "c", "c", 7));
        });
        poll();
        int o0 = source.partitionIds().idOf(ORDERS_0);
        int o1 = source.partitionIds().idOf(ORDERS_1);
        CommitOffsets offsets =
                CommitOffsets.builder(2).add(o0, 2, null).add(o1, 0, null).build();
        lane.commit(offsets, true, null);
        Map<TopicPartition, OffsetAndMetadata> committed = consumer.committed(Set.of(ORDERS_0, ORDERS_1));
        assertThat(committed.get(ORDERS_0).offset()).isEqualTo(2);
        assertThat(committed.get(ORDERS_0).leaderEpoch()).contains(4);
        assertThat(committed.get(ORDERS_1).offset()).isZero();
        assertThat(committed.get(ORDERS_1).leaderEpoch()).isEmpty();
    }

    @Test
    void asyncCommitReportsTheEngineOffsetsToTheCallback() {
        rebalanceInNextPoll(ORDERS_0);
        poll();
        CommitOffsets offsets = CommitOffsets.builder(1).add(0, 4, null).build();
        AtomicReference<CommitOffsets> reported = new AtomicReference<>();
        lane.commit(offsets, false, (o, e) -> {
            assertThat(e).isNull();
            reported.set(o);
        });
        poll();
        assertThat(reported.get()).isSameAs(offsets);
        assertThat(consumer.committed(Set.of(ORDERS_0)).get(ORDERS_0).offset()).isEqualTo(4);
    }

    @Test
    void lagGaugeExistsWhileThePartitionIsOwnedAndBytesAreCounted() {
        inNextPoll(
                () -> consumer.rebalance(List.of(ORDERS_0)),
                () -> consumer.addRecord(rec(ORDERS_0, 0, "kk", "vvv", 1)));
        poll();
        var gauge = registry.find("etl.source.lag")
                .tag("topic", "orders")
                .tag("partition", "0")
                .gauge();
        assertThat(gauge).isNotNull();
        assertThat(registry.get("etl.source.bytes").tag("lane", "0").counter().count())
                .isEqualTo(5.0);
        assertThat(registry.get("etl.source.poll.duration")
                        .tag("pipeline", "p")
                        .timer()
                        .count())
                .isEqualTo(1);
        rebalanceInNextPoll();
        poll();
        assertThat(registry.find("etl.source.lag").tag("topic", "orders").gauge())
                .isNull();
    }

    @Test
    void aLaneThatLearnsLateItLostAPartitionDoesNotRemoveTheNewOwnersGauge() {
        PartitionLagGauges gauges = new PartitionLagGauges(registry, "p");
        PartitionLagGauges.Cell first = gauges.claim(0, ORDERS_0, 0);
        PartitionLagGauges.Cell second = gauges.claim(0, ORDERS_0, 1);
        gauges.release(first, 0);
        assertThat(registry.find("etl.source.lag").gauge()).isNotNull();
        gauges.release(second, 1);
        assertThat(registry.find("etl.source.lag").gauge()).isNull();
    }

    @Test
    void closeDoesNotReportARevokeAndRemovesTheLanesGauges() {
        rebalanceInNextPoll(ORDERS_0);
        poll();
        ConsumerRebalanceListener kafkaListener = consumer.listener;
        lane.close();
        kafkaListener.onPartitionsRevoked(List.of(ORDERS_0));
        assertThat(listener.events).containsExactly("assigned[0]");
        assertThat(consumer.closed()).isTrue();
        assertThat(registry.find("etl.source.lag").gauge()).isNull();
    }

    @Test
    void describesTheSourceWithoutSecrets() {
        KafkaSource s = new KafkaSource(
                KafkaSourceConfig.builder()
                        .property("bootstrap.servers", "b:9092")
                        .property("group.id", "g")
                        .property("sasl.jaas.config", "password=\"hunter2\"")
                        .topicPattern(Pattern.compile("orders-.*"))
                        .build(),
                props -> consumer);
        assertThat(s.describe()).isEqualTo("kafka[/orders-.*/] group=g");
        assertThat(s.config().toString()).doesNotContain("hunter2");
    }

    @Test
    void anAuthenticationFailureNamesTheBrokersHowTheLaneConnectsAndTheCauseButNoSecret() {
        ScriptedConsumer refused = new ScriptedConsumer();
        KafkaSource secured = new KafkaSource(
                KafkaSourceConfig.builder()
                        .property("bootstrap.servers", "kafka-1:9094")
                        .property("group.id", "g")
                        .property("security.protocol", "SASL_SSL")
                        .property("sasl.mechanism", "SCRAM-SHA-512")
                        .property(
                                "sasl.jaas.config",
                                "org.apache.kafka.common.security.scram.ScramLoginModule required "
                                        + "username=\"etl\" password=\"hunter2\";")
                        .property("ssl.truststore.password", "store-secret")
                        .topics("orders")
                        .pipeline("s")
                        .meterRegistry(new SimpleMeterRegistry())
                        .build(),
                props -> refused);
        KafkaSourceLane secure = (KafkaSourceLane) secured.openLane(0, listener);
        try {
            refused.setPollException(new org.apache.kafka.common.errors.SaslAuthenticationException(
                    "Authentication failed during authentication due to invalid credentials with SASL mechanism "
                            + "SCRAM-SHA-512"));
            assertThatThrownBy(() -> secure.poll(10, (batch) -> {}))
                    .isInstanceOf(SourceException.class)
                    .hasMessageContaining("lane 0 cannot authenticate to Kafka at bootstrap.servers=kafka-1:9094 "
                            + "(security.protocol=SASL_SSL, sasl.mechanism=SCRAM-SHA-512)")
                    .hasMessageContaining("wrong user name or password")
                    .hasMessageContaining("invalid credentials")
                    .satisfies((e) ->
                            assertThat(e.getMessage()).doesNotContain("hunter2", "store-secret", "ScramLoginModule"));
            refused.setPollException(new org.apache.kafka.common.errors.SslAuthenticationException(
                    "SSL handshake failed",
                    new javax.net.ssl.SSLHandshakeException("PKIX path building failed: unable to find valid "
                            + "certification path to requested target")));
            assertThatThrownBy(() -> secure.poll(10, (batch) -> {}))
                    .hasMessageContaining("the broker's certificate is not trusted")
                    .hasMessageContaining("spring.kafka.ssl.bundle")
                    .hasMessageContaining("PKIX path building failed");
            refused.setPollException(new org.apache.kafka.common.errors.SslAuthenticationException(
                    "SSL handshake failed",
                    new javax.net.ssl.SSLHandshakeException(
                            "No subject alternative names matching IP address " + "127.0.0.1 found")));
            assertThatThrownBy(() -> secure.poll(10, (batch) -> {}))
                    .hasMessageContaining("not issued for the host")
                    .hasMessageContaining("127.0.0.1");
        } finally {
            secure.close();
        }
    }
}
