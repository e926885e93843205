package dev.etl.docs;

import static org.assertj.core.api.Assertions.assertThat;

import dev.etl.deser.Deserializer;
import dev.etl.ops.Chains;
import dev.etl.ops.HeldAcks;
import dev.etl.ops.OperatorContext;
import dev.etl.ops.OperatorTimer;
import dev.etl.ops.StatefulOperator;
import dev.etl.pipeline.Pipeline;
import dev.etl.pipeline.PipelineConfig;
import dev.etl.pipeline.PipelineRuntime;
import dev.etl.pipeline.RunReport;
import dev.etl.record.Collector;
import dev.etl.sink.KeyHashRouter;
import dev.etl.test.capture.CaptureSink;
import dev.etl.test.capture.TestEncoders;
import dev.etl.test.memory.MemorySource;
import dev.etl.test.memory.MemorySourceHandle;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;

/**
 * The tumbling-window example of docs/extending/custom-operator.md, run on the real lane: while a
 * window is open its records' offsets are not committed; closing it writes its row and commits
 * them; on a topic that goes quiet the timer closes the last window, so everything commits without
 * a shutdown (and the stall detector does not mistake the open window for a stuck sink); the
 * shutdown drain flushes a window still open, writes it and commits everything.
 */
class WindowOperatorTest {

    /** One row per (window, lane): the window's start and how many records fell into it. */
    record WindowCount(long windowStartMs, long count) {}

    // tag::window[]
    /**
     * Counts records per tumbling window of event time (the record timestamp). A window's row is
     * emitted when a record of another window arrives, when the window has been open for its length
     * in processing time (the timer: a topic that goes quiet still gets its last window written), or
     * when the engine flushes (shutdown, revoke). Until its row is written, the offsets of the records
     * it counted are not committed.
     */
    static final class TumblingWindowCount implements StatefulOperator<String, WindowCount> {
        private final Duration window;
        private final long windowMs;
        private OperatorContext context;
        private HeldAcks held;
        private OperatorTimer timer;
        private long windowStart = Long.MIN_VALUE;
        private long count;

        TumblingWindowCount(Duration window) {
            this.window = window;
            this.windowMs = window.toMillis();
        }

        @Override
        public void open(OperatorContext context) {
            this.context = context;
            this.held = context.heldAcks();
            this.timer = context.timer();
        }

        @Override
        public void process(String in, Collector<? super WindowCount> out) {
            long timestamp = context.meta().timestampMs();
            long start = timestamp - Math.floorMod(timestamp, windowMs);
            if (start != windowStart && count > 0) {
                emit(out); // the open window is complete: write its row
            }
            if (count == 0) {
                timer.schedule(window); // input may pause: close this window by then at the latest
            }
            windowStart = start;
            count++;
            held.holdCurrent(); // this record now lives in the window: keep its offset uncommitted
        }

        @Override
        public void onTimer(Collector<? super WindowCount> out) {
            if (count > 0) {
                emit(out); // no record of a later window came in time: write the open one
            }
        }

        @Override
        public void flush(Collector<? super WindowCount> out) {
            if (count > 0) {
                emit(out); // shutdown or revoke: write the open window as it is
            }
        }

        private void emit(Collector<? super WindowCount> out) {
            try (HeldAcks.Emission<WindowCount> emission = held.emit(out)) {
                emission.collect(new WindowCount(windowStart, count));
            }
            count = 0;
            timer.cancel();
        }
    }
    // end::window[]

