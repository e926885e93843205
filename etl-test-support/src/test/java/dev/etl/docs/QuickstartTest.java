package dev.etl.docs;

import static org.assertj.core.api.Assertions.assertThat;

import dev.etl.deser.Deserializer;
import dev.etl.ops.ChainFactory;
import dev.etl.ops.Chains;
import dev.etl.pipeline.Pipeline;
import dev.etl.pipeline.PipelineConfig;
import dev.etl.pipeline.PipelineRuntime;
import dev.etl.pipeline.RunReport;
import dev.etl.record.RecordMeta;
import dev.etl.sink.KeyHashRouter;
import dev.etl.sink.RowBuffer;
import dev.etl.sink.RowEncoder;
import dev.etl.test.capture.CaptureSink;
import dev.etl.test.memory.MemorySource;
import dev.etl.test.memory.MemorySourceHandle;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import org.junit.jupiter.api.Test;

/** The quickstart of docs/getting-started/quickstart.md, compiled and run. */
class QuickstartTest {

    // tag::types[]
    /** A parsed greeting: the user's own type. */
    record Greeting(String name, int length) {}

    /** One row per greeting: columns (name String, length UInt32), in this order. */
    static final class GreetingEncoder implements RowEncoder<Greeting> {
        @Override
        public void encode(Greeting g, RecordMeta meta, RowBuffer out) {
            out.writeString(g.name());
            out.writeIntLE(g.length());
        }
    }
    // end::types[]

    @Test
    void quickstartPipelineWritesAndCommits() throws Exception {
        // tag::pipeline[]
        // 1. The topology, in code: one chain per lane.
        Deserializer<String> utf8 = (key, value, meta, out) -> out.collect(value.toUtf8String());
        ChainFactory greetings = ctx -> Chains.from(ctx, utf8)
                .filter("not-blank", s -> !s.isBlank())
                .map("parse", s -> new Greeting(s.trim(), s.trim().length()))
                .sink(new GreetingEncoder(), KeyHashRouter.byRecordKey());

        // 2. A source and a sink: in-memory test doubles here, Kafka and ClickHouse in production.
        MemorySource source = MemorySource.create();
        CaptureSink sink = CaptureSink.create("greetings", 1);

        // 3. Assemble and start.
        PipelineRuntime runtime = Pipeline.builder(
                        PipelineConfig.builder("quickstart").build())
                .source(source)
                .sink(sink.definition())
                .chains(greetings)
                .build();
        runtime.start();

        // 4. Drive it: give partition 0 to lane 0, produce, and wait for the commit.
        MemorySourceHandle handle = source.handle();
        handle.assign(0, 0);
        handle.push(0, null, "hello".getBytes(StandardCharsets.UTF_8));
        handle.push(0, null, "   ".getBytes(StandardCharsets.UTF_8));
        long last = handle.push(0, null, "world".getBytes(StandardCharsets.UTF_8));
        boolean committed = handle.awaitCommitted(0, last + 1, Duration.ofSeconds(10));

        // 5. Drain and stop.
        runtime.shutdownHandle().trigger();
        RunReport report = runtime.awaitTermination(Duration.ofSeconds(30));
        // end::pipeline[]

        assertThat(committed).isTrue();
        assertThat(report.exitCode()).isZero();
        assertThat(sink.script().rows()).isEqualTo(2);
        byte[] expectedFirstRow = {5, 'h', 'e', 'l', 'l', 'o', 5, 0, 0, 0};
        assertThat(sink.script().writes().get(0).bytes()).startsWith(expectedFirstRow);
    }
}
