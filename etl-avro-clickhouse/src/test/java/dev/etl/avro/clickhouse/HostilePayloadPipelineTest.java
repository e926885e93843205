package dev.etl.avro.clickhouse;

import static org.assertj.core.api.Assertions.assertThat;

import dev.etl.avro.AvroDeserializer;
import dev.etl.avro.AvroLimits;
import dev.etl.deser.Deserializer;
import dev.etl.error.DeserializationException;
import dev.etl.error.ErrorClass;
import dev.etl.error.ErrorPolicy;
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
import dev.etl.test.memory.MemorySourceHandle;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.stream.LongStream;
import org.apache.avro.Schema;
import org.apache.avro.generic.GenericRecord;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * The issue's payloads as a user meets them: a writer schema that adds {@code junk: array<null>} to the
 * orders, one record whose {@code junk} claims 64 blocks of 2^31 - 9 nulls (323 bytes) and one whose
 * {@code junk} has a block count of {@code Long.MIN_VALUE}, between good orders, through a real pipeline
 * (memory source, lane, chain, capture sink): on the object path ({@code AvroDeserializer} with a reader
 * without {@code junk}, which skips it) and on the transcoder path ({@code AvroRowTranscoder} writing
 * {@code junk} to an {@code Array(Nullable(String))} column). Under {@code SKIP} every good order is
 * written, each hostile record is one skip in {@code etl_errors_total}, every offset commits and the
 * pipeline keeps running; under {@code FAIL} the pipeline fails naming the first, and nothing past it
 * commits.
 */
class HostilePayloadPipelineTest {
    private static final Duration WAIT = Duration.ofSeconds(30);
    /** Good orders before the first hostile record, between the two and after the second. */
    private static final int GOOD = 300;

    static final Schema WRITER = new Schema.Parser().parse("""
            {"type": "record", "name": "Order", "fields": [
              {"name": "id", "type": "int"},
              {"name": "junk", "type": {"type": "array", "items": "null"}},
              {"name": "qty", "type": "int"}]}""");
    static final Schema READER = new Schema.Parser().parse("""
            {"type": "record", "name": "Order", "fields": [
              {"name": "id", "type": "int"}, {"name": "qty", "type": "int"}]}""");

    private final MemorySource source = MemorySource.create();
    private final MemorySourceHandle handle = source.handle();
    private final SimpleMeterRegistry registry = new SimpleMeterRegistry();
    private final CaptureSink sink = CaptureSink.create("capture", 1);
    private PipelineRuntime runtime;

    @AfterEach
    void stop() throws InterruptedException {
        if (runtime != null) {
            runtime.shutdown();
            runtime.awaitTermination(WAIT);
        }
    }

    /** A good order: {@code id}, an empty {@code junk}, qty 1. */
    static byte[] good(int id) {
        return concat(HostileBodiesTest.varint(id), new byte[] {0, 2});
    }

    /** Order 0 whose {@code junk} claims 64 blocks of 2^31 - 9 nulls. */
    static byte[] zeroByteItems() {
        return concat(HostileBodiesTest.varint(0), HostileBodiesTest.hugeBlocks(64), new byte[] {2});
    }

    /** Order 0 whose {@code junk} has a block count of {@code Long.MIN_VALUE} (and a byte size 0). */
    static byte[] minCount() {
        return concat(HostileBodiesTest.varint(0), HostileBodiesTest.MIN_COUNT, new byte[] {0, 0, 2});
    }

    static byte[] concat(byte[]... parts) {
        int n = 0;
        for (byte[] p : parts) {
            n += p.length;
        }
        ByteBuffer out = ByteBuffer.allocate(n);
        for (byte[] p : parts) {
            out.put(p);
        }
        return out.array();
    }

    private void start(String name, ChainFactory chains, Map<ErrorClass, ErrorPolicy> policies) {
        PipelineConfig config = PipelineConfig.builder(name)
                .checkpointInterval(Duration.ofMillis(50))
                .pollTimeout(Duration.ofMillis(20))
                .drainTimeout(Duration.ofSeconds(5))
                .minPause(Duration.ofMillis(10))
                .classPolicies(policies)
                .build();
        runtime = Pipeline.builder(config)
                .source(source)
                .sink(sink.definition())
                .meterRegistry(registry)
                .chains(chains)
                .build();
        runtime.start();
    }

    /** Pushes the good orders around the two hostile ones; returns the first hostile one's offset. */
    private long push() {
        int id = 1;
        for (int i = 0; i < GOOD; i++) {
            handle.push(0, null, good(id++));
        }
        long bad = handle.push(0, null, zeroByteItems());
        for (int i = 0; i < GOOD; i++) {
            handle.push(0, null, good(id++));
        }
        handle.push(0, null, minCount());
        for (int i = 0; i < GOOD; i++) {
            handle.push(0, null, good(id++));
        }
        handle.assign(0, 0);
        return bad;
    }

