package dev.etl.json;

import static org.assertj.core.api.Assertions.assertThat;

import dev.etl.error.DeserializationException;
import dev.etl.error.ErrorPolicy;
import dev.etl.json.Calls.Order;
import dev.etl.ops.Chains;
import dev.etl.pipeline.Pipeline;
import dev.etl.pipeline.PipelineConfig;
import dev.etl.pipeline.PipelineRuntime;
import dev.etl.pipeline.PipelineState;
import dev.etl.pipeline.RunReport;
import dev.etl.sink.DeadLetterEncoder;
import dev.etl.sink.DeadLetterRecord;
import dev.etl.test.capture.CaptureSink;
import dev.etl.test.capture.TestEncoders;
import dev.etl.test.memory.MemorySource;
import dev.etl.test.memory.MemorySourceHandle;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * Partly bad NDJSON and array messages through a real pipeline (memory source, lane, chain head,
 * capture sinks), under each policy of the {@code deserialize} stage: the good documents of a
 * partly bad message are delivered under SKIP and DEAD_LETTER, the message is reported (counted,
 * dead-lettered) once, and FAIL fails the pipeline without committing the message.
 */
class JsonErrorPolicyTest {
    private static final Duration WAIT = Duration.ofSeconds(20);
    private static final String GOOD = "{\"id\":1,\"sku\":\"a\",\"qty\":1}\n{\"id\":2,\"sku\":\"b\",\"qty\":2}";
    private static final String PARTLY_BAD_LINES =
            "{\"id\":3,\"sku\":\"c\",\"qty\":3}\n{\"id\":4,\"sku\":\"d\",\"qty\":\n"
                    + "{\"id\":5,\"sku\":\"e\",\"qty\":5}\n{\"id\":6,\"sku\":\"f\",\"qty\":\"six\"}\n{\"id\":7,\"sku\":\"g\",\"qty\":7}";
    private static final String PARTLY_BAD_ARRAY =
            "[{\"id\":3,\"sku\":\"c\",\"qty\":3}, {\"id\":4,\"sku\":[4],\"qty\":4},"
                    + " {\"id\":5,\"sku\":\"e\",\"qty\":5}, null, {\"id\":7,\"sku\":\"g\",\"qty\":7}]";

    private final MemorySource source = MemorySource.create();
    private final MemorySourceHandle handle = source.handle();
    private final SimpleMeterRegistry registry = new SimpleMeterRegistry();
    private final CaptureSink sink = CaptureSink.create("capture", 1);
    private final CaptureSink deadLetter = CaptureSink.create("dead-letter", 1);
    private PipelineRuntime runtime;

    @AfterEach
    void stop() throws InterruptedException {
        if (runtime != null) {
            runtime.shutdown();
            runtime.awaitTermination(WAIT);
        }
    }

    private void start(JsonDeserializer.Builder<Order> json, ErrorPolicy policy) {
        PipelineConfig config = PipelineConfig.builder("json-" + policy.name().toLowerCase())
                .checkpointInterval(Duration.ofMillis(50))
                .pollTimeout(Duration.ofMillis(20))
                .drainTimeout(Duration.ofSeconds(5))
                .minPause(Duration.ofMillis(10))
                .build();
        runtime = Pipeline.builder(config)
                .source(source)
                .sink(sink.definition())
                .deadLetter(deadLetter.definition())
                .meterRegistry(registry)
                .chains(ctx -> Chains.from(ctx, json.build(), policy)
                        .map("to-id", (Order o) -> Long.toString(o.id()))
                        .sink(TestEncoders.string(), (value, meta, shards) -> 0))
                .build();
        runtime.start();
        handle.assign(0, 0);
    }

    /** Pushes a good message, {@code partlyBad}, and a good one; returns the partly bad one's offset. */
    private long pushAround(String partlyBad, String good) {
        handle.push(0, null, utf8(good));
        long bad = handle.push(0, "k".getBytes(StandardCharsets.UTF_8), utf8(partlyBad));
        handle.push(0, null, utf8(good));
        return bad;
    }

    private List<String> delivered() {
        return sink.script().writes().stream()
                .flatMap(w -> TestEncoders.decodeStrings(w.bytes()).stream())
                .toList();
    }

    private List<DeadLetterRecord> deadLetters() {
        return deadLetter.script().writes().stream()
                .flatMap(w -> DeadLetterEncoder.decode(w.bytes(), w.bytes().length).stream())
                .toList();
    }

    private double skips() {
        return registry.find("etl.errors").tag("stage", "deserialize").counters().stream()
                .mapToDouble(c -> c.count())
                .sum();
    }