    @Test
    void anOpenWindowKeepsItsOffsetsUncommittedUntilItsRowIsWrittenAndTheDrainFlushesIt() throws Exception {
        MemorySource source = MemorySource.create(7); // windows span poll batches
        MemorySourceHandle handle = source.handle();
        CaptureSink sink = CaptureSink.create("capture", 1);
        Deserializer<String> utf8 = (key, value, meta, out) -> out.collect(value.toUtf8String());
        PipelineRuntime runtime = Pipeline.builder(PipelineConfig.builder("windows")
                        .checkpointInterval(Duration.ofMillis(50))
                        .pollTimeout(Duration.ofMillis(20))
                        .build())
                .source(source)
                .sink(sink.definition())
                .chains(ctx -> Chains.from(ctx, utf8)
                        .process("count-per-10s", new TumblingWindowCount(Duration.ofSeconds(10)))
                        .map("to-text", w -> w.windowStartMs() + ":" + w.count())
                        .sink(TestEncoders.string(), KeyHashRouter.byRecordKey()))
                .build();
        runtime.start();
        handle.assign(0, 0);
        for (int i = 0; i < 25; i++) { // one record per second: windows of 10, 10 and 5 records
            handle.push(0, null, ("r" + i).getBytes(StandardCharsets.UTF_8), i * 1_000L);
        }

        assertThat(sink.script().awaitRows(2, Duration.ofSeconds(20))).isTrue();
        assertThat(handle.awaitCommitted(0, 14, Duration.ofSeconds(20)))
                .as("the closed windows commit")
                .isTrue();
        Thread.sleep(300); // several commit intervals
        assertThat(handle.lastCommitted(0))
                .as("records 20..24 are only in the open window")
                .isLessThanOrEqualTo(20);

        runtime.shutdown();
        RunReport report = runtime.awaitTermination(Duration.ofSeconds(30));
        assertThat(report.exitCode()).isZero();
        assertThat(rows(sink)).containsExactly("0:10", "10000:10", "20000:5");
        assertThat(handle.lastCommitted(0))
                .as("the drain flushed the open window, wrote it, then committed")
                .isEqualTo(25);
    }

    /**
     * Issue 30 item 1: a topic that goes quiet with a window open. Before timers the last window was
     * emitted only by the next record or a drain: the committed offset stayed behind it, and
     * {@code stalled-fail-after} then failed the pipeline (a crash loop on any topic that goes idle).
     * Here the stall limit is shorter than the window, and nothing fails: data an operator keeps with
     * its timer scheduled is not stuck.
     */
    @Test
    void onATopicThatGoesQuietTheTimerClosesTheLastWindowAndEverythingCommitsWithoutAFailure() throws Exception {
        MemorySource source = MemorySource.create(7);
        MemorySourceHandle handle = source.handle();
        CaptureSink sink = CaptureSink.create("capture", 1);
        Deserializer<String> utf8 = (key, value, meta, out) -> out.collect(value.toUtf8String());
        PipelineRuntime runtime = Pipeline.builder(PipelineConfig.builder("idle-windows")
                        .checkpointInterval(Duration.ofMillis(50))
                        .stalledFailAfter(Duration.ofMillis(300))
                        .build())
                .source(source)
                .sink(sink.definition())
                .chains(ctx -> Chains.from(ctx, utf8)
                        .process("count-per-1s", new TumblingWindowCount(Duration.ofSeconds(1)))
                        .map("to-text", w -> w.windowStartMs() + ":" + w.count())
                        .sink(TestEncoders.string(), KeyHashRouter.byRecordKey()))
                .build();
        runtime.start();
        handle.assign(0, 0);
        long pushedNs = System.nanoTime();
        for (int i = 0; i < 25; i++) { // event time 100 ms apart: windows of 10, 10 and 5 records
            handle.push(0, null, ("r" + i).getBytes(StandardCharsets.UTF_8), i * 100L);
        }
        // Then nothing more: the last window closes by its timer, one second after it opened.
        assertThat(handle.awaitCommitted(0, 25, Duration.ofSeconds(10)))
                .as("every record committed on an idle topic, no shutdown needed")
                .isTrue();
        long waitedMs = (System.nanoTime() - pushedNs) / 1_000_000;
        assertThat(waitedMs).as("within a few seconds of the window closing").isLessThan(5_000);
        Thread.sleep(500); // longer than stalled-fail-after once more
        assertThat(runtime.state()).isEqualTo(dev.etl.pipeline.PipelineState.RUNNING);
        assertThat(rows(sink)).containsExactly("0:10", "1000:10", "2000:5");

        runtime.shutdown();
        assertThat(runtime.awaitTermination(Duration.ofSeconds(30)).exitCode()).isZero();
    }

    static List<String> rows(CaptureSink sink) {
        return sink.script().writes().stream()
                .flatMap(w -> TestEncoders.decodeStrings(w.bytes()).stream())
                .collect(Collectors.toList());
    }
}
