package dev.etl.json.guide;

import static org.assertj.core.api.Assertions.assertThat;

import dev.etl.error.ErrorPolicy;
import dev.etl.json.JsonDeserializer;
import dev.etl.ops.ChainFactory;
import dev.etl.ops.Chains;
import dev.etl.pipeline.Pipeline;
import dev.etl.pipeline.PipelineConfig;
import dev.etl.pipeline.PipelineRuntime;
import dev.etl.sink.KeyHashRouter;
import dev.etl.sink.RowEncoder;
import dev.etl.test.capture.CaptureSink;
import dev.etl.test.capture.TestEncoders;
import dev.etl.test.memory.MemorySource;
import dev.etl.test.memory.MemorySourceHandle;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;

/** The code of {@code docs/connectors/json.md} (its snippets are these regions), run through a pipeline. */
class JsonGuideTest {
    private static final Duration WAIT = Duration.ofSeconds(20);

    // tag::types[]
    record Order(long id, String sku, int qty) {}

    /** One RowBinary String column, e.g. a raw-events table. */
    static final RowEncoder<String> STRING_COLUMN = (row, meta, out) -> out.writeString(row);
    // end::types[]

    // tag::ndjson[]
    static ChainFactory orders(JsonMapper jsonMapper) {
        // The builder may be shared; build() once per lane, inside the ChainFactory lambda.
        JsonDeserializer.Builder<Order> json = JsonDeserializer.forType(Order.class)
                .ndjson() // one document per line
                .mapper(jsonMapper); // the application's mapper (Spring Boot: its JsonMapper bean)
        return ctx -> Chains.from(ctx, json.build(), ErrorPolicy.SKIP) // a bad line: skipped, the others delivered
                .filter("has-qty", order -> order.qty() > 0)
                .map("to-row", order -> order.id() + ":" + order.sku())
                .sink(STRING_COLUMN, KeyHashRouter.byRecordKey());
    }
    // end::ndjson[]

    // tag::tree[]
    static ChainFactory passThrough() {
        // Schemaless: any JSON value per array element, kept as a tree and written out as JSON text.
        JsonDeserializer.Builder<JsonNode> events = JsonDeserializer.tree().array();
        return ctx -> Chains.from(ctx, events.build())
                .filter("not-heartbeat", event -> !event.path("type").asString().equals("heartbeat"))
                .map("to-json", JsonNode::toString)
                .sink(STRING_COLUMN, KeyHashRouter.byRecordKey());
    }
    // end::tree[]

    private final MemorySource source = MemorySource.create();
    private final MemorySourceHandle handle = source.handle();
    private final CaptureSink sink = CaptureSink.create("events", 1);
    private PipelineRuntime runtime;

    @AfterEach
    void stop() throws InterruptedException {
        if (runtime != null) {
            runtime.shutdown();
            runtime.awaitTermination(WAIT);
        }
    }

    private List<String> run(ChainFactory chains, String... messages) throws InterruptedException {
        runtime = Pipeline.builder(PipelineConfig.builder("guide")
                        .checkpointInterval(Duration.ofMillis(50))
                        .pollTimeout(Duration.ofMillis(20))
                        .build())
                .source(source)
                .sink(sink.definition())
                .chains(chains)
                .build();
        runtime.start();
        handle.assign(0, 0);
        for (String message : messages) {
            handle.push(0, null, message.getBytes(StandardCharsets.UTF_8));
        }
        assertThat(handle.awaitCommitted(0, messages.length, WAIT)).isTrue();
        return sink.script().writes().stream()
                .flatMap(w -> TestEncoders.decodeStrings(w.bytes()).stream())
                .toList();
    }

    @Test
    void theNdjsonChainDeliversTheGoodLinesOfAMessageWithABadOne() throws Exception {
        List<String> rows = run(
                orders(JsonMapper.builder().build()),
                "{\"id\":1,\"sku\":\"a\",\"qty\":1}\n{\"id\":2,\"sku\":\"b\",\"qty\":0}\n{\"id\":3,\"sku\":\n"
                        + "{\"id\":4,\"sku\":\"d\",\"qty\":4}\n");

        assertThat(rows).containsExactly("1:a", "4:d");
    }

    @Test
    void thePassThroughChainKeepsEveryElementAsJsonText() throws Exception {
        List<String> rows = run(
                passThrough(),
                "[{\"type\":\"click\",\"x\":1},{\"type\":\"heartbeat\"},{\"type\":\"view\",\"tags\":[\"a\"]}]");

        assertThat(rows).containsExactly("{\"type\":\"click\",\"x\":1}", "{\"type\":\"view\",\"tags\":[\"a\"]}");
    }
}
