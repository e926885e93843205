package dev.etl.clickhouse;

import static org.assertj.core.api.Assertions.assertThat;

import dev.etl.error.FatalPipelineException;
import dev.etl.internal.backpressure.InFlightBudget;
import dev.etl.internal.checkpoint.AckQueue;
import dev.etl.internal.checkpoint.AckRef;
import dev.etl.internal.sink.Chunk;
import dev.etl.internal.sink.SinkRuntime;
import dev.etl.sink.BatchConfig;
import dev.etl.sink.RetryConfig;
import dev.etl.sink.SinkDefinition;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.BooleanSupplier;
import org.junit.jupiter.api.Test;

/**
 * Fault injection through the whole sink path: the ClickHouse writer's half-open probe dies with an
 * {@code Error} inside the transport. The batch's acks fail (retries exhausted), the budget comes back,
 * the breaker is open again rather than stuck half-open, and the next probe recovers it.
 */
class ClickHouseProbeErrorSinkTest {
    private static final String A = "http://127.0.0.1:18123";

    private static void await(String what, BooleanSupplier condition) throws InterruptedException {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
        while (!condition.getAsBoolean()) {
            if (System.nanoTime() - deadline >= 0) {
                throw new AssertionError("timed out waiting for " + what);
            }
            Thread.sleep(1);
        }
    }

    @Test
    void anErrorInTheProbeFailsTheAttemptReopensTheBreakerAndTheNextProbeRecovers() throws Exception {
        FakeTransport transport = new FakeTransport();
        AtomicLong clock = new AtomicLong(1_000_000_000L);
        SimpleMeterRegistry registry = new SimpleMeterRegistry();
        ClickHouseSinkConfig config = ClickHouseSinkConfig.builder()
                .table("shop", "orders")
                .shard(A)
                .breaker(1, Duration.ofSeconds(5))
                .build();
        ClickHouseShardWriter writer = new ClickHouseShardWriter(
                config, 0, "orders", "p1", ClickHouseCapabilities.legacy("18.16.1"), transport, registry, clock::get);
        // Open the breaker, then let the open time pass: the next request is the half-open probe.
        transport.down(A);
        try {
            writer.write(TestBatch.of(0, 1));
        } catch (RuntimeException expected) {
            // the failure that opens the breaker
        }
        assertThat(writer.replicaStatus().get(0).state()).isEqualTo(ClickHouseShardWriter.BreakerState.OPEN);
        transport.up(A);
        clock.addAndGet(TimeUnit.SECONDS.toNanos(5));
        transport.throwNext(A, new OutOfMemoryError("injected in the probe"));

        InFlightBudget budget = new InFlightBudget(1 << 20);
        AckQueue acks = new AckQueue();
        List<FatalPipelineException> fatals = new CopyOnWriteArrayList<>();
        SinkDefinition definition = SinkDefinition.builder("orders", 1, shard -> writer)
                .batch(new BatchConfig(1000, 1 << 20, Duration.ZERO))
                .retry(new RetryConfig(1, Duration.ofMillis(1), Duration.ofMillis(1), 2.0, 0.0))
                .queueCapacity(8)
                .build();
        try (SinkRuntime sink =
                new SinkRuntime("p1", definition, budget, 1, registry, fatals::add, System::nanoTime, new Random(1))) {
            sink.start();
            AckRef ack = new AckRef(0, 0, 0, acks);
            Chunk chunk = sink.newChunk(0);
            chunk.rows().writeLongLE(42);
            chunk.addRow(ack);
            ack.release(true);
            assertThat(sink.tryHandOff(chunk)).isTrue();

            await("the batch to be settled", sink::isIdle);
            List<AckRef> posted = new ArrayList<>();
            acks.drain(posted::add);
            assertThat(posted).containsExactly(ack);
            assertThat(ack.succeeded())
                    .as("one attempt, and it died with an Error: acks fail")
                    .isFalse();
            assertThat(budget.inFlightBytes()).isZero();
            assertThat(writer.replicaStatus().get(0).state())
                    .as("not stuck half-open")
                    .isEqualTo(ClickHouseShardWriter.BreakerState.OPEN);
            assertThat(fatals).as("a failed attempt, not an io-thread failure").isEmpty();

            clock.addAndGet(TimeUnit.SECONDS.toNanos(5));
            AckRef next = new AckRef(0, 0, 1, acks);
            Chunk retry = sink.newChunk(0);
            retry.rows().writeLongLE(43);
            retry.addRow(next);
            next.release(true);
            assertThat(sink.tryHandOff(retry)).isTrue();
            await("the next batch", sink::isIdle);
            assertThat(next.succeeded()).isTrue();
            assertThat(writer.replicaStatus().get(0).state())
                    .as("the next probe recovered the replica")
                    .isEqualTo(ClickHouseShardWriter.BreakerState.CLOSED);
        }
    }
}
