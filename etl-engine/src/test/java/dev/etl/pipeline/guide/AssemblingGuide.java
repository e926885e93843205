package dev.etl.pipeline.guide;

import dev.etl.ops.ChainFactory;
import dev.etl.pipeline.Pipeline;
import dev.etl.pipeline.PipelineConfig;
import dev.etl.pipeline.PipelineRuntime;
import dev.etl.pipeline.RunReport;
import dev.etl.sink.SinkDefinition;
import dev.etl.source.Source;
import io.micrometer.core.instrument.MeterRegistry;

/**
 * The code of {@code docs/guides/assembling.md} (its snippet is this region), compiled only: it ends the JVM,
 * so no test runs it; {@code QuickstartTest} (etl-test-support) runs the same calls against the test doubles.
 */
final class AssemblingGuide {

    static void assembleAndRun(
            PipelineConfig config,
            Source kafkaSource,
            SinkDefinition clickHouseSinkDefinition,
            ChainFactory chainFactory,
            MeterRegistry registry)
            throws InterruptedException {
        // tag::assemble[]
        PipelineRuntime runtime = Pipeline.builder(config)
                .source(kafkaSource)
                .sink(clickHouseSinkDefinition)
                .chains(chainFactory)
                .meterRegistry(registry)
                .build();
        runtime.start();
        Runtime.getRuntime().addShutdownHook(new Thread(runtime::shutdown));
        RunReport report = runtime.awaitTermination();
        System.exit(report.exitCode());
        // end::assemble[]
    }
}
