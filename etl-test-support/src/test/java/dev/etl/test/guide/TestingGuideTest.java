package dev.etl.test.guide;

import static org.assertj.core.api.Assertions.assertThat;

import dev.etl.avro.AvroDeserializer;
import dev.etl.avro.AvroWireFormat;
import dev.etl.avro.SchemaRegistryClient;
import dev.etl.error.ErrorPolicy;
import dev.etl.ops.ChainFactory;
import dev.etl.ops.Chains;
import dev.etl.pipeline.PipelineRuntime;
import dev.etl.sink.KeyHashRouter;
import dev.etl.test.avro.StubSchemaRegistry;
import dev.etl.test.capture.CaptureScript;
import dev.etl.test.capture.CaptureSink;
import dev.etl.test.capture.TestEncoders;
import dev.etl.test.memory.MemorySource;
import dev.etl.test.memory.MemorySourceHandle;
import dev.etl.test.pipeline.PipelineFixture;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import org.apache.avro.Schema;
import org.apache.avro.generic.GenericData;
import org.apache.avro.generic.GenericRecord;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/** The code of {@code docs/guides/testing.md} (its snippets are these regions), run against the test doubles. */
class TestingGuideTest {
    private static final Schema ORDER = new Schema.Parser().parse("""
            {"type": "record", "name": "Order", "namespace": "com.example",
             "fields": [{"name": "id", "type": "long"}]}""");

    private final MemorySource source = MemorySource.create();
    private final MemorySourceHandle handle = source.handle();
    private PipelineRuntime runtime;

    @AfterEach
    void stop() throws InterruptedException {
        PipelineFixture.stop(runtime);
    }

    /** Starts a pipeline over the memory source into {@code sink}, lane 0 reading partition 0. */
    private void run(CaptureSink sink, ChainFactory chains) {
        runtime = PipelineFixture.build(
                PipelineFixture.fastConfig("testing-guide").build(), source, sink, chains, new SimpleMeterRegistry());
        runtime.start();
        handle.assign(0, 0);
    }

    @Test
    void waitForCommitsNotForTime() throws Exception {
        run(CaptureSink.create("capture", 1), PipelineFixture.passThrough());
        byte[] bytes = "order-1".getBytes(StandardCharsets.UTF_8);

        // tag::await-commit[]
        long last = handle.push(0, null, bytes);
        assertThat(handle.awaitCommitted(0, last + 1, Duration.ofSeconds(10))).isTrue();
        // end::await-commit[]
    }

    @Test
    void assertWhatDidNotCommit() throws Exception {
        CaptureSink sink = CaptureSink.create(
                "capture", 1, CaptureSink.TEST_BATCHING, CaptureSink.TEST_RETRY, 64, ErrorPolicy.SKIP);
        CaptureScript script = sink.script();
        run(sink, PipelineFixture.passThrough());
        byte[] bytes = "first".getBytes(StandardCharsets.UTF_8);
        byte[] next = "second".getBytes(StandardCharsets.UTF_8);

        // tag::not-committed[]
        script.failNextPermanently(0, 1); // under a SKIP sink policy: the batch fails, the pipeline runs on
        long badOffset = handle.push(0, null, bytes);
        while (script.attempts(0) < 1) {
            Thread.sleep(10); // the batch was written once, and failed
        }
        handle.push(0, null, next); // written, yet not committed past the failed batch
        assertThat(script.awaitRows(1, Duration.ofSeconds(10))).isTrue();
        assertThat(handle.lastCommitted(0)).isLessThan(badOffset + 1);
        // end::not-committed[]
    }

    @Test
    void aStubRegistryWithoutSpring() throws Exception {
        CaptureSink sink = CaptureSink.create("capture", 1);
        GenericRecord order = new GenericData.Record(ORDER);
        order.put("id", 42L);

        // tag::stub-registry[]
        try (StubSchemaRegistry registry = StubSchemaRegistry.start()) {
            int id = registry.register("orders-value", ORDER); // or registry.put(1, schema)
            SchemaRegistryClient client =
                    SchemaRegistryClient.builder(registry.url()).build();
            AvroDeserializer.Builder<GenericRecord> orders =
                    AvroDeserializer.generic(ORDER).confluent(client);
            run(
                    sink,
                    ctx -> Chains.from(ctx, orders.build()) // the real deserializer, the stub's schemas
                            .map("to-row", o -> o.get("id").toString())
                            .sink(TestEncoders.string(), KeyHashRouter.byRecordKey()));

            long offset = handle.push(0, null, AvroWireFormat.confluent(id, ORDER, order));
            assertThat(handle.awaitCommitted(0, offset + 1, Duration.ofSeconds(10)))
                    .isTrue();
        }
        // end::stub-registry[]

        assertThat(TestEncoders.decodeStrings(sink.script().writes().get(0).bytes()))
                .containsExactly("42");
    }
}
