package dev.etl.it.kafka;

import static dev.etl.it.kafka.KafkaItSupport.pipeline;
import static dev.etl.it.kafka.KafkaItSupport.pipelineConfig;
import static dev.etl.it.kafka.KafkaItSupport.produce;
import static dev.etl.it.kafka.KafkaItSupport.sourceConfig;
import static dev.etl.it.support.ConsumerGroupOffsets.committed;
import static dev.etl.it.support.ConsumerGroupOffsets.endOffsets;
import static dev.etl.it.support.Eventually.await;
import static org.assertj.core.api.Assertions.assertThat;

import dev.etl.error.ErrorPolicy;
import dev.etl.it.kafka.KafkaItSupport.Tally;
import dev.etl.kafka.KafkaSource;
import dev.etl.pipeline.PipelineRuntime;
import dev.etl.pipeline.PipelineState;
import dev.etl.pipeline.RunReport;
import dev.etl.test.capture.CaptureSink;
import dev.etl.test.infra.InfraServer;
import dev.etl.test.infra.KafkaTestTopics;
import dev.etl.test.infra.LocalInfra;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.time.Duration;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.common.TopicPartition;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/** Group membership changes and a sink slower than max.poll.interval.ms. */
@LocalInfra(InfraServer.KAFKA)
class KafkaSourceRebalanceIT {
    private static final Logger log = LoggerFactory.getLogger(KafkaSourceRebalanceIT.class);

    private static double rebalanceEvents(MeterRegistry registry, String event) {
        return registry.find("etl.source.rebalance.events").tag("event", event).counters().stream()
                .mapToDouble(c -> c.count())
                .sum();
    }

    private static double counter(MeterRegistry registry, String name) {
        return registry.find(name).counters().stream()
                .mapToDouble(c -> c.count())
                .sum();
    }

    @Test
    @Timeout(value = 120, unit = TimeUnit.SECONDS)
    void aSecondInstanceJoinsMidRunAndLeavesAndNothingIsLost(KafkaTestTopics topics) throws Exception {
        int partitions = 8;
        int n = 300_000;
        int lanes = 2;
        int maxPollRecords = 500;
        String topic = topics.create("kafka-join-leave", partitions);
        String group = "it-" + topic;
        // Keep producing while instances join and leave, so records are in flight at every handover.
        CompletableFuture<Void> producer = CompletableFuture.runAsync(() -> {
            for (int from = 0; from < n; from += 10_000) {
                produce(topics.bootstrapServers(), topic, partitions, from, from + 10_000);
                sleep(300);
            }
        });
        SimpleMeterRegistry registryA = new SimpleMeterRegistry();
        SimpleMeterRegistry registryB = new SimpleMeterRegistry();
        CaptureSink captureA = CaptureSink.create("capture", 1);
        CaptureSink captureB = CaptureSink.create("capture", 1);
        PipelineRuntime a = instance("a", topics, group, topic, registryA, captureA, lanes, maxPollRecords);
        PipelineRuntime b = instance("b", topics, group, topic, registryB, captureB, lanes, maxPollRecords);
        a.start();
        RunReport reportB;
        try {
            await(
                    Duration.ofSeconds(30),
                    "instance a to write 30k rows",
                    () -> captureA.script().rows() >= 30_000);
            b.start();
            await(
                    Duration.ofSeconds(30),
                    "instance b to receive partitions and write rows",
                    () -> captureB.script().rows() >= 20_000);
            assertThat(rebalanceEvents(registryA, "revoked"))
                    .as("partitions a gave up to b")
                    .isPositive();
            assertThat(producer).as("still producing when b leaves").isNotDone();
            b.shutdown();
            reportB = b.awaitTermination(Duration.ofSeconds(30));
            await(
                    Duration.ofSeconds(30),
                    "instance a to take b's partitions back",
                    () -> rebalanceEvents(registryA, "assigned") >= partitions + partitions / 2);
            producer.get(60, TimeUnit.SECONDS);
            Map<TopicPartition, Long> end = endOffsets(topics.admin(), topic, partitions);
            await(
                    Duration.ofSeconds(40),
                    "instance a to commit every end offset " + end,
                    () -> committed(topics.admin(), group).equals(end));
        } finally {
            producer.cancel(true);
            b.shutdown();
            a.shutdown();
            a.awaitTermination(Duration.ofSeconds(30));
            b.awaitTermination(Duration.ofSeconds(30));
        }
        assertThat(reportB).isNotNull();
        assertThat(reportB.exitCode()).as("b's graceful shutdown").isZero();
        assertThat(rebalanceEvents(registryB, "assigned")).isPositive();
        assertThat(rebalanceEvents(registryB, "lost") + rebalanceEvents(registryA, "lost"))
                .isZero();

        Tally union = new Tally().add(captureA.script()).add(captureB.script());
        assertThat(union.firstMissing(n))
                .as("first value missing from both instances")
                .isEqualTo(-1);
        // Every handover drains and commits before the revoke completes, so duplicates can only come
        // from what was polled but not yet committable at a handover: at most one poll's worth per
        // partition per lane, twice (join and leave).
        long inFlightBound = 2L * partitions * lanes * maxPollRecords;
        log.info(
                "join/leave: {} rows for {} values, {} duplicates (bound {}); a wrote {}, b wrote {}",
                union.rows,
                n,
                union.duplicates(),
                inFlightBound,
                captureA.script().rows(),
                captureB.script().rows());
        assertThat(union.duplicates()).isLessThanOrEqualTo(inFlightBound);
    }

