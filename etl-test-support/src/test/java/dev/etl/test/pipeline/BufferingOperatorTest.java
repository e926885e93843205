package dev.etl.test.pipeline;

import static dev.etl.test.pipeline.PipelineFixture.WAIT;
import static dev.etl.test.pipeline.PipelineFixture.build;
import static dev.etl.test.pipeline.PipelineFixture.fastConfig;
import static dev.etl.test.pipeline.PipelineFixture.utf8;
import static org.assertj.core.api.Assertions.assertThat;

import dev.etl.ops.ChainFactory;
import dev.etl.ops.Chains;
import dev.etl.ops.HeldAcks;
import dev.etl.ops.OperatorContext;
import dev.etl.ops.StatefulOperator;
import dev.etl.pipeline.Pipeline;
import dev.etl.pipeline.PipelineConfig;
import dev.etl.pipeline.PipelineRuntime;
import dev.etl.pipeline.PipelineState;
import dev.etl.pipeline.RunReport;
import dev.etl.record.Collector;
import dev.etl.test.capture.CaptureSink;
import dev.etl.test.capture.TestEncoders;
import dev.etl.test.memory.MemorySource;
import dev.etl.test.memory.MemorySourceHandle;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.time.Duration;
import java.util.List;
import java.util.stream.Collectors;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * Deferred emission on the real lane (issue 11 item 1): the reproduction, a one-deep buffer
 * (keep the latest value, emit it when the next arrives). Its held value's offset is never committed
 * before the value is written: not while it waits, not at a revoke (flushed first), not at shutdown
 * (flushed before the drain), and not after a failure (not flushed; failed at teardown).
 */
class BufferingOperatorTest {
    private final MemorySource source = MemorySource.create(10);
    private final MemorySourceHandle handle = source.handle();
    private final SimpleMeterRegistry registry = new SimpleMeterRegistry();
    private PipelineRuntime runtime;

    @AfterEach
    void stop() throws InterruptedException {
        if (runtime != null) {
            runtime.shutdown();
            runtime.awaitTermination(WAIT);
        }
    }

    /** Keeps the latest value and emits it when the next one arrives; a value "boom" throws. */
    static final class OneDeepBuffer implements StatefulOperator<String, String> {
        private HeldAcks held;
        private String pending;

        @Override
        public void open(OperatorContext context) {
            held = context.heldAcks();
        }

        @Override
        public void process(String in, Collector<? super String> out) {
            if (in.equals("boom")) {
                throw new IllegalStateException("boom");
            }
            flush(out);
            pending = in;
            held.holdCurrent();
        }

        @Override
        public void flush(Collector<? super String> out) {
            if (pending != null) {
                try (HeldAcks.Emission<String> emission = held.emit(out)) {
                    emission.collect(pending);
                }
                pending = null;
            }
        }
    }

    private static ChainFactory buffered() {
        return ctx -> Chains.from(ctx, PipelineFixture.strings())
                .process("one-deep", new OneDeepBuffer())
                .sink(TestEncoders.string(), PipelineFixture.byPartition());
    }

    private static List<String> rows(CaptureSink sink) {
        return sink.script().writes().stream()
                .flatMap(w -> TestEncoders.decodeStrings(w.bytes()).stream())
                .collect(Collectors.toList());
    }

    /** The pipeline over the capture sink, writing in deterministic blocks or not. */
    private PipelineRuntime pipeline(PipelineConfig config, CaptureSink sink, boolean deterministicBlocks) {
        return Pipeline.builder(config)
                .source(source)
                .sink(sink.definition().toBuilder()
                        .deterministicBlocks(deterministicBlocks)
                        .build())
                .chains(buffered())
                .meterRegistry(registry)
                .build();
    }

    /**
     * Issue 30 item 1: the stall detector tells an operator that keeps data with no timer scheduled (it
     * waits for a record that may never come: on an idle topic nothing can ever commit past it) from a
     * stuck sink, and names the stage.
     */
    @Test
    void dataKeptWithNoTimerScheduledFailsThePipelineNamingTheStage() throws Exception {
        CaptureSink sink = CaptureSink.create("capture", 1);
        runtime = pipeline(
                fastConfig("kept").stalledFailAfter(Duration.ofMillis(300)).build(), sink, true);
        runtime.start();
        handle.assign(0, 0);
        handle.push(0, null, utf8("a"));
        handle.push(0, null, utf8("b")); // "a" is written, "b" stays in the buffer: the topic is idle

        RunReport report = runtime.awaitTermination(WAIT);
        assertThat(report).isNotNull();
        assertThat(report.state()).isEqualTo(PipelineState.FAILED);
        assertThat(report.failure())
                .hasMessageContaining("memory-0")
                .hasMessageContaining("[one-deep]")
                .hasMessageContaining("no timer scheduled");
    }

