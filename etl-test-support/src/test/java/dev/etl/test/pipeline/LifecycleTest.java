package dev.etl.test.pipeline;

import static dev.etl.test.pipeline.PipelineFixture.WAIT;
import static dev.etl.test.pipeline.PipelineFixture.eventually;
import static dev.etl.test.pipeline.PipelineFixture.fastConfig;
import static dev.etl.test.pipeline.PipelineFixture.utf8;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.etl.error.ErrorPolicy;
import dev.etl.ops.ChainFactory;
import dev.etl.ops.Chains;
import dev.etl.pipeline.Pipeline;
import dev.etl.pipeline.PipelineRuntime;
import dev.etl.pipeline.PipelineState;
import dev.etl.pipeline.RunReport;
import dev.etl.sink.SinkDefinition;
import dev.etl.test.capture.CaptureSink;
import dev.etl.test.capture.TestEncoders;
import dev.etl.test.memory.MemorySource;
import dev.etl.test.memory.MemorySourceHandle;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.time.Duration;
import java.util.Set;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;

/**
 * The run's lifecycle at its edges: a start that fails leaves nothing running, the exit code counts
 * everything left unwritten, and nothing is committed once the pipeline has failed.
 */
class LifecycleTest {
    private final MemorySource source = MemorySource.create();
    private final MemorySourceHandle handle = source.handle();
    private final SimpleMeterRegistry registry = new SimpleMeterRegistry();

    private static Set<Thread> etlThreads() {
        return Thread.getAllStackTraces().keySet().stream()
                .filter(t -> t.getName().startsWith("etl-") && t.isAlive())
                .collect(Collectors.toSet());
    }

    private static SinkDefinition failingValidation(String name) {
        return SinkDefinition.builder(name, 1, shard -> {
                    throw new IllegalStateException("sink '" + name + "': table etl.missing does not exist");
                })
                .build();
    }

    @Test
    void failedStartLeavesNoEtlThreadAndAwaitTerminationReturns() throws Exception {
        Set<Thread> before = etlThreads();
        CaptureSink first = CaptureSink.create("first", 3);
        // The first sink is fine (its io threads would start), the second's writer factory throws.
        PipelineRuntime runtime = Pipeline.builder(fastConfig("failed-start").build())
                .source(source)
                .sink(first.definition())
                .sink(failingValidation("second"))
                .chains(PipelineFixture.passThrough())
                .meterRegistry(registry)
                .build();

        assertThatThrownBy(runtime::start).hasMessageContaining("table etl.missing does not exist");

        RunReport report = runtime.awaitTermination(Duration.ofSeconds(5));
        assertThat(report).as("awaitTermination returns after a failed start").isNotNull();
        assertThat(report.state()).isEqualTo(PipelineState.FAILED);
        assertThat(report.exitCode()).isEqualTo(RunReport.EXIT_FAILED);
        assertThat(runtime.state()).isEqualTo(PipelineState.FAILED);
        assertThat(eventually(
                        () -> {
                            Set<Thread> now = etlThreads();
                            now.removeAll(before);
                            return now.isEmpty();
                        },
                        Duration.ofSeconds(5)))
                .as("etl-* threads left behind: %s", etlThreads())
                .isTrue();
        assertThat(source.handle().isOpen(0)).isFalse();
    }

    @Test
    void failedStartOfTheDeadLetterSinkStopsTheSinksAlreadyBuilt() throws Exception {
        Set<Thread> before = etlThreads();
        CaptureSink main = CaptureSink.create("main", 2);
        PipelineRuntime runtime = Pipeline.builder(
                        fastConfig("failed-dlq-start").build())
                .source(source)
                .sink(main.definition())
                .deadLetter(failingValidation("dlq"))
                .chains(PipelineFixture.passThrough())
                .meterRegistry(registry)
                .build();

        assertThatThrownBy(runtime::start).isInstanceOf(IllegalStateException.class);

        RunReport report = runtime.awaitTermination(Duration.ofSeconds(5));
        assertThat(report).isNotNull();
        assertThat(report.exitCode()).isEqualTo(RunReport.EXIT_FAILED);
        assertThat(eventually(
                        () -> {
                            Set<Thread> now = etlThreads();
                            now.removeAll(before);
                            return now.isEmpty();
                        },
                        Duration.ofSeconds(5)))
                .as("etl-* threads left behind: %s", etlThreads())
                .isTrue();
    }

