package dev.etl.internal.sink;

import dev.etl.error.FatalPipelineException;
import dev.etl.internal.backpressure.InFlightBudget;
import dev.etl.internal.checkpoint.AckQueue;
import dev.etl.sink.BatchConfig;
import dev.etl.sink.RetryConfig;
import dev.etl.sink.SinkDefinition;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.time.Duration;
import java.util.List;
import java.util.Random;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.LongSupplier;

/** Shared set-up of sink runtime tests: one writer for all shards, a budget, a registry, an ack queue. */
final class SinkFixture implements AutoCloseable {
    private static final AtomicInteger PIPELINES = new AtomicInteger();

    final String pipeline = "p" + PIPELINES.incrementAndGet();
    final AckQueue acks = new AckQueue();
    final SimpleMeterRegistry registry = new SimpleMeterRegistry();
    final RecordingShardWriter writer = new RecordingShardWriter();
    final List<FatalPipelineException> fatals = new CopyOnWriteArrayList<>();
    InFlightBudget budget = new InFlightBudget(1 << 20);
    /** The clock linger, backoff and deadlines are read on; a test may drive its own. */
    LongSupplier clock = SYSTEM_CLOCK;

    private static final LongSupplier SYSTEM_CLOCK = System::nanoTime;

    /** How long idle io threads sleep at most on the JVM's clock (production's by default). */
    long maxIdleSleepNs = SinkRuntime.Threads.IDLE_SLEEP_NS;

    int ioThreads = 2;
    SinkRuntime sink;

    static SinkDefinition definition(
            int shards, RecordingShardWriter writer, int maxRows, long maxBytes, Duration linger) {
        return SinkDefinition.builder("orders", shards, shard -> writer)
                .batch(new BatchConfig(maxRows, maxBytes, linger))
                .retry(new RetryConfig(0, Duration.ofMillis(1), Duration.ofMillis(5), 2.0, 0.2))
                .queueCapacity(8)
                .build();
    }

    SinkDefinition definition(int shards, int maxRows, Duration linger) {
        return definition(shards, writer, maxRows, 1 << 20, linger);
    }

    SinkRuntime create(SinkDefinition definition) {
        SinkRuntime.Threads system = SinkRuntime.Threads.system(clock, new Random(42));
        // On the JVM's clock idle io threads sleep as in production (until a linger or retry, or a hand-off);
        // a hand-driven clock is one their parks know nothing of (Threads.system's short sleeps).
        SinkRuntime.Threads threads = clock != SYSTEM_CLOCK
                ? system
                : new SinkRuntime.Threads(
                        clock,
                        system.jitter(),
                        system.threads(),
                        system.joiner(),
                        system.park(),
                        system.unpark(),
                        maxIdleSleepNs);
        sink = new SinkRuntime(pipeline, definition, budget, ioThreads, registry, fatals::add, threads);
        return sink;
    }

    SinkRuntime start(SinkDefinition definition) {
        create(definition).start();
        return sink;
    }

    double counter(String name, String... tags) {
        return registry.get(name).tags(tags).counters().stream()
                .mapToDouble(c -> c.count())
                .sum();
    }

    @Override
    public void close() {
        if (sink != null) {
            sink.close();
        }
    }
}
