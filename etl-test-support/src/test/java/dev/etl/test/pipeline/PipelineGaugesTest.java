package dev.etl.test.pipeline;

import static dev.etl.test.pipeline.PipelineFixture.WAIT;
import static dev.etl.test.pipeline.PipelineFixture.build;
import static dev.etl.test.pipeline.PipelineFixture.byPartition;
import static dev.etl.test.pipeline.PipelineFixture.fastConfig;
import static dev.etl.test.pipeline.PipelineFixture.strings;
import static dev.etl.test.pipeline.PipelineFixture.utf8;
import static org.assertj.core.api.Assertions.assertThat;

import dev.etl.ops.Chains;
import dev.etl.pipeline.PipelineRuntime;
import dev.etl.test.capture.CaptureSink;
import dev.etl.test.capture.TestEncoders;
import dev.etl.test.memory.MemorySource;
import dev.etl.test.memory.MemorySourceHandle;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.lang.ref.WeakReference;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * Every gauge of a running pipeline keeps reading its value after garbage collections. Micrometer holds a
 * gauge's object weakly: a gauge over an object that only the gauge references reads NaN after the next
 * collection (etl_sink_queue_chunks did, over the array of a shard's writers' queues).
 */
class PipelineGaugesTest {
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

    @Test
    void everyGaugeStillReadsAfterGarbageCollections() throws Exception {
        CaptureSink sink = CaptureSink.create("capture", 2);
        runtime = build(
                fastConfig("gauges").build(),
                source,
                sink,
                ctx -> Chains.from(ctx, strings()).sink(TestEncoders.string(), byPartition()),
                registry);
        runtime.start();
        handle.assign(0, 0, 1);
        for (int i = 0; i < 20; i++) {
            handle.push(i % 2, null, utf8("v" + i));
        }
        assertThat(handle.awaitCommitted(0, 10, WAIT)).isTrue();
        assertThat(handle.awaitCommitted(1, 10, WAIT)).isTrue();

        collectGarbage();

        List<Gauge> gauges = registry.getMeters().stream()
                .filter(Gauge.class::isInstance)
                .map(Gauge.class::cast)
                .filter(g -> g.getId().getName().startsWith("etl."))
                .toList();
        assertThat(gauges)
                .extracting(g -> g.getId().getName())
                .contains("etl.pipeline.state", "etl.sink.queue.chunks", "etl.backpressure.in.flight.bytes");
        assertThat(gauges)
                .as("gauges reading NaN after a collection")
                .filteredOn(g -> Double.isNaN(g.value()))
                .extracting(g -> g.getId().toString())
                .isEmpty();
    }

    /** Runs collections until a weakly held object is gone (at most 50). */
    private static void collectGarbage() {
        WeakReference<Object> sentinel = new WeakReference<>(new Object());
        for (int i = 0; i < 50 && sentinel.get() != null; i++) {
            System.gc();
        }
        assertThat(sentinel.get()).as("a collection ran").isNull();
    }
}
