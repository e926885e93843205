package dev.etl.test.pipeline;

import static dev.etl.test.pipeline.PipelineFixture.WAIT;
import static dev.etl.test.pipeline.PipelineFixture.byPartition;
import static dev.etl.test.pipeline.PipelineFixture.eventually;
import static dev.etl.test.pipeline.PipelineFixture.fastConfig;
import static dev.etl.test.pipeline.PipelineFixture.strings;
import static dev.etl.test.pipeline.PipelineFixture.utf8;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.etl.error.ErrorPolicy;
import dev.etl.ops.ChainFactory;
import dev.etl.ops.Chains;
import dev.etl.pipeline.Pipeline;
import dev.etl.pipeline.PipelineConfig;
import dev.etl.pipeline.PipelineRuntime;
import dev.etl.pipeline.PipelineState;
import dev.etl.pipeline.RunReport;
import dev.etl.sink.DeadLetterEncoder;
import dev.etl.sink.DeadLetterRecord;
import dev.etl.sink.RetryConfig;
import dev.etl.sink.RowEncoder;
import dev.etl.sink.SinkDefinition;
import dev.etl.test.capture.CaptureSink;
import dev.etl.test.capture.TestEncoders;
import dev.etl.test.memory.MemorySource;
import dev.etl.test.memory.MemorySourceHandle;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * {@code DEAD_LETTER}: the failing record's original bytes go to the dead-letter sink with their
 * context, and its offset commits only once that write is durable.
 */
class DeadLetterTest {
    private static final byte[] BAD_VALUE = {'b', 'a', 'd', 0, (byte) 0xFF, (byte) 0xFE, 7};
    private static final byte[] BAD_KEY = {'k', 0, (byte) 0x80};

    private final MemorySource source = MemorySource.create();
    private final MemorySourceHandle handle = source.handle();
    private final SimpleMeterRegistry registry = new SimpleMeterRegistry();
    private final CaptureSink sink = CaptureSink.create("capture", 1);
    private PipelineRuntime runtime;

    @AfterEach
    void stop() throws InterruptedException {
        if (runtime != null) {
            runtime.shutdown();
            runtime.awaitTermination(WAIT);
        }
    }

    private PipelineRuntime build(PipelineConfig config, CaptureSink deadLetter, ChainFactory chains) {
        Pipeline.Builder builder = Pipeline.builder(config)
                .source(source)
                .sink(sink.definition())
                .chains(chains)
                .meterRegistry(registry);
        if (deadLetter != null) {
            builder.deadLetter(deadLetter.definition());
        }
        return builder.build();
    }

    private static List<String> mainRows(CaptureSink sink) {
        return sink.script().writes().stream()
                .flatMap(w -> TestEncoders.decodeStrings(w.bytes()).stream())
                .toList();
    }

    private static List<DeadLetterRecord> deadLetters(CaptureSink deadLetter) {
        return deadLetter.script().writes().stream()
                .flatMap(w -> DeadLetterEncoder.decode(w.bytes(), w.bytes().length).stream())
                .toList();
    }

    @Test
    void badPayloadGoesToTheDeadLetterSinkWithItsOriginalBytesAndContextAndItsOffsetCommits() throws Exception {
        CaptureSink dlq = CaptureSink.create("dead-letter", 1);
        runtime = build(
                fastConfig("dlq-deser").build(),
                dlq,
                ctx -> Chains.from(ctx, strings(), ErrorPolicy.DEAD_LETTER).sink(TestEncoders.string(), byPartition()));
        runtime.start();
        handle.assign(0, 0);
        handle.push(0, null, utf8("a"));
        long bad = handle.push(0, BAD_KEY, BAD_VALUE, 1_700_000_000_123L);
        handle.push(0, null, utf8("b"));

        assertThat(handle.awaitCommitted(0, 3, WAIT)).isTrue();
        assertThat(mainRows(sink)).containsExactly("a", "b");
        assertThat(deadLetters(dlq)).singleElement().satisfies(dead -> {
            assertThat(dead.key()).isEqualTo(BAD_KEY);
            assertThat(dead.value()).isEqualTo(BAD_VALUE);
            assertThat(dead.timestampMs()).isEqualTo(1_700_000_000_123L);
            assertThat(dead.headers())
                    .containsEntry(DeadLetterEncoder.HEADER_SOURCE_TOPIC, "default")
                    .containsEntry(DeadLetterEncoder.HEADER_SOURCE_PARTITION, "memory-0")
                    .containsEntry(DeadLetterEncoder.HEADER_SOURCE_OFFSET, Long.toString(bad))
                    .containsEntry(DeadLetterEncoder.HEADER_SOURCE_TIMESTAMP, "1700000000123")
                    .containsEntry(DeadLetterEncoder.HEADER_STAGE, "deserialize")
                    .containsEntry(DeadLetterEncoder.HEADER_ERROR_CLASS, "deserialization")
                    .containsEntry(DeadLetterEncoder.HEADER_EXCEPTION, IllegalArgumentException.class.getName());
            assertThat(dead.header(DeadLetterEncoder.HEADER_ERROR_MESSAGE))
                    .contains("memory-0@" + bad)
                    .contains("is not a valid record");
        });
        assertThat(registry.get("etl.dead.letters")
                        .tag("stage", "deserialize")
                        .tag("error_type", "deserialization")
                        .counter()
                        .count())
                .isEqualTo(1.0);
        assertThat(registry.get("etl.errors")
                        .tag("stage", "deserialize")
                        .counter()
                        .count())
                .isEqualTo(1.0);
        assertThat(registry.get("etl.sink.rows")
                        .tag("sink", "dead-letter")
                        .counter()
                        .count())
                .isEqualTo(1.0);
        assertThat(runtime.state()).isEqualTo(PipelineState.RUNNING);
    }

