package dev.etl.test.pipeline;

import static dev.etl.test.pipeline.PipelineFixture.WAIT;
import static dev.etl.test.pipeline.PipelineFixture.build;
import static dev.etl.test.pipeline.PipelineFixture.byPartition;
import static dev.etl.test.pipeline.PipelineFixture.fastConfig;
import static dev.etl.test.pipeline.PipelineFixture.strings;
import static dev.etl.test.pipeline.PipelineFixture.utf8;
import static org.assertj.core.api.Assertions.assertThat;

import dev.etl.error.ErrorPolicy;
import dev.etl.ops.ChainFactory;
import dev.etl.ops.Chains;
import dev.etl.pipeline.PipelineRuntime;
import dev.etl.pipeline.PipelineState;
import dev.etl.pipeline.RunReport;
import dev.etl.test.capture.CaptureSink;
import dev.etl.test.capture.TestEncoders;
import dev.etl.test.memory.MemorySource;
import dev.etl.test.memory.MemorySourceHandle;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/** The default skip budget: SKIP never silently becomes total loss, and the odd bad record is still skipped. */
class SkipBudgetTest {
    private final MemorySource source = MemorySource.create();
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

    private static ChainFactory skipping() {
        return ctx -> Chains.from(ctx, strings(), ErrorPolicy.SKIP).sink(TestEncoders.string(), byPartition());
    }

    @Test
    void allRecordsPoisonUnderSkipFailsThePipelineSayingSo() throws Exception {
        CaptureSink sink = CaptureSink.create("capture", 1);
        runtime = build(fastConfig("all-poison").build(), source, sink, skipping(), registry);
        runtime.start();
        handle.assign(0, 0);
        for (int i = 0; i < 1_000; i++) {
            handle.push(0, null, utf8("bad-" + i));
        }

        RunReport report = runtime.awaitTermination(WAIT);
        assertThat(report).as("terminated within %s", WAIT).isNotNull();
        assertThat(report.state()).isEqualTo(PipelineState.FAILED);
        assertThat(report.exitCode()).isEqualTo(RunReport.EXIT_FAILED);
        assertThat(report.failure())
                .hasMessageContaining("exceeded its skip budget")
                .hasMessageContaining("error type deserialization")
                .hasMessageContaining("failing instead of silently dropping the data");
        assertThat(registry.get("etl.skip.budget.exceeded")
                        .tag("error_type", "deserialization")
                        .counter()
                        .count())
                .isEqualTo(1.0);
        assertThat(handle.lastCommitted(0))
                .as("nothing committed past the records that tripped the budget")
                .isLessThan(1_000);
    }

    @Test
    void aFewPoisonRecordsAmongManyAreSkippedAndThePipelineRunsOn() throws Exception {
        CaptureSink sink = CaptureSink.create("capture", 1);
        runtime = build(fastConfig("few-poison").build(), source, sink, skipping(), registry);
        runtime.start();
        handle.assign(0, 0);
        for (int i = 0; i < 1_000; i++) {
            handle.push(0, null, utf8(i % 10 == 0 ? "bad-" + i : "v" + i));
        }

        assertThat(handle.awaitCommitted(0, 1_000, WAIT)).isTrue();
        assertThat(runtime.state()).isEqualTo(PipelineState.RUNNING);
        assertThat(sink.script().writes())
                .flatMap(w -> TestEncoders.decodeStrings(w.bytes()))
                .hasSize(900);
        assertThat(registry.get("etl.errors")
                        .tag("error_type", "deserialization")
                        .counter()
                        .count())
                .isEqualTo(100);
    }
}