    @Test
    void failedHeadBatchAtShutdownGivesExitCodeTwo() throws Exception {
        // Under the sink's SKIP policy a permanently failed batch stalls its partition: not committed,
        // it replays. A shutdown then is clean but leaves data unwritten.
        CaptureSink sink = CaptureSink.create(
                "capture", 1, CaptureSink.TEST_BATCHING, CaptureSink.TEST_RETRY, 64, ErrorPolicy.SKIP);
        sink.script().failNextPermanently(0, 1);
        PipelineRuntime runtime = PipelineFixture.build(
                fastConfig("failed-head").build(), source, sink, PipelineFixture.passThrough(), registry);
        runtime.start();
        handle.assign(0, 0);
        handle.push(0, null, utf8("lost-write"));
        assertThat(eventually(() -> sink.script().attempts(0) >= 1, WAIT)).isTrue();
        handle.push(0, null, utf8("written"));
        assertThat(sink.script().awaitRows(1, WAIT)).isTrue();

        runtime.shutdown();
        RunReport report = runtime.awaitTermination(WAIT);

        assertThat(report.state()).isEqualTo(PipelineState.STOPPED);
        assertThat(report.failedBatches()).isEqualTo(2);
        assertThat(report.uncommittedBatches()).isEqualTo(2);
        assertThat(report.exitCode()).isEqualTo(RunReport.EXIT_ABANDONED);
        assertThat(handle.lastCommitted(0)).isEqualTo(-1);
    }

    @Test
    void laneStillBusyAtTheDrainDeadlineGivesExitCodeTwo() throws Exception {
        // An operator that is still working when the drain deadline passes: the sinks have nothing
        // queued, yet the batch it holds was never written.
        CountDownLatch slow = new CountDownLatch(1);
        CountDownLatch entered = new CountDownLatch(1);
        ChainFactory chains = ctx -> Chains.from(ctx, PipelineFixture.strings())
                .map(s -> {
                    if (s.equals("slow")) {
                        entered.countDown();
                        try {
                            slow.await(30, TimeUnit.SECONDS);
                        } catch (InterruptedException e) {
                            Thread.currentThread().interrupt();
                        }
                    }
                    return s;
                })
                .sink(TestEncoders.string(), PipelineFixture.byPartition());
        CaptureSink sink = CaptureSink.create("capture", 1);
        PipelineRuntime runtime = PipelineFixture.build(
                fastConfig("busy-lane").drainTimeout(Duration.ofMillis(200)).build(), source, sink, chains, registry);
        try {
            runtime.start();
            handle.assign(0, 0);
            handle.push(0, null, utf8("slow"));
            assertThat(entered.await(WAIT.toMillis(), TimeUnit.MILLISECONDS)).isTrue();
            runtime.shutdown();
            RunReport report = runtime.awaitTermination(WAIT);

            assertThat(report.state()).isEqualTo(PipelineState.STOPPED);
            assertThat(report.abandonedBatches()).isZero();
            assertThat(report.uncommittedBatches()).isPositive();
            assertThat(report.exitCode()).isEqualTo(RunReport.EXIT_ABANDONED);
        } finally {
            slow.countDown();
        }
        assertThat(handle.lastCommitted(0)).isEqualTo(-1);
    }

    @Test
    void nothingIsCommittedAfterFailedDuringAShutdownDrain() throws Exception {
        assertNoCommitAfterFailedDuringDrain(true);
    }

    @Test
    void nothingIsCommittedAfterFailedDuringARevokeDrain() throws Exception {
        assertNoCommitAfterFailedDuringDrain(false);
    }

    private void assertNoCommitAfterFailedDuringDrain(boolean shutdown) throws Exception {
        CaptureSink sink = CaptureSink.create("capture", 2);
        sink.script().block(0).block(1);
        PipelineRuntime runtime = PipelineFixture.build(
                fastConfig("no-commit-after-failed")
                        .checkpointInterval(Duration.ofHours(1))
                        .drainTimeout(Duration.ofSeconds(10))
                        .build(),
                source,
                sink,
                PipelineFixture.passThrough(),
                registry);
        runtime.start();
        handle.assign(0, 0, 1);
        for (int i = 0; i < 10; i++) {
            handle.push(0, null, utf8("p0-" + i));
            handle.push(1, null, utf8("p1-" + i));
        }
        assertThat(eventually(
                        () -> sink.script().attempts(0) >= 1 && sink.script().attempts(1) >= 1, WAIT))
                .isTrue();
        if (shutdown) {
            runtime.shutdown();
        } else {
            handle.revoke(0, 1);
        }
        // Let the lane stop polling and enter its drain (it polls every 20 ms; a failure before the
        // drain begins would skip the drain altogether, which is not the path under test).
        Thread.sleep(300);
        // Partition 1's write fails permanently under FAIL while the lane drains: the pipeline fails.
        sink.script().failNextPermanently(1, 1).release(1);
        assertThat(eventually(() -> runtime.state() == PipelineState.FAILED, WAIT))
                .isTrue();
        // Partition 0's write then succeeds: the drain resolves, but FAILED forbids its commit.
        sink.script().release(0);
        assertThat(sink.script().awaitRows(10, WAIT)).isTrue();
        RunReport report = runtime.awaitTermination(WAIT);

        assertThat(report.exitCode()).isEqualTo(RunReport.EXIT_FAILED);
        assertThat(handle.lastCommitted(0))
                .as("partition 0 committed after FAILED")
                .isEqualTo(-1);
        assertThat(handle.lastCommitted(1)).isEqualTo(-1);
        assertThat(runtime.committedOffsets()).isEmpty();
    }
}