    private static ChainFactory objectPath(ErrorPolicy policy) {
        return ctx -> Chains.from(
                        ctx, AvroDeserializer.generic(READER).raw(WRITER).build(), policy)
                .map("to-id", (GenericRecord r) -> r.get("id").toString())
                .sink(TestEncoders.string(), (value, meta, shards) -> 0);
    }

    private static ChainFactory transcoderPath() {
        AvroRowTranscoder.Builder orders = AvroRowTranscoder.raw(
                AvroRowMapping.builder(WRITER)
                        .column("id", "Int32")
                        .column("junk", "Array(Nullable(String))")
                        .column("qty", "Int32")
                        .build(),
                WRITER);
        return ctx -> Chains.from(ctx, Deserializer.payload()).sink(orders.build(), (value, meta, shards) -> 0);
    }

    private List<String> objectPathIds() {
        return sink.script().writes().stream()
                .flatMap(w -> TestEncoders.decodeStrings(w.bytes()).stream())
                .toList();
    }

    /** The transcoded rows' ids: each row is id (Int32), junk (an empty Array) and qty (Int32). */
    private List<String> transcodedIds() {
        List<String> ids = new ArrayList<>();
        for (var write : sink.script().writes()) {
            ByteBuffer rows = ByteBuffer.wrap(write.bytes()).order(ByteOrder.LITTLE_ENDIAN);
            while (rows.hasRemaining()) {
                ids.add(Integer.toString(rows.getInt()));
                assertThat(rows.get()).as("junk's length").isZero();
                assertThat(rows.getInt()).as("qty").isEqualTo(1);
            }
        }
        return ids;
    }

    private static List<String> goodIds() {
        return LongStream.rangeClosed(1, 3 * GOOD).mapToObj(Long::toString).toList();
    }

    private double errors(String stage, String errorType) {
        return registry.find("etl.errors").tag("stage", stage).tag("error_type", errorType).counters().stream()
                .mapToDouble(Counter::count)
                .sum();
    }

    @Test
    void onTheObjectPathUnderSkipEveryGoodOrderIsWrittenAndEachHostileRecordIsOneSkip() throws Exception {
        start("hostile-object-skip", objectPath(ErrorPolicy.SKIP), Map.of());
        push();

        assertThat(handle.awaitCommitted(0, 3 * GOOD + 2, WAIT)).isTrue();
        assertThat(objectPathIds()).containsExactlyElementsOf(goodIds());
        assertThat(errors("deserialize", "deserialization")).isEqualTo(2.0);
        assertThat(runtime.state()).isEqualTo(PipelineState.RUNNING);
    }

    @Test
    void onTheObjectPathUnderFailThePipelineFailsNamingTheHostileRecord() throws Exception {
        start("hostile-object-fail", objectPath(ErrorPolicy.FAIL), Map.of());
        long bad = push();

        RunReport report = runtime.awaitTermination(WAIT);

        assertThat(report.state()).isEqualTo(PipelineState.FAILED);
        assertThat(report.failure())
                .hasMessageContaining("stage 'deserialize' failed at memory-0@" + bad)
                .hasMessageContaining(AvroLimits.MAX_ZERO_BYTE_ITEMS_PROPERTY)
                .hasCauseInstanceOf(DeserializationException.class);
        assertThat(handle.lastCommitted(0)).isLessThanOrEqualTo(bad);
    }

    @Test
    void onTheTranscoderPathUnderSkipEveryGoodOrderIsWrittenAndEachHostileRecordIsOneSkip() throws Exception {
        start("hostile-transcode-skip", transcoderPath(), Map.of(ErrorClass.ENCODE, ErrorPolicy.SKIP));
        push();

        assertThat(handle.awaitCommitted(0, 3 * GOOD + 2, WAIT)).isTrue();
        assertThat(transcodedIds()).containsExactlyElementsOf(goodIds());
        assertThat(errors("sink-capture", "encode")).isEqualTo(2.0);
        assertThat(runtime.state()).isEqualTo(PipelineState.RUNNING);
    }

    @Test
    void onTheTranscoderPathUnderFailThePipelineFailsNamingTheHostileRecord() throws Exception {
        start("hostile-transcode-fail", transcoderPath(), Map.of(ErrorClass.ENCODE, ErrorPolicy.FAIL));
        long bad = push();

        RunReport report = runtime.awaitTermination(WAIT);

        assertThat(report.state()).isEqualTo(PipelineState.FAILED);
        assertThat(report.failure())
                .hasMessageContaining("stage 'sink-capture' failed at memory-0@" + bad)
                .hasMessageContaining(AvroLimits.MAX_ZERO_BYTE_ITEMS_PROPERTY)
                .hasRootCauseInstanceOf(DeserializationException.class);
        assertThat(handle.lastCommitted(0)).isLessThanOrEqualTo(bad);
    }
}
