package dev.etl.autoconfigure;

import static org.assertj.core.api.Assertions.assertThat;

import dev.etl.pipeline.PipelineState;
import dev.etl.pipeline.RunReport;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ArrayBlockingQueue;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;

/** The signal handler's decisions, driven without real signals and with a fake {@code System.exit}. */
class SignalExitHandlerTest {

    private final BlockingQueue<Integer> exits = new ArrayBlockingQueue<>(4);

    private final SignalExitHandler handler = new SignalExitHandler(this.exits::add);

    @Test
    void withoutARunningPipelineTheSignalGoesToThePreviousHandler() {
        AtomicInteger fallbacks = new AtomicInteger();
        this.handler.handle("TERM", fallbacks::incrementAndGet);
        assertThat(fallbacks).hasValue(1);
        assertThat(this.exits).isEmpty();
        assertThat(this.handler.isExiting()).isFalse();
    }

    @Test
    void theTargetExitsOnANonDaemonThreadAndItsStatusEndsTheJvm() throws Exception {
        List<String> seen = new ArrayList<>();
        this.handler.register(target("a", (signal) -> {
            Thread current = Thread.currentThread();
            seen.add(signal + " on " + current.getName() + (current.isDaemon() ? " (daemon)" : ""));
            return 0;
        }));
        this.handler.handle("TERM", () -> {
            throw new AssertionError("no fallback while a pipeline runs");
        });
        assertThat(this.exits.poll(5, TimeUnit.SECONDS)).isZero();
        assertThat(seen).containsExactly("TERM on " + SignalExitHandler.THREAD_NAME);
    }

    @Test
    void theFirstNonZeroStatusWins() throws Exception {
        this.handler.register(target("clean", (signal) -> 0));
        this.handler.register(target("abandoned", (signal) -> RunReport.EXIT_ABANDONED));
        this.handler.register(target("failed", (signal) -> RunReport.EXIT_FAILED));
        this.handler.handle("INT", () -> {});
        assertThat(this.exits.poll(5, TimeUnit.SECONDS)).isEqualTo(RunReport.EXIT_ABANDONED);
    }

    @Test
    void aTargetThatThrowsExitsWithOne() throws Exception {
        this.handler.register(target("broken", (signal) -> {
            throw new IllegalStateException("boom");
        }));
        this.handler.handle("TERM", () -> {});
        assertThat(this.exits.poll(5, TimeUnit.SECONDS)).isEqualTo(1);
    }

    @Test
    void aSecondSignalWhileDrainingDoesNotInterruptTheDrain() throws Exception {
        CountDownLatch draining = new CountDownLatch(1);
        CountDownLatch release = new CountDownLatch(1);
        AtomicInteger calls = new AtomicInteger();
        AtomicInteger fallbacks = new AtomicInteger();
        this.handler.register(target("slow", (signal) -> {
            calls.incrementAndGet();
            draining.countDown();
            await(release);
            return 0;
        }));
        this.handler.handle("TERM", fallbacks::incrementAndGet);
        assertThat(draining.await(5, TimeUnit.SECONDS)).isTrue();
        this.handler.handle("TERM", fallbacks::incrementAndGet);
        this.handler.handle("INT", fallbacks::incrementAndGet);
        assertThat(this.handler.isExiting()).isTrue();
        assertThat(this.exits.poll(100, TimeUnit.MILLISECONDS))
                .as("no exit before the drain ended")
                .isNull();
        release.countDown();
        assertThat(this.exits.poll(5, TimeUnit.SECONDS)).isZero();
        assertThat(calls).hasValue(1);
        assertThat(fallbacks).hasValue(0);
    }

    @Test
    void anUnregisteredTargetIsNotStopped() {
        AtomicInteger fallbacks = new AtomicInteger();
        SignalExitHandler.Target target = target("stopped", (signal) -> {
            throw new AssertionError("unregistered");
        });
        this.handler.register(target);
        this.handler.unregister(target);
        this.handler.handle("TERM", fallbacks::incrementAndGet);
        assertThat(fallbacks).hasValue(1);
    }

    @Test
    void exitCodeAfterCloseReflectsTheDrain() {
        RunReport clean = new RunReport(PipelineState.STOPPED, null, 0, 10);
        RunReport abandoned = new RunReport(PipelineState.STOPPED, null, 3, 10);
        RunReport failed = new RunReport(PipelineState.FAILED, new IllegalStateException(), 0, 10);
        assertThat(EtlPipelineLifecycle.exitCodeAfterClose(0, clean)).isEqualTo(RunReport.EXIT_OK);
        assertThat(EtlPipelineLifecycle.exitCodeAfterClose(0, abandoned)).isEqualTo(RunReport.EXIT_ABANDONED);
        assertThat(EtlPipelineLifecycle.exitCodeAfterClose(0, failed)).isEqualTo(RunReport.EXIT_FAILED);
        assertThat(EtlPipelineLifecycle.exitCodeAfterClose(0, null))
                .as("drain outlived the shutdown phase")
                .isEqualTo(RunReport.EXIT_ABANDONED);
        assertThat(EtlPipelineLifecycle.exitCodeAfterClose(7, clean))
                .as("another ExitCodeGenerator")
                .isEqualTo(7);
    }

    @Test
    void theJvmInstanceIsInstalledOnce() {
        assertThat(SignalExitHandler.jvm()).isSameAs(SignalExitHandler.jvm());
    }

    private static void await(CountDownLatch latch) {
        try {
            latch.await(Duration.ofSeconds(10).toMillis(), TimeUnit.MILLISECONDS);
        } catch (InterruptedException ex) {
            Thread.currentThread().interrupt();
        }
    }

    private static SignalExitHandler.Target target(String name, java.util.function.ToIntFunction<String> exit) {
        return new SignalExitHandler.Target() {

            @Override
            public String name() {
                return name;
            }

            @Override
            public int exitOnSignal(String signal) {
                return exit.applyAsInt(signal);
            }
        };
    }
}
