package dev.etl.test.pipeline;

import static org.assertj.core.api.Assertions.assertThat;

import dev.etl.deser.Deserializer;
import dev.etl.ops.Chains;
import dev.etl.pipeline.Pipeline;
import dev.etl.pipeline.PipelineConfig;
import dev.etl.pipeline.PipelineRuntime;
import dev.etl.pipeline.RunReport;
import dev.etl.sink.KeyHashRouter;
import dev.etl.test.capture.CaptureSink;
import dev.etl.test.capture.TestEncoders;
import dev.etl.test.memory.MemorySource;
import dev.etl.test.memory.MemorySourceHandle;
import java.time.Duration;
import org.junit.jupiter.api.Test;

/** The reference's minimal pipeline (seed 003), in Java, against the memory source and capture sink. */
class MinimalPipelineTest {

    @Test
    void helloIsCommittedOnlyAfterItWasWrittenAndShutdownExitsZero() throws Exception {
        PipelineConfig config = PipelineConfig.builder("demo")
                .lanes(1)
                .ioThreads(1)
                .checkpointInterval(Duration.ofMillis(100))
                .build();
        MemorySource source = MemorySource.create();
        MemorySourceHandle handle = source.handle();
        CaptureSink sink = CaptureSink.create("capture", 1);

        PipelineRuntime runtime = Pipeline.builder(config)
                .source(source)
                .sink(sink.definition())
                .chains(ctx -> Chains.from(ctx, Deserializer.bytes())
                        .filter("non-empty", payload -> payload.length > 0)
                        .sink(TestEncoders.bytes(), KeyHashRouter.byRecordKey()))
                .build();
        runtime.start();

        handle.assign(0, 0);
        long last = handle.push(0, null, "hello".getBytes());
        assertThat(handle.awaitCommitted(0, last + 1, Duration.ofSeconds(10))).isTrue();

        runtime.shutdownHandle().trigger();
        RunReport report = runtime.awaitTermination(Duration.ofSeconds(30));
        assertThat(report).isNotNull();
        assertThat(report.exitCode()).isZero();
        assertThat(sink.script().writes()).isNotEmpty();
        assertThat(TestEncoders.decodeStrings(sink.script().writes().get(0).bytes()))
                .containsExactly("hello");
    }
}
