package dev.etl.test.pipeline;

import dev.etl.deser.Deserializer;
import dev.etl.ops.ChainFactory;
import dev.etl.ops.Chains;
import dev.etl.pipeline.Pipeline;
import dev.etl.pipeline.PipelineConfig;
import dev.etl.pipeline.PipelineRuntime;
import dev.etl.sink.Router;
import dev.etl.test.capture.CaptureSink;
import dev.etl.test.capture.TestEncoders;
import dev.etl.test.memory.MemorySource;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.function.BooleanSupplier;
import org.jspecify.annotations.Nullable;

/**
 * Shared set-up for pipeline behaviour tests: a memory source, a capture sink, short intervals (public for
 * the guide tests of {@code dev.etl.test.guide}).
 */
public final class PipelineFixture {
    public static final Duration WAIT = Duration.ofSeconds(20);

    private PipelineFixture() {}

    /** Config with fast commits and polls, so tests observe effects quickly. */
    public static PipelineConfig.Builder fastConfig(String name) {
        return PipelineConfig.builder(name)
                .checkpointInterval(Duration.ofMillis(50))
                .pollTimeout(Duration.ofMillis(20))
                .drainTimeout(Duration.ofSeconds(5))
                .minPause(Duration.ofMillis(10));
    }

    /** Routes every record of partition p to shard p % shards. */
    static <T> Router<T> byPartition() {
        return (value, meta, shardCount) -> meta.partition() % shardCount;
    }

    /** Values as UTF-8 strings; "bad" payloads throw. */
    static Deserializer<String> strings() {
        return (key, value, meta, out) -> {
            String s = value.toUtf8String();
            if (s.startsWith("bad")) {
                throw new IllegalArgumentException("payload '" + s + "' is not a valid record");
            }
            out.collect(s);
        };
    }

    public static ChainFactory passThrough() {
        return ctx -> Chains.from(ctx, strings()).sink(TestEncoders.string(), byPartition());
    }

    public static PipelineRuntime build(
            PipelineConfig config,
            MemorySource source,
            CaptureSink sink,
            ChainFactory chains,
            SimpleMeterRegistry registry) {
        return Pipeline.builder(config)
                .source(source)
                .sink(sink.definition())
                .chains(chains)
                .meterRegistry(registry)
                .build();
    }

    /** Shuts {@code runtime} down, if built, and waits for its end (an {@code @AfterEach}). */
    public static void stop(@Nullable PipelineRuntime runtime) throws InterruptedException {
        if (runtime != null) {
            runtime.shutdown();
            runtime.awaitTermination(WAIT);
        }
    }

    static byte[] utf8(String s) {
        return s.getBytes(StandardCharsets.UTF_8);
    }

    /** Polls {@code condition} until true or the timeout passes; returns the last value. */
    static boolean eventually(BooleanSupplier condition, Duration timeout) throws InterruptedException {
        long deadline = System.nanoTime() + timeout.toNanos();
        while (System.nanoTime() < deadline) {
            if (condition.getAsBoolean()) {
                return true;
            }
            Thread.sleep(5);
        }
        return condition.getAsBoolean();
    }
}
