package dev.etl.autoconfigure;

import static org.assertj.core.api.Assertions.assertThat;

import dev.etl.pipeline.PipelineConfig;
import dev.etl.pipeline.PipelineRuntime;
import dev.etl.pipeline.PipelineState;
import dev.etl.pipeline.RunReport;
import dev.etl.test.capture.CaptureSink;
import dev.etl.test.memory.MemorySource;
import java.time.Duration;
import java.util.concurrent.ArrayBlockingQueue;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.context.ApplicationContext;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

/**
 * SIGTERM/SIGINT handling of {@link EtlPipelineLifecycle}: a signal (delivered through a handler that is
 * not installed in this JVM, with a fake {@code System.exit}) closes the context, which drains, and the
 * process status is the drain's outcome.
 */
class EtlPipelineLifecycleSignalTest {

    private final ApplicationContextRunner runner = new ApplicationContextRunner()
            .withConfiguration(AutoConfigurations.of(EtlAutoConfiguration.class))
            .withPropertyValues(TestPipelines.FAST)
            .withUserConfiguration(TestPipelines.SourceAndSink.class, TestPipelines.Chain.class);

    @Test
    void signalsAreHandledByDefaultAndCanBeTurnedOff() {
        this.runner
                .withPropertyValues("etl.pipeline.handle-signals=true")
                .run((context) -> assertThat(
                                context.getBean(EtlPipelineLifecycle.class).handlesSignals())
                        .isTrue());
        this.runner
                .withPropertyValues("etl.pipeline.handle-signals=false")
                .run((context) -> assertThat(
                                context.getBean(EtlPipelineLifecycle.class).handlesSignals())
                        .isFalse());
        assertThat(new EtlPipelineProperties().isHandleSignals()).isTrue();
    }

    @Test
    void aSignalClosesTheContextAfterACleanDrainAndExitsZero() {
        this.runner.withUserConfiguration(SignalsOfTheirOwn.class).run((context) -> {
            MemorySource source = context.getBean(MemorySource.class);
            CaptureSink sink = context.getBean(CaptureSink.class);
            SignalsOfTheirOwn signals = context.getBean(SignalsOfTheirOwn.class);
            PipelineRuntime runtime = context.getBean(PipelineRuntime.class);
            source.handle().assign(0, 0, 1);
            for (int i = 0; i < 200; i++) {
                source.handle().push(i % 2, null, TestPipelines.utf8("r" + i));
            }
            assertThat(source.handle().awaitCommitted(0, 10, TestPipelines.WAIT))
                    .isTrue();

            signals.handler.handle("TERM", () -> {
                throw new AssertionError("the pipeline is running: no fallback");
            });

            assertThat(signals.exits.poll(20, TimeUnit.SECONDS)).isEqualTo(RunReport.EXIT_OK);
            assertThat(context.isActive()).isFalse();
            assertThat(runtime.state()).isEqualTo(PipelineState.STOPPED);
            long committed = source.handle().lastCommitted(0) + source.handle().lastCommitted(1);
            assertThat(sink.script().rows())
                    .as("every written row committed by the drain")
                    .isEqualTo(committed);
        });
    }

    @Test
    void aDrainThatAbandonsDataExitsTwo() {
        this.runner
                .withUserConfiguration(SignalsOfTheirOwn.class)
                .withPropertyValues("etl.checkpoint.drain-timeout=300ms")
                .run((context) -> {
                    MemorySource source = context.getBean(MemorySource.class);
                    CaptureSink sink = context.getBean(CaptureSink.class);
                    SignalsOfTheirOwn signals = context.getBean(SignalsOfTheirOwn.class);
                    EtlPipelineLifecycle lifecycle = context.getBean(EtlPipelineLifecycle.class);
                    sink.script().block(0);
                    source.handle().assign(0, 0);
                    source.handle().push(0, null, TestPipelines.utf8("stuck"));
                    assertThat(TestPipelines.eventually(() -> sink.script().attempts(0) >= 1))
                            .isTrue();

                    signals.handler.handle("TERM", () -> {});

                    assertThat(signals.exits.poll(20, TimeUnit.SECONDS)).isEqualTo(RunReport.EXIT_ABANDONED);
                    assertThat(lifecycle.getReport().abandonedBatches()).isPositive();
                    assertThat(source.handle().lastCommitted(0))
                            .as("nothing committed past the abandoned batch")
                            .isLessThanOrEqualTo(0);
                    sink.script().release(0);
                });
    }

    @Test
    void theFailureWatcherIsNotADaemonSoAFailedRunCannotEndTheJvmWithStatusZero() {
        // The pipeline's own threads end as soon as it fails; a daemon watcher then let the JVM exit
        // 0 before its System.exit(1) (ExitStatusIT shows the process-level effect).
        this.runner.run((context) -> {
            PipelineRuntime runtime = context.getBean(PipelineRuntime.class);
            String name = "etl-watch-" + runtime.config().name();
            Thread watcher = Thread.getAllStackTraces().keySet().stream()
                    .filter((thread) -> thread.getName().equals(name) && thread.isAlive())
                    .findFirst()
                    .orElseThrow(() -> new AssertionError("no thread " + name));
            assertThat(watcher.isDaemon()).isFalse();
        });
    }

    @Test
    void aClosedContextNoLongerTakesSignals() {
        SignalExitHandler[] handler = new SignalExitHandler[1];
        this.runner.withUserConfiguration(SignalsOfTheirOwn.class).run((context) -> {
            handler[0] = context.getBean(SignalsOfTheirOwn.class).handler;
        });
        boolean[] fallback = new boolean[1];
        handler[0].handle("TERM", () -> fallback[0] = true);
        assertThat(fallback[0]).as("delegated to the previous handler").isTrue();
    }

    /** The lifecycle with a handler of the test's own and a fake System.exit. */
    @Configuration(proxyBeanMethods = false)
    static class SignalsOfTheirOwn {

        final BlockingQueue<Integer> exits = new ArrayBlockingQueue<>(4);

        final SignalExitHandler handler = new SignalExitHandler(this.exits::add);

        @Bean
        EtlPipelineLifecycle signalledLifecycle(
                PipelineRuntime runtime, PipelineConfig config, ApplicationContext context) {
            return new EtlPipelineLifecycle(runtime, context, true, false, Duration.ofSeconds(30), () -> this.handler);
        }
    }
}
