package dev.etl.it.kafka;

import dev.etl.deser.Deserializer;
import dev.etl.it.support.OrderedProducer;
import dev.etl.kafka.KafkaSource;
import dev.etl.kafka.KafkaSourceConfig;
import dev.etl.ops.Chains;
import dev.etl.pipeline.Pipeline;
import dev.etl.pipeline.PipelineConfig;
import dev.etl.pipeline.PipelineRuntime;
import dev.etl.record.Payload;
import dev.etl.sink.Router;
import dev.etl.sink.SinkDefinition;
import dev.etl.test.capture.CaptureScript;
import dev.etl.test.capture.TestEncoders;
import io.micrometer.core.instrument.MeterRegistry;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.BitSet;

/**
 * Shared pieces of the Kafka source ITs: values are decimal indexes {@code 0..n-1}, record {@code i}
 * goes to partition {@code i % partitions}, so a {@link BitSet} tells what arrived.
 */
final class KafkaItSupport {
    private KafkaItSupport() {}

    /**
     * Produces values {@code from..to-1} (decimal strings, key = value) to {@code i % partitions} with an
     * {@link OrderedProducer}, and fails if any send failed.
     */
    static void produce(String bootstrap, String topic, int partitions, int from, int to) {
        try (OrderedProducer producer = new OrderedProducer(bootstrap, topic, partitions)) {
            for (int i = from; i < to; i++) {
                byte[] bytes = Integer.toString(i).getBytes(StandardCharsets.US_ASCII);
                producer.send(i % partitions, bytes, bytes);
            }
            producer.flush();
        }
    }

    /** Source properties every IT uses. */
    static KafkaSourceConfig.Builder sourceConfig(
            String bootstrap, String group, String topic, MeterRegistry registry, String pipeline) {
        return KafkaSourceConfig.builder()
                .property("bootstrap.servers", bootstrap)
                .property("group.id", group)
                .property("auto.offset.reset", "earliest")
                .property("max.poll.records", 2000)
                .topics(topic)
                .pipeline(pipeline)
                .meterRegistry(registry);
    }

    static PipelineConfig.Builder pipelineConfig(String name, int lanes) {
        return PipelineConfig.builder(name)
                .lanes(lanes)
                .checkpointInterval(Duration.ofMillis(200))
                .drainTimeout(Duration.ofSeconds(10))
                .pollTimeout(Duration.ofMillis(50));
    }

    /** Kafka source → payload pass-through chain → {@code sink}, routed by {@code router}. */
    static PipelineRuntime pipeline(
            PipelineConfig config,
            KafkaSource source,
            SinkDefinition sink,
            Router<Payload> router,
            MeterRegistry registry) {
        return Pipeline.builder(config)
                .source(source)
                .sink(sink)
                .chains(ctx -> Chains.from(ctx, Deserializer.payload()).sink(TestEncoders.payload(), router))
                .meterRegistry(registry)
                .build();
    }

    /** What a set of capture writes contained: distinct values and total rows. */
    static final class Tally {
        final BitSet seen = new BitSet();
        long rows;

        Tally add(CaptureScript script) {
            for (CaptureScript.Write write : script.writes()) {
                for (String value : TestEncoders.decodeStrings(write.bytes())) {
                    seen.set(Integer.parseInt(value));
                    rows++;
                }
            }
            return this;
        }

        long duplicates() {
            return rows - seen.cardinality();
        }

        /** First value in {@code [0, n)} never seen, or -1. */
        int firstMissing(int n) {
            int missing = seen.nextClearBit(0);
            return missing < n ? missing : -1;
        }
    }
}