    @Test
    void aBlockedDeadLetterSinkHoldsTheBadRecordsOffsetUntilItIsWritten() throws Exception {
        CaptureSink dlq = CaptureSink.create("dead-letter", 1);
        dlq.script().block(0);
        runtime = build(
                fastConfig("dlq-blocked").build(),
                dlq,
                ctx -> Chains.from(ctx, strings(), ErrorPolicy.DEAD_LETTER).sink(TestEncoders.string(), byPartition()));
        runtime.start();
        handle.assign(0, 0);
        handle.push(0, null, utf8("a"));
        assertThat(handle.awaitCommitted(0, 1, WAIT)).isTrue();
        long bad = handle.push(0, BAD_KEY, BAD_VALUE);
        handle.push(0, null, utf8("b"));

        assertThat(eventually(() -> mainRows(sink).contains("b"), WAIT)).isTrue();
        Thread.sleep(300); // several commit intervals
        assertThat(handle.lastCommitted(0)).isLessThanOrEqualTo(bad);
        assertThat(deadLetters(dlq)).isEmpty();

        dlq.script().release(0);
        assertThat(handle.awaitCommitted(0, 3, WAIT)).isTrue();
        assertThat(deadLetters(dlq)).extracting(DeadLetterRecord::value).containsExactly(BAD_VALUE);
    }

    @Test
    void aFailingDeadLetterWriteFailsTheBatchAndStallsItsPartition() throws Exception {
        CaptureSink dlq = CaptureSink.create(
                "dead-letter",
                1,
                CaptureSink.TEST_BATCHING,
                new RetryConfig(2, Duration.ofMillis(1), Duration.ofMillis(2), 2.0, 0.0),
                64,
                ErrorPolicy.FAIL);
        dlq.script().failNext(0, Integer.MAX_VALUE / 2);
        runtime = build(
                fastConfig("dlq-failing").build(),
                dlq,
                ctx -> Chains.from(ctx, strings(), ErrorPolicy.DEAD_LETTER).sink(TestEncoders.string(), byPartition()));
        runtime.start();
        handle.assign(0, 0, 1);
        handle.push(0, null, utf8("a"));
        assertThat(handle.awaitCommitted(0, 1, WAIT)).isTrue();
        long bad = handle.push(0, null, BAD_VALUE);
        handle.push(0, null, utf8("b"));
        handle.push(1, null, utf8("other"));

        assertThat(handle.awaitCommitted(1, 1, WAIT)).isTrue();
        assertThat(eventually(() -> dlq.script().attempts(0) >= 2, WAIT)).isTrue();
        assertThat(eventually(() -> mainRows(sink).contains("b"), WAIT)).isTrue();
        Thread.sleep(300);
        assertThat(handle.lastCommitted(0)).isLessThanOrEqualTo(bad);
        assertThat(runtime.state()).isEqualTo(PipelineState.RUNNING);
    }