    private static PipelineRuntime instance(
            String name,
            KafkaTestTopics topics,
            String group,
            String topic,
            MeterRegistry registry,
            CaptureSink capture,
            int lanes,
            int maxPollRecords) {
        KafkaSource source = new KafkaSource(sourceConfig(topics.bootstrapServers(), group, topic, registry, name)
                .property("max.poll.records", maxPollRecords)
                .property("client.id", "it-" + name)
                .property("heartbeat.interval.ms", 500)
                .build());
        return pipeline(pipelineConfig(name, lanes).build(), source, capture.definition(), (v, m, s) -> 0, registry);
    }

    @Test
    @Timeout(value = 120, unit = TimeUnit.SECONDS)
    void aSinkBlockedLongerThanMaxPollIntervalKeepsTheMembershipAndResumes(KafkaTestTopics topics) throws Exception {
        int partitions = 4;
        int n = 100_000;
        long maxPollIntervalMs = 10_000;
        String topic = topics.create("kafka-blocked", partitions);
        String group = "it-" + topic;
        produce(topics.bootstrapServers(), topic, partitions, 0, n);
        SimpleMeterRegistry registry = new SimpleMeterRegistry();
        // A tiny queue so the blocked shard refuses chunks quickly and the lane pauses.
        CaptureSink capture = CaptureSink.create(
                "capture", 1, CaptureSink.TEST_BATCHING, CaptureSink.TEST_RETRY, 2, ErrorPolicy.FAIL);
        capture.script().block(0);
        KafkaSource source = new KafkaSource(sourceConfig(topics.bootstrapServers(), group, topic, registry, "blocked")
                .property("max.poll.interval.ms", (int) maxPollIntervalMs)
                .property("session.timeout.ms", 6_000)
                .property("heartbeat.interval.ms", 1_000)
                .property("max.poll.records", 500)
                .build());
        PipelineRuntime runtime = pipeline(
                pipelineConfig("blocked", 1).maxInFlightBytes(256 * 1024).build(),
                source,
                capture.definition(),
                (v, m, s) -> 0,
                registry);
        runtime.start();
        try {
            await(
                    Duration.ofSeconds(30),
                    "the lane to pause behind the blocked sink",
                    () -> counter(registry, "etl.backpressure.pauses") > 0
                            && capture.script().attempts(0) > 0);
            double pollsAtPause = counter(registry, "etl.lane.polls");
            long blockedAt = System.nanoTime();
            Thread.sleep(maxPollIntervalMs + 5_000);
            log.info(
                    "blocked for {} ms; lane polled {} times meanwhile",
                    TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - blockedAt),
                    counter(registry, "etl.lane.polls") - pollsAtPause);
            assertThat(counter(registry, "etl.lane.polls") - pollsAtPause)
                    .as("polls while paused")
                    .isGreaterThan(100);
            assertThat(capture.script().rows()).isZero();
            assertThat(rebalanceEvents(registry, "revoked") + rebalanceEvents(registry, "lost"))
                    .isZero();
            assertThat(rebalanceEvents(registry, "assigned")).isEqualTo(partitions);
            assertThat(runtime.state()).isEqualTo(PipelineState.RUNNING);

            capture.script().release(0);
            Map<TopicPartition, Long> end = endOffsets(topics.admin(), topic, partitions);
            await(
                    Duration.ofSeconds(40),
                    "every row and every end offset committed",
                    () -> capture.script().rows() >= n
                            && committed(topics.admin(), group).equals(end));
        } finally {
            capture.script().release(0);
            runtime.shutdown();
            runtime.awaitTermination(Duration.ofSeconds(30));
        }
        assertThat(rebalanceEvents(registry, "revoked") + rebalanceEvents(registry, "lost"))
                .isZero();
        assertThat(rebalanceEvents(registry, "assigned")).isEqualTo(partitions);
        Tally tally = new Tally().add(capture.script());
        assertThat(tally.firstMissing(n)).isEqualTo(-1);
        assertThat(tally.duplicates()).isZero();
    }

    private static void sleep(long ms) {
        try {
            Thread.sleep(ms);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException(e);
        }
    }
}