    @Test
    void underSkipEveryGoodLineOfAPartlyBadNdjsonMessageIsDeliveredAndTheMessageCountsOneSkip() throws Exception {
        start(JsonDeserializer.forType(Order.class).ndjson(), ErrorPolicy.SKIP);
        pushAround(PARTLY_BAD_LINES, GOOD);

        assertThat(handle.awaitCommitted(0, 3, WAIT)).isTrue();
        assertThat(delivered()).containsExactly("1", "2", "3", "5", "7", "1", "2");
        assertThat(skips()).isEqualTo(1.0);
        assertThat(deadLetters()).isEmpty();
        assertThat(runtime.state()).isEqualTo(PipelineState.RUNNING);
    }

    @Test
    void underSkipEveryGoodElementOfAPartlyBadArrayIsDeliveredAndTheMessageCountsOneSkip() throws Exception {
        start(JsonDeserializer.forType(Order.class).array(), ErrorPolicy.SKIP);
        pushAround(PARTLY_BAD_ARRAY, "[" + GOOD.replace('\n', ',') + "]");

        assertThat(handle.awaitCommitted(0, 3, WAIT)).isTrue();
        assertThat(delivered()).containsExactly("1", "2", "3", "5", "7", "1", "2");
        assertThat(skips()).isEqualTo(1.0);
    }

    @Test
    void underDeadLetterTheGoodLinesAreDeliveredAndTheWholeOriginalMessageIsDeadLetteredOnce() throws Exception {
        start(JsonDeserializer.forType(Order.class).ndjson(), ErrorPolicy.DEAD_LETTER);
        long bad = pushAround(PARTLY_BAD_LINES, GOOD);

        assertThat(handle.awaitCommitted(0, 3, WAIT)).isTrue();
        assertThat(delivered()).containsExactly("1", "2", "3", "5", "7", "1", "2");
        assertThat(deadLetters()).singleElement().satisfies(dead -> {
            assertThat(dead.value()).isEqualTo(utf8(PARTLY_BAD_LINES));
            assertThat(dead.key()).isEqualTo("k".getBytes(StandardCharsets.UTF_8));
            assertThat(dead.headers())
                    .containsEntry(DeadLetterEncoder.HEADER_SOURCE_OFFSET, Long.toString(bad))
                    .containsEntry(DeadLetterEncoder.HEADER_STAGE, "deserialize")
                    .containsEntry(DeadLetterEncoder.HEADER_ERROR_CLASS, "deserialization");
            assertThat(dead.header(DeadLetterEncoder.HEADER_ERROR_MESSAGE))
                    .contains("NDJSON message: 3 emitted, 2 failed: line 2: malformed JSON")
                    .contains("; line 4: cannot bind to " + Order.class.getName());
        });
        assertThat(registry.get("etl.dead.letters")
                        .tag("stage", "deserialize")
                        .counter()
                        .count())
                .isEqualTo(1.0);
    }

    @Test
    void underDeadLetterAPartlyBadArrayIsDeadLetteredOnceAfterItsGoodElementsWereDelivered() throws Exception {
        start(JsonDeserializer.forType(Order.class).array(), ErrorPolicy.DEAD_LETTER);
        pushAround(PARTLY_BAD_ARRAY, "[" + GOOD.replace('\n', ',') + "]");

        assertThat(handle.awaitCommitted(0, 3, WAIT)).isTrue();
        assertThat(delivered()).containsExactly("1", "2", "3", "5", "7", "1", "2");
        assertThat(deadLetters()).singleElement().satisfies(dead -> {
            assertThat(dead.value()).isEqualTo(utf8(PARTLY_BAD_ARRAY));
            assertThat(dead.header(DeadLetterEncoder.HEADER_ERROR_MESSAGE))
                    .contains("JSON array: 3 emitted, 2 failed: element 1: cannot bind to ")
                    .contains("; element 3: JSON null where ");
        });
    }

    @Test
    void underFailAPartlyBadMessageFailsThePipelineAndItsOffsetIsNeverCommitted() throws Exception {
        start(JsonDeserializer.forType(Order.class).ndjson(), ErrorPolicy.FAIL);
        long bad = pushAround(PARTLY_BAD_LINES, GOOD);

        RunReport report = runtime.awaitTermination(WAIT);

        assertThat(report.state()).isEqualTo(PipelineState.FAILED);
        assertThat(report.failure())
                .hasMessageContaining("stage 'deserialize' failed at memory-0@" + bad)
                .hasMessageContaining("NDJSON message: 3 emitted, 2 failed: line 2: malformed JSON")
                .hasCauseInstanceOf(DeserializationException.class);
        assertThat(handle.lastCommitted(0)).isLessThanOrEqualTo(bad);
        assertThat(deadLetters()).isEmpty();
    }

    private static byte[] utf8(String s) {
        return s.getBytes(StandardCharsets.UTF_8);
    }
}
