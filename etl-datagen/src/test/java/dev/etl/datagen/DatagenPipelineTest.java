package dev.etl.datagen;

import static org.assertj.core.api.Assertions.assertThat;

import dev.etl.avro.AvroDeserializer;
import dev.etl.avro.SchemaRegistryClient;
import dev.etl.deser.Deserializer;
import dev.etl.ops.ChainFactory;
import dev.etl.ops.Chains;
import dev.etl.pipeline.Pipeline;
import dev.etl.pipeline.PipelineConfig;
import dev.etl.pipeline.PipelineRuntime;
import dev.etl.pipeline.PipelineState;
import dev.etl.pipeline.RunReport;
import dev.etl.sink.KeyHashRouter;
import dev.etl.test.avro.StubSchemaRegistry;
import dev.etl.test.capture.CaptureSink;
import dev.etl.test.capture.TestEncoders;
import java.time.Duration;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** The datagen source under a real pipeline: capture sink, acks, commits, backpressure, the end of a bounded run. */
class DatagenPipelineTest {

    static final ChainFactory POSITIONS =
            ctx -> Chains.from(ctx, Deserializer.payload()).sink(CapturedRows.POSITION, KeyHashRouter.byRecordKey());

    static PipelineConfig.Builder config(int lanes) {
        return PipelineConfig.builder("datagen-test")
                .lanes(lanes)
                .checkpointInterval(Duration.ofMillis(20))
                .pollTimeout(Duration.ofMillis(10))
                .drainTimeout(Duration.ofSeconds(10))
                .minPause(Duration.ofMillis(5));
    }

    static void assertEveryRecordOnce(DatagenSource source, CaptureSink sink) {
        Map<Long, Integer> counts = CapturedRows.counts(sink.script());
        long expected = 0;
        for (int p = 0; p < source.partitions(); p++) {
            for (long offset = 0; offset < source.endOffset(p); offset++) {
                assertThat(counts.get(CapturedRows.key(p, offset)))
                        .as("datagen-%d offset %d written once", p, offset)
                        .isEqualTo(1);
            }
            expected += source.endOffset(p);
            assertThat(source.committedOffset(p))
                    .as("partition %d committed to its end", p)
                    .isEqualTo(source.endOffset(p));
        }
        assertThat(counts).hasSize((int) expected);
    }

    @Test
    void aBoundedRunWritesEveryRecordOnceCommitsItAndEndsWithExitCodeZero() throws Exception {
        PipelineConfig config = config(2).build();
        DatagenSource source = DatagenSource.builder(DatagenSourceTest.ID_AND_RANDOM)
                .partitions(5)
                .records(40_000)
                .lanes(config.lanes())
                .maxPollRecords(700)
                .build();
        CaptureSink sink = CaptureSink.create("capture", 2);
        PipelineRuntime runtime = Pipeline.builder(config)
                .source(source)
                .sink(sink.definition())
                .chains(POSITIONS)
                .build();
        source.onDone(runtime::shutdown);

        runtime.start();
        RunReport report = runtime.awaitTermination(Duration.ofSeconds(60));

        assertThat(report).as("the run ended by itself").isNotNull();
        assertThat(report.state()).isEqualTo(PipelineState.STOPPED);
        assertThat(report.exitCode()).isZero();
        assertThat(report.recordsIn()).isEqualTo(40_000);
        assertThat(source.isDone()).isTrue();
        assertEveryRecordOnce(source, sink);
    }

    @Test
    void aBlockedSinkPausesTheSourceAndOnceReleasedNothingIsLostOrDuplicated() throws Exception {
        PipelineConfig config = config(1).maxInFlightBytes(64 * 1024).build();
        DatagenSource source = DatagenSource.builder(DatagenSourceTest.ID_AND_RANDOM)
                .partitions(2)
                .records(200_000)
                .maxPollRecords(500)
                .build();
        CaptureSink sink = CaptureSink.create("capture", 1);
        sink.script().block(0);
        PipelineRuntime runtime = Pipeline.builder(config)
                .source(source)
                .sink(sink.definition())
                .chains(POSITIONS)
                .build();
        source.onDone(runtime::shutdown);
        runtime.start();

        long stalled = awaitStable(source, Duration.ofSeconds(20));
        assertThat(stalled)
                .as("the source stopped generating while the sink was blocked")
                .isLessThan(200_000);
        Thread.sleep(200);
        assertThat(source.generated())
                .as("paused: no more records while blocked")
                .isEqualTo(stalled);

        sink.script().release(0);
        RunReport report = runtime.awaitTermination(Duration.ofSeconds(60));
        assertThat(report).isNotNull();
        assertThat(report.exitCode()).isZero();
        assertEveryRecordOnce(source, sink);
    }

