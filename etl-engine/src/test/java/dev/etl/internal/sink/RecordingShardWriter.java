package dev.etl.internal.sink;

import dev.etl.error.SinkWriteException;
import dev.etl.sink.SealedBatch;
import dev.etl.sink.ShardWriter;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * A fake shard writer that copies every batch it is given (attempts and successes) and whose
 * behaviour a test scripts. Thread-safe: one instance may serve every shard.
 */
final class RecordingShardWriter implements ShardWriter {
    /** What one write call does after it has been recorded; throw to fail it. */
    @FunctionalInterface
    interface Behaviour {
        void onWrite(SealedBatch batch, int call) throws SinkWriteException;
    }

    /** A copy of a batch as a writer saw it. */
    record Written(int shard, long sequence, int attempt, String token, byte[] bytes, int rows) {
        long[] values() {
            long[] values = new long[bytes.length / 8];
            java.nio.ByteBuffer buffer = java.nio.ByteBuffer.wrap(bytes).order(java.nio.ByteOrder.LITTLE_ENDIAN);
            for (int i = 0; i < values.length; i++) {
                values[i] = buffer.getLong();
            }
            return values;
        }
    }

    private final List<Written> attempts = new ArrayList<>();
    private final List<Written> successes = new ArrayList<>();
    private final AtomicInteger calls = new AtomicInteger();
    private final AtomicInteger closes = new AtomicInteger();
    private volatile Behaviour behaviour = (batch, call) -> {};

    static RecordingShardWriter healthy() {
        return new RecordingShardWriter();
    }

    RecordingShardWriter behave(Behaviour behaviour) {
        this.behaviour = behaviour;
        return this;
    }

    /** Fails the first {@code n} calls transiently, then succeeds. */
    RecordingShardWriter failFirst(int n, boolean transientFailure) {
        return behave((batch, call) -> {
            if (call < n) {
                throw new SinkWriteException(transientFailure, "scripted failure " + call, null);
            }
        });
    }

    /** Blocks every call until {@code release} opens (bounded by 30 s), then succeeds. */
    RecordingShardWriter blockUntil(CountDownLatch release) {
        return behave((batch, call) -> {
            try {
                if (!release.await(30, TimeUnit.SECONDS)) {
                    throw SinkWriteException.transientFailure("test latch never opened", null);
                }
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw SinkWriteException.transientFailure("interrupted", e);
            }
        });
    }

    @Override
    public void write(SealedBatch batch) throws SinkWriteException {
        Written copy = new Written(
                batch.shard(),
                batch.sequence(),
                batch.attempt(),
                batch.dedupToken(),
                Arrays.copyOf(batch.bytes(), batch.byteCount()),
                batch.rowCount());
        synchronized (this) {
            attempts.add(copy);
        }
        behaviour.onWrite(batch, calls.getAndIncrement());
        synchronized (this) {
            successes.add(copy);
        }
    }

    synchronized List<Written> attempts() {
        return List.copyOf(attempts);
    }

    synchronized List<Written> successes() {
        return List.copyOf(successes);
    }

    synchronized int successfulRows() {
        return successes.stream().mapToInt(Written::rows).sum();
    }

    int calls() {
        return calls.get();
    }

    int closes() {
        return closes.get();
    }

    @Override
    public void close() {
        closes.incrementAndGet();
    }
}