    /**
     * A window emits on its timer and then its sink is stuck: the stall clock of the emitted data starts
     * at the emission, and a sink that does not write it within {@code stalled-fail-after} still fails the
     * pipeline (kept data is excused only while its operator's timer is scheduled).
     */
    @Test
    void afterATimerEmittedKeptDataAStuckSinkStillFailsThePipeline() throws Exception {
        CaptureSink sink = CaptureSink.create("capture", 1);
        sink.script().failNext(0, Integer.MAX_VALUE / 2); // transient, retried forever
        runtime = Pipeline.builder(fastConfig("timed")
                        .stalledFailAfter(Duration.ofMillis(300))
                        .build())
                .source(source)
                .sink(sink.definition())
                .chains(ctx -> Chains.from(ctx, PipelineFixture.strings())
                        .process("timed", new TimedBuffer(Duration.ofMillis(100)))
                        .sink(TestEncoders.string(), PipelineFixture.byPartition()))
                .meterRegistry(registry)
                .build();
        runtime.start();
        handle.assign(0, 0);
        handle.push(0, null, utf8("a"));

        RunReport report = runtime.awaitTermination(WAIT);
        assertThat(report).isNotNull();
        assertThat(report.state()).isEqualTo(PipelineState.FAILED);
        assertThat(report.failure()).hasMessageContaining("still unwritten");
    }

    /** Keeps values and emits them all when its timer fires, {@code delay} after the first one. */
    static final class TimedBuffer implements StatefulOperator<String, String> {
        private final Duration delay;
        private final java.util.ArrayList<String> kept = new java.util.ArrayList<>();
        private HeldAcks held;
        private dev.etl.ops.OperatorTimer timer;

        TimedBuffer(Duration delay) {
            this.delay = delay;
        }

        @Override
        public void open(OperatorContext context) {
            held = context.heldAcks();
            timer = context.timer();
        }

        @Override
        public void process(String in, Collector<? super String> out) {
            if (kept.isEmpty()) {
                timer.schedule(delay);
            }
            kept.add(in);
            held.holdCurrent();
        }

        @Override
        public void onTimer(Collector<? super String> out) {
            flush(out);
        }

        @Override
        public void flush(Collector<? super String> out) {
            if (!kept.isEmpty()) {
                try (HeldAcks.Emission<String> emission = held.emit(out)) {
                    kept.forEach(emission::collect);
                }
                kept.clear();
            }
        }
    }

    @ParameterizedTest(name = "deterministic blocks: {0}")
    @ValueSource(booleans = {false, true})
    void theHeldValuesOffsetIsNotCommittedWhileItWaitsAndTheShutdownDrainWritesAndCommitsIt(boolean blocks)
            throws Exception {
        CaptureSink sink = CaptureSink.create("capture", 1);
        runtime = pipeline(fastConfig("held").build(), sink, blocks);
        runtime.start();
        handle.assign(0, 0);
        for (int i = 0; i < 100; i++) {
            handle.push(0, null, utf8("v" + i));
        }
        assertThat(sink.script().awaitRows(99, WAIT)).isTrue();
        if (!blocks) {
            // With deterministic blocks the committed offset is a block boundary: the start of the block
            // holding v99 (possibly 0, when all 100 records arrived within one linger).
            assertThat(handle.awaitCommitted(0, 90, WAIT)).isTrue();
        }
        Thread.sleep(300); // several commit intervals (50 ms)
        assertThat(handle.lastCommitted(0))
                .as("v99 exists only in the operator")
                .isLessThan(100);

        runtime.shutdownHandle().trigger();
        RunReport report = runtime.awaitTermination(WAIT);
        runtime = null;

        assertThat(report.exitCode()).isZero();
        assertThat(rows(sink)).hasSize(100).contains("v99");
        assertThat(handle.lastCommitted(0)).isEqualTo(100);
    }

    @ParameterizedTest(name = "deterministic blocks: {0}")
    @ValueSource(booleans = {false, true})
    void aRevokeFlushesTheOperatorBeforeItsDrainAndCommit(boolean blocks) throws Exception {
        CaptureSink sink = CaptureSink.create("capture", 1);
        runtime = pipeline(
                fastConfig("revoke").checkpointInterval(Duration.ofHours(1)).build(), sink, blocks);
        runtime.start();
        handle.assign(0, 0);
        for (int i = 0; i < 100; i++) {
            handle.push(0, null, utf8("v" + i));
        }
        assertThat(sink.script().awaitRows(99, WAIT)).isTrue();

        handle.revoke(0);
        // The commit interval is an hour: only the revoke's synchronous commit moves this.
        assertThat(handle.awaitCommitted(0, 100, WAIT)).isTrue();
        assertThat(rows(sink))
                .as("written before the commit covered it")
                .hasSize(100)
                .contains("v99");
    }

    @Test
    void afterAFailureTheHeldValueIsNeitherFlushedNorCommitted() throws Exception {
        CaptureSink sink = CaptureSink.create("capture", 1);
        runtime = build(fastConfig("failed").build(), source, sink, buffered(), registry);
        runtime.start();
        handle.assign(0, 0);
        for (int i = 0; i < 50; i++) {
            handle.push(0, null, utf8("v" + i));
        }
        assertThat(sink.script().awaitRows(49, WAIT)).isTrue();
        Thread.sleep(300); // several commit intervals (50 ms)
        handle.push(0, null, utf8("boom"));
        RunReport report = runtime.awaitTermination(WAIT);
        runtime = null;

        assertThat(report.state()).isEqualTo(PipelineState.FAILED);
        assertThat(rows(sink)).as("no flush after a failure").hasSize(49).doesNotContain("v49");
        assertThat(handle.lastCommitted(0)).as("v49's offset never committed").isLessThan(50);
    }
}