    /** Waits until generated() stops moving for 300 ms; returns it. */
    private static long awaitStable(DatagenSource source, Duration timeout) throws InterruptedException {
        long deadline = System.nanoTime() + timeout.toNanos();
        long last = -1;
        long since = System.nanoTime();
        while (System.nanoTime() < deadline) {
            long now = source.generated();
            if (now != last) {
                last = now;
                since = System.nanoTime();
            } else if (now > 0 && System.nanoTime() - since > 300_000_000L) {
                return now;
            }
            Thread.sleep(10);
        }
        throw new AssertionError("datagen never stopped generating (" + last + " records) against a blocked sink");
    }

    @Test
    void transientSinkFailuresAreRetriedAndTheRunStillWritesEveryRecordOnce() throws Exception {
        PipelineConfig config = config(2).build();
        DatagenSource source = DatagenSource.builder(DatagenSourceTest.ID_AND_RANDOM)
                .partitions(4)
                .records(10_000)
                .lanes(2)
                .maxPollRecords(300)
                .build();
        CaptureSink sink = CaptureSink.create("capture", 2);
        sink.script().failNext(0, 3).failNext(1, 2);
        PipelineRuntime runtime = Pipeline.builder(config)
                .source(source)
                .sink(sink.definition())
                .chains(POSITIONS)
                .build();
        source.onDone(runtime::shutdown);
        runtime.start();
        RunReport report = runtime.awaitTermination(Duration.ofSeconds(60));
        assertThat(report).isNotNull();
        assertThat(report.exitCode()).isZero();
        assertThat(sink.script().attempts(0)).isGreaterThan(3);
        assertEveryRecordOnce(source, sink);
    }

    @Test
    void aRateLimitedRunTakesAboutAsLongAsItsRateSays() throws Exception {
        PipelineConfig config = config(1).build();
        DatagenSource source = DatagenSource.builder(DatagenSourceTest.ID_AND_RANDOM)
                .partitions(2)
                .records(3_000)
                .ratePerSecond(2_000)
                .build();
        CaptureSink sink = CaptureSink.create("capture", 1);
        PipelineRuntime runtime = Pipeline.builder(config)
                .source(source)
                .sink(sink.definition())
                .chains(POSITIONS)
                .build();
        source.onDone(runtime::shutdown);
        long start = System.nanoTime();
        runtime.start();
        Thread.sleep(500);
        long atHalfSecond = source.generated();
        RunReport report = runtime.awaitTermination(Duration.ofSeconds(60));
        long elapsedMs = (System.nanoTime() - start) / 1_000_000;

        assertThat(report.exitCode()).isZero();
        assertThat(atHalfSecond)
                .as("about 1,000 after 0.5 s at 2,000/s; never ahead of the schedule")
                .isLessThanOrEqualTo(1_100)
                .isGreaterThan(0);
        assertThat(elapsedMs).as("3,000 records at 2,000/s take at least 1.5 s").isGreaterThanOrEqualTo(1_450);
        assertEveryRecordOnce(source, sink);
    }

    @Test
    void avroValuesInTheConfluentFormatRunThroughAvroDeserializerEndToEnd() throws Exception {
        org.apache.avro.Schema schema = AvroRecordGeneratorTest.everyType();
        try (StubSchemaRegistry registry = StubSchemaRegistry.start()) {
            int id = registry.register("datagen-value", schema);
            SchemaRegistryClient client =
                    SchemaRegistryClient.builder(registry.url()).build();
            AvroDeserializer.Builder<org.apache.avro.generic.GenericRecord> avro =
                    AvroDeserializer.generic(schema).confluent(client);
            ChainFactory chain = ctx -> Chains.from(ctx, avro.build())
                    .map("id", (r) -> Long.toString((long) r.get("id")))
                    .sink(TestEncoders.string(), KeyHashRouter.byRecordKey());
            PipelineConfig config = config(2).build();
            DatagenSource source = DatagenSource.builder(
                            AvroRecordGenerator.builder(schema).confluent(id).build())
                    .partitions(4)
                    .records(5_000)
                    .lanes(2)
                    .seed(3)
                    .build();
            CaptureSink sink = CaptureSink.create("capture", 2);
            PipelineRuntime runtime = Pipeline.builder(config)
                    .source(source)
                    .sink(sink.definition())
                    .chains(chain)
                    .build();
            source.onDone(runtime::shutdown);
            runtime.start();
            RunReport report = runtime.awaitTermination(Duration.ofSeconds(60));

            assertThat(report.exitCode()).isZero();
            java.util.List<String> ids = new java.util.ArrayList<>();
            sink.script().writes().forEach((w) -> ids.addAll(TestEncoders.decodeStrings(w.bytes())));
            assertThat(ids).hasSize(5_000).doesNotHaveDuplicates();
            assertThat(ids.stream().mapToLong(Long::parseLong).max()).hasValue(4_999);
        }
    }
}
