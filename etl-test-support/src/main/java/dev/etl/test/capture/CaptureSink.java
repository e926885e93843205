package dev.etl.test.capture;

import dev.etl.error.ErrorPolicy;
import dev.etl.sink.BatchConfig;
import dev.etl.sink.RetryConfig;
import dev.etl.sink.SinkDefinition;
import java.time.Duration;

/**
 * A sink for tests that records every batch written to it, with a {@link CaptureScript} to inject
 * failures, latency and blocking per shard.
 *
 * <pre>{@code
 * CaptureSink capture = CaptureSink.create("capture", 2);
 * Pipeline.builder(config).sink(capture.definition())...;
 * capture.script().failNext(0, 3);         // next 3 writes of shard 0 fail transiently
 * assertThat(capture.script().rows()).hasSize(100);
 * }</pre>
 */
public final class CaptureSink {
    /** Small batches and quick retries, so tests observe writes promptly. */
    public static final BatchConfig TEST_BATCHING = new BatchConfig(10_000, 8L << 20, Duration.ofMillis(20));

    public static final RetryConfig TEST_RETRY =
            new RetryConfig(0, Duration.ofMillis(5), Duration.ofMillis(50), 2.0, 0.0);

    private final CaptureScript script;
    private final SinkDefinition definition;

    private CaptureSink(
            String name,
            int shards,
            BatchConfig batch,
            RetryConfig retry,
            int queueCapacity,
            ErrorPolicy permanentFailure) {
        this.script = new CaptureScript(shards);
        this.definition = SinkDefinition.builder(name, shards, script::writer)
                .batch(batch)
                .retry(retry)
                .queueCapacity(queueCapacity)
                .permanentFailure(permanentFailure)
                .build();
    }

    /** A capture sink with test-friendly batching (20 ms linger) and fast, unbounded retries. */
    public static CaptureSink create(String name, int shards) {
        return new CaptureSink(name, shards, TEST_BATCHING, TEST_RETRY, 64, ErrorPolicy.FAIL);
    }

    /** A capture sink with explicit settings. */
    public static CaptureSink create(
            String name,
            int shards,
            BatchConfig batch,
            RetryConfig retry,
            int queueCapacity,
            ErrorPolicy permanentFailure) {
        return new CaptureSink(name, shards, batch, retry, queueCapacity, permanentFailure);
    }

    /** The definition to add to a pipeline. */
    public SinkDefinition definition() {
        return definition;
    }

    /** The script: recorded writes and injected behaviour. */
    public CaptureScript script() {
        return script;
    }
}
