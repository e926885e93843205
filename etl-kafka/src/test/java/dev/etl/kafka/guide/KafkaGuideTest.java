package dev.etl.kafka.guide;

import static org.assertj.core.api.Assertions.assertThat;

import dev.etl.deser.Deserializer;
import dev.etl.error.ErrorPolicy;
import dev.etl.kafka.KafkaDeadLetterWriter;
import dev.etl.kafka.KafkaSource;
import dev.etl.kafka.KafkaSourceConfig;
import dev.etl.ops.Chains;
import dev.etl.pipeline.Pipeline;
import dev.etl.pipeline.PipelineConfig;
import dev.etl.pipeline.PipelineRuntime;
import dev.etl.sink.Router;
import dev.etl.sink.SinkDefinition;
import io.micrometer.core.instrument.MeterRegistry;
import java.time.Duration;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * The code of {@code docs/connectors/kafka.md} (its snippets are these regions), compiled: both build clients
 * for the brokers they name; the integration tests run the same calls against the local Kafka.
 */
class KafkaGuideTest {

    static KafkaSource source(MeterRegistry meterRegistry) {
        // tag::source[]
        KafkaSource source = new KafkaSource(KafkaSourceConfig.builder()
                .properties(Map.of(
                        "bootstrap.servers", "broker-1:9092,broker-2:9092",
                        "group.id", "orders-etl",
                        "auto.offset.reset", "earliest"))
                .topics("orders", "refunds") // or .topicPattern(Pattern.compile("orders-.*"))
                .pipeline("orders") // the `pipeline` tag of the source's metrics
                .meterRegistry(meterRegistry)
                .build()); // throws KafkaConfigException naming a refused key
        // end::source[]
        return source;
    }

    static <T> PipelineRuntime deadLetter(
            PipelineConfig config,
            KafkaSource source,
            SinkDefinition clickhouse,
            Deserializer<T> deserializer,
            Router<? super T> router) {
        // tag::dead-letter[]
        PipelineRuntime runtime = Pipeline.builder(config)
                .source(source)
                .sink(clickhouse)
                .deadLetter(KafkaDeadLetterWriter.sink(
                        "dead-letter",
                        Map.of("bootstrap.servers", "broker-1:9092"),
                        "orders-dlq",
                        Duration.ofSeconds(30)))
                .chains(ctx -> Chains.from(ctx, deserializer, ErrorPolicy.DEAD_LETTER)
                        .sink(router)) // a record its deserializer refuses goes to orders-dlq
                .build();
        // end::dead-letter[]
        return runtime;
    }

    @Test
    void theDeadLetterSinkIsAOneShardSinkNamedAsGiven() {
        SinkDefinition sink = KafkaDeadLetterWriter.sink(
                "dead-letter", Map.of("bootstrap.servers", "broker-1:9092"), "orders-dlq", Duration.ofSeconds(30));

        assertThat(sink.name()).isEqualTo("dead-letter");
    }
}
