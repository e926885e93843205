package dev.etl.it.kafka;

import static dev.etl.it.kafka.KafkaItSupport.pipeline;
import static dev.etl.it.kafka.KafkaItSupport.pipelineConfig;
import static dev.etl.it.kafka.KafkaItSupport.produce;
import static dev.etl.it.kafka.KafkaItSupport.sourceConfig;
import static dev.etl.it.support.ConsumerGroupOffsets.committed;
import static dev.etl.it.support.ConsumerGroupOffsets.endOffsets;
import static dev.etl.it.support.Eventually.await;
import static org.assertj.core.api.Assertions.assertThat;

import dev.etl.it.kafka.KafkaItSupport.Tally;
import dev.etl.kafka.KafkaSource;
import dev.etl.pipeline.PipelineRuntime;
import dev.etl.pipeline.PipelineState;
import dev.etl.pipeline.RunReport;
import dev.etl.test.capture.CaptureSink;
import dev.etl.test.infra.InfraServer;
import dev.etl.test.infra.KafkaTestTopics;
import dev.etl.test.infra.LocalInfra;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.TreeSet;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import org.apache.kafka.clients.admin.ConsumerGroupDescription;
import org.apache.kafka.clients.admin.MemberDescription;
import org.apache.kafka.common.TopicPartition;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * Static membership ({@code group.instance.id}) with two lanes against the real broker: each lane
 * joins as its own static member ({@code <id>-lane-<i>}), both get partitions, nobody is fenced,
 * and everything is consumed and committed. With one id shared by the lanes, the broker fences one
 * of them ({@code FencedInstanceIdException}) and the pipeline fails.
 */
@LocalInfra(InfraServer.KAFKA)
class KafkaStaticMembershipIT {

    @Test
    @Timeout(value = 120, unit = TimeUnit.SECONDS)
    void twoLanesWithStaticMembershipAreTwoMembersAndConsumeEverything(KafkaTestTopics topics) throws Exception {
        int partitions = 4;
        int n = 20_000;
        String topic = topics.create("kafka-static", partitions);
        String group = "it-" + topic;
        String instance = "static-" + topic;
        produce(topics.bootstrapServers(), topic, partitions, 0, n);
        Map<TopicPartition, Long> end = endOffsets(topics.admin(), topic, partitions);

        SimpleMeterRegistry registry = new SimpleMeterRegistry();
        CaptureSink capture = CaptureSink.create("capture", 1);
        KafkaSource source = new KafkaSource(sourceConfig(topics.bootstrapServers(), group, topic, registry, "static")
                .property("group.instance.id", instance)
                .property("max.poll.records", 500)
                .build());
        PipelineRuntime runtime =
                pipeline(pipelineConfig("static", 2).build(), source, capture.definition(), (v, m, s) -> 0, registry);
        runtime.start();
        RunReport report;
        ConsumerGroupDescription description;
        try {
            await(Duration.ofSeconds(60), "committed offsets to equal the end offsets " + end, () -> {
                assertThat(runtime.state())
                        .as("pipeline state (failure: %s)", runtime.failure())
                        .isNotEqualTo(PipelineState.FAILED);
                return committed(topics.admin(), group).equals(end);
            });
            // Both lanes own partitions once the group is stable: a lane that joined late (a loaded box) may
            // still be getting its share when the first lane has already committed everything.
            AtomicReference<ConsumerGroupDescription> stable = new AtomicReference<>();
            await(Duration.ofSeconds(30), "both lanes to own partitions", () -> {
                ConsumerGroupDescription d = topics.admin()
                        .describeConsumerGroups(List.of(group))
                        .describedGroups()
                        .get(group)
                        .get(10, TimeUnit.SECONDS);
                stable.set(d);
                return d.members().size() == 2
                        && d.members().stream()
                                .allMatch(m -> !m.assignment().topicPartitions().isEmpty());
            });
            description = stable.get();
            assertThat(runtime.state()).as("no lane was fenced").isEqualTo(PipelineState.RUNNING);
        } finally {
            runtime.shutdown();
            report = runtime.awaitTermination(Duration.ofSeconds(30));
        }
        TreeSet<String> instanceIds = new TreeSet<>();
        int assigned = 0;
        for (MemberDescription member : description.members()) {
            instanceIds.add(member.groupInstanceId().orElse("<dynamic>"));
            assertThat(member.assignment().topicPartitions())
                    .as("partitions of %s", member)
                    .isNotEmpty();
            assigned += member.assignment().topicPartitions().size();
        }
        assertThat(instanceIds).containsExactly(instance + "-lane-0", instance + "-lane-1");
        assertThat(assigned).isEqualTo(partitions);
        assertThat(report).isNotNull();
        assertThat(report.state()).isEqualTo(PipelineState.STOPPED);
        assertThat(report.exitCode()).isZero();
        Tally tally = new Tally().add(capture.script());
        assertThat(tally.firstMissing(n)).as("first value never delivered").isEqualTo(-1);
    }
}