    @Test
    void tryMapFailureConfiguredAsDeadLetterOverridesTheDeclaredPolicy() throws Exception {
        CaptureSink dlq = CaptureSink.create("dead-letter", 1);
        PipelineConfig config = fastConfig("dlq-trymap")
                .stagePolicies(Map.of("parse", ErrorPolicy.DEAD_LETTER))
                .build();
        runtime = build(
                config,
                dlq,
                ctx -> Chains.from(ctx, strings())
                        .tryMap(
                                "parse",
                                s -> {
                                    if (s.startsWith("x")) {
                                        throw new java.io.IOException("not a number: " + s);
                                    }
                                    return Integer.parseInt(s);
                                },
                                ErrorPolicy.FAIL)
                        .map("to-string", String::valueOf)
                        .sink(TestEncoders.string(), byPartition()));
        runtime.start();
        handle.assign(0, 0);
        handle.push(0, null, utf8("1"));
        long bad = handle.push(0, utf8("key-x"), utf8("x2"));
        handle.push(0, null, utf8("3"));

        assertThat(handle.awaitCommitted(0, 3, WAIT)).isTrue();
        assertThat(mainRows(sink)).containsExactly("1", "3");
        assertThat(deadLetters(dlq)).singleElement().satisfies(dead -> {
            assertThat(dead.key()).isEqualTo(utf8("key-x"));
            assertThat(dead.value()).isEqualTo(utf8("x2"));
            assertThat(dead.headers())
                    .containsEntry(DeadLetterEncoder.HEADER_STAGE, "parse")
                    .containsEntry(DeadLetterEncoder.HEADER_ERROR_CLASS, "operator")
                    .containsEntry(DeadLetterEncoder.HEADER_SOURCE_OFFSET, Long.toString(bad))
                    .containsEntry(DeadLetterEncoder.HEADER_EXCEPTION, java.io.IOException.class.getName());
            assertThat(dead.header(DeadLetterEncoder.HEADER_ERROR_MESSAGE)).contains("not a number: x2");
        });
        assertThat(registry.get("etl.dead.letters")
                        .tag("stage", "parse")
                        .tag("error_type", "operator")
                        .counter()
                        .count())
                .isEqualTo(1.0);
    }

    @Test
    void encodeFailureGoesToTheDeadLetterSinkAndTheRowIsCutFromTheMainChunk() throws Exception {
        CaptureSink dlq = CaptureSink.create("dead-letter", 1);
        RowEncoder<String> encoder = (value, meta, out) -> {
            out.writeString(value); // partly written, then the row fails: it must be cut back out
            if (value.contains("!")) {
                throw new ArithmeticException("value out of range: " + value);
            }
        };
        PipelineConfig config = fastConfig("dlq-encode")
                .classPolicies(Map.of(dev.etl.error.ErrorClass.ENCODE, ErrorPolicy.DEAD_LETTER))
                .build();
        runtime = build(
                config,
                dlq,
                ctx -> Chains.from(ctx, strings())
                        .map("upper", String::toUpperCase)
                        .sink(encoder, byPartition()));
        runtime.start();
        handle.assign(0, 0);
        handle.push(0, null, utf8("a"));
        handle.push(0, null, utf8("b!"));
        handle.push(0, null, utf8("c"));

        assertThat(handle.awaitCommitted(0, 3, WAIT)).isTrue();
        assertThat(mainRows(sink)).containsExactly("A", "C");
        assertThat(deadLetters(dlq)).singleElement().satisfies(dead -> {
            assertThat(dead.value()).isEqualTo(utf8("b!")); // the source bytes, not the mapped value
            assertThat(dead.key()).isNull();
            assertThat(dead.headers())
                    .containsEntry(DeadLetterEncoder.HEADER_STAGE, "sink-capture")
                    .containsEntry(DeadLetterEncoder.HEADER_ERROR_CLASS, "encode")
                    .containsEntry(DeadLetterEncoder.HEADER_EXCEPTION, ArithmeticException.class.getName());
        });
    }

    @Test
    void configuredDeadLetterPolicyWithoutADeadLetterSinkFailsTheBuild() {
        PipelineConfig config = fastConfig("no-dlq")
                .stagePolicies(Map.of("parse", ErrorPolicy.DEAD_LETTER))
                .build();
        assertThatThrownBy(() -> build(config, null, PipelineFixture.passThrough()))
                .isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("stage 'parse'")
                .hasMessageContaining("DEAD_LETTER")
                .hasMessageContaining("no dead-letter sink")
                .hasMessageContaining("etl.errors.dead-letter.topic");
    }

    @Test
    void declaredDeadLetterPolicyWithoutADeadLetterSinkFailsThePipelineAtStart() throws Exception {
        runtime = build(
                fastConfig("no-dlq-declared").build(),
                null,
                ctx -> Chains.from(ctx, strings(), ErrorPolicy.DEAD_LETTER).sink(TestEncoders.string(), byPartition()));
        runtime.start();
        RunReport report = runtime.awaitTermination(WAIT);
        assertThat(report).isNotNull();
        assertThat(report.state()).isEqualTo(PipelineState.FAILED);
        assertThat(report.failure())
                .hasMessageContaining("stage 'deserialize'")
                .hasMessageContaining("no dead-letter sink");
    }

    @Test
    void deadLetterSinkMustHaveOneShardAndItsOwnName() {
        assertThatThrownBy(() -> Pipeline.builder(fastConfig("shards").build())
                        .deadLetter(CaptureSink.create("dead-letter", 2).definition()))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("exactly one shard");
        assertThatThrownBy(() -> build(
                        fastConfig("names").build(), CaptureSink.create("capture", 1), PipelineFixture.passThrough()))
                .isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("both named 'capture'");
        assertThatThrownBy(() -> SinkDefinition.builder("s", 1, s -> null)
                        .permanentFailure(ErrorPolicy.DEAD_LETTER)
                        .build())
                .isInstanceOf(IllegalArgumentException.class);
    }
}
