package dev.etl.test.pipeline;

import static dev.etl.test.pipeline.PipelineFixture.WAIT;
import static dev.etl.test.pipeline.PipelineFixture.byPartition;
import static dev.etl.test.pipeline.PipelineFixture.fastConfig;
import static dev.etl.test.pipeline.PipelineFixture.strings;
import static org.assertj.core.api.Assertions.assertThat;

import dev.etl.error.ErrorPolicy;
import dev.etl.error.FatalPipelineException;
import dev.etl.ops.ChainFactory;
import dev.etl.ops.Chains;
import dev.etl.pipeline.Pipeline;
import dev.etl.pipeline.PipelineConfig;
import dev.etl.pipeline.PipelineRuntime;
import dev.etl.pipeline.PipelineState;
import dev.etl.pipeline.RunReport;
import dev.etl.test.capture.CaptureSink;
import dev.etl.test.capture.TestEncoders;
import dev.etl.test.memory.MemorySource;
import java.util.Map;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * A stage policy ({@code etl.errors.stages.<stage>}) must name a stage of the assembled chain: a typo
 * would otherwise leave the chain's declared policy in force without a word.
 */
class StagePolicyNamesTest {
    private static final ChainFactory CHAIN = ctx -> Chains.from(ctx, strings())
            .filter("not-empty", s -> !s.isEmpty())
            .map("to-row", String::trim)
            .sink(TestEncoders.string(), byPartition());

    private final MemorySource source = MemorySource.create();
    private final CaptureSink sink = CaptureSink.create("capture", 1);
    private PipelineRuntime runtime;

    @AfterEach
    void stop() throws InterruptedException {
        if (runtime != null) {
            runtime.shutdown();
            runtime.awaitTermination(WAIT);
        }
    }

    private RunReport runUntilEnd(PipelineConfig config) throws InterruptedException {
        runtime = Pipeline.builder(config)
                .source(source)
                .sink(sink.definition())
                .chains(CHAIN)
                .build();
        runtime.start();
        return runtime.awaitTermination(WAIT);
    }

    @Test
    void aStagePolicyForAnUnknownStageFailsThePipelineNamingTheStageTheClosestOneAndAllOfThem() throws Exception {
        RunReport report = runUntilEnd(fastConfig("typo")
                .stagePolicies(Map.of("to-rwo", ErrorPolicy.SKIP))
                .build());

        assertThat(report).as("the pipeline ended").isNotNull();
        assertThat(report.state()).isEqualTo(PipelineState.FAILED);
        assertThat(report.exitCode()).isNotZero();
        assertThat(report.failure())
                .isInstanceOf(FatalPipelineException.class)
                .hasMessageContaining("stage 'to-rwo'")
                .hasMessageContaining("etl.errors.stages.to-rwo")
                .hasMessageContaining("did you mean 'to-row'?")
                .hasMessageContaining("[deserialize, not-empty, sink-capture, to-row]");
    }

    @Test
    void stagePoliciesForKnownStagesAreAccepted() throws Exception {
        runtime = Pipeline.builder(fastConfig("known")
                        .stagePolicies(Map.of("to-row", ErrorPolicy.SKIP, "deserialize", ErrorPolicy.SKIP))
                        .build())
                .source(source)
                .sink(sink.definition())
                .chains(CHAIN)
                .build();
        runtime.start();
        source.handle().assign(0, 0);
        long offset = source.handle().push(0, "k".getBytes(), "v".getBytes());
        assertThat(source.handle().awaitCommitted(0, offset + 1, WAIT)).isTrue();
        assertThat(runtime.state()).isEqualTo(PipelineState.RUNNING);
    }
}
