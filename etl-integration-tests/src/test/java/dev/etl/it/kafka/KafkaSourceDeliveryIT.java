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
import dev.etl.sink.RetryConfig;
import dev.etl.test.capture.CaptureSink;
import dev.etl.test.infra.InfraServer;
import dev.etl.test.infra.KafkaTestTopics;
import dev.etl.test.infra.LocalInfra;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.time.Duration;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.common.TopicPartition;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/** Every record arrives and commits reach the end offsets; a failing shard stalls only its partition. */
@LocalInfra(InfraServer.KAFKA)
class KafkaSourceDeliveryIT {
    private static final Logger log = LoggerFactory.getLogger(KafkaSourceDeliveryIT.class);

    @Test
    @Timeout(value = 120, unit = TimeUnit.SECONDS)
    void aMillionRecordsOverEightPartitionsAndTwoLanesAllArriveAndCommitToTheEnd(KafkaTestTopics topics)
            throws Exception {
        runToTheEnd(topics, "kafka-1m", 8, 1_000_000, Map.of());
    }

    @Test
    @Timeout(value = 90, unit = TimeUnit.SECONDS)
    void theKip848ConsumerProtocolDeliversEverythingAndCommitsToTheEnd(KafkaTestTopics topics) throws Exception {
        runToTheEnd(topics, "kafka-kip848", 8, 100_000, Map.of("group.protocol", "consumer"));
    }

    private static void runToTheEnd(
            KafkaTestTopics topics, String prefix, int partitions, int n, Map<String, Object> extra) throws Exception {
        String topic = topics.create(prefix, partitions);
        String group = "it-" + topic;
        long t0 = System.nanoTime();
        produce(topics.bootstrapServers(), topic, partitions, 0, n);
        long produced = System.nanoTime();
        SimpleMeterRegistry registry = new SimpleMeterRegistry();
        CaptureSink capture = CaptureSink.create("capture", 1);
        KafkaSource source = new KafkaSource(sourceConfig(topics.bootstrapServers(), group, topic, registry, prefix)
                .properties(extra)
                .build());
        PipelineRuntime runtime = pipeline(
                pipelineConfig(prefix, 2).build(), source, capture.definition(), (value, meta, shards) -> 0, registry);
        runtime.start();
        Map<TopicPartition, Long> end = endOffsets(topics.admin(), topic, partitions);
        RunReport report;
        try {
            await(
                    Duration.ofSeconds(60),
                    "all " + n + " rows (have " + capture.script().rows() + ")",
                    () -> capture.script().rows() >= n);
            long consumed = System.nanoTime();
            await(
                    Duration.ofSeconds(20),
                    "committed offsets to equal the end offsets " + end,
                    () -> committed(topics.admin(), group).equals(end));
            log.info(
                    "{}: produced {} in {} ms, consumed in {} ms",
                    prefix,
                    n,
                    TimeUnit.NANOSECONDS.toMillis(produced - t0),
                    TimeUnit.NANOSECONDS.toMillis(consumed - produced));
        } finally {
            runtime.shutdown();
            report = runtime.awaitTermination(Duration.ofSeconds(30));
        }
        assertThat(report).isNotNull();
        assertThat(report.state()).isEqualTo(PipelineState.STOPPED);
        assertThat(report.exitCode()).isZero();
        Tally tally = new Tally().add(capture.script());
        assertThat(tally.firstMissing(n)).as("first missing value").isEqualTo(-1);
        assertThat(tally.seen.cardinality()).isEqualTo(n);
        assertThat(committed(topics.admin(), group)).isEqualTo(end);
        assertThat(registry.get("etl.source.bytes").counters().stream()
                        .mapToDouble(c -> c.count())
                        .sum())
                .isGreaterThan(n);
    }

    @Test
    @Timeout(value = 90, unit = TimeUnit.SECONDS)
    void aPartitionWhoseShardFailsStallsAloneWhileTheOthersCommitToTheEnd(KafkaTestTopics topics) throws Exception {
        int partitions = 4;
        int n = 40_000;
        int stalled = 2;
        String topic = topics.create("kafka-stall", partitions);
        String group = "it-" + topic;
        produce(topics.bootstrapServers(), topic, partitions, 0, n);
        SimpleMeterRegistry registry = new SimpleMeterRegistry();
        CaptureSink capture = CaptureSink.create(
                "capture",
                2,
                CaptureSink.TEST_BATCHING,
                new RetryConfig(1, Duration.ofMillis(5), Duration.ofMillis(5), 1.0, 0.0),
                64,
                ErrorPolicy.SKIP);
        capture.script().failNextPermanently(1, Integer.MAX_VALUE);
        KafkaSource source = new KafkaSource(sourceConfig(topics.bootstrapServers(), group, topic, registry, "stall")
                .property("max.poll.records", 500)
                .build());
        int stalledId = source.partitionIds().idOf(new TopicPartition(topic, stalled));
        PipelineRuntime runtime = pipeline(
                pipelineConfig("stall", 2).build(),
                source,
                capture.definition(),
                (value, meta, shards) -> meta.partition() == stalledId ? 1 : 0,
                registry);
        runtime.start();
        Map<TopicPartition, Long> end = endOffsets(topics.admin(), topic, partitions);
        try {
            await(Duration.ofSeconds(60), "every healthy partition to commit its end offset", () -> {
                Map<TopicPartition, Long> committed = committed(topics.admin(), group);
                for (int p = 0; p < partitions; p++) {
                    TopicPartition tp = new TopicPartition(topic, p);
                    if (p != stalled && !end.get(tp).equals(committed.get(tp))) {
                        return false;
                    }
                }
                return true;
            });
            Thread.sleep(1_000); // several more commit intervals: the stalled partition must not move
            Map<TopicPartition, Long> committed = committed(topics.admin(), group);
            assertThat(committed.get(new TopicPartition(topic, stalled)))
                    .as("stalled partition's commit")
                    .isNull();
            assertThat(runtime.state()).isEqualTo(PipelineState.RUNNING);
            assertThat(capture.script().attempts(1)).isPositive();
        } finally {
            runtime.shutdown();
            runtime.awaitTermination(Duration.ofSeconds(30));
        }
        Tally tally = new Tally().add(capture.script());
        for (int i = 0; i < n; i++) {
            assertThat(tally.seen.get(i)).as("value %d seen", i).isEqualTo(i % partitions != stalled);
        }
        assertThat(committed(topics.admin(), group)).doesNotContainKey(new TopicPartition(topic, stalled));
    }
}
