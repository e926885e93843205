package dev.etl.test.capture;

import dev.etl.error.SinkWriteException;
import dev.etl.sink.SealedBatch;
import dev.etl.sink.ShardWriter;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * The scripting side of a {@link CaptureSink}: what was written, and what the next writes of each
 * shard will do (fail transiently or permanently, take extra time, block until released).
 * Thread-safe: shard workers write while the test scripts and inspects.
 */
public final class CaptureScript {
    /** One successful write, with a copy of its bytes. */
    public record Write(int shard, long sequence, int rows, byte[] bytes, String dedupToken, int attempt) {}

    private final int shards;
    private final Object lock = new Object();
    private final List<Write> writes = new ArrayList<>();
    private final int[] failTransient;
    private final int[] failPermanent;
    private final long[] latencyNs;
    private final boolean[] blocked;
    private final long[] attempts;

    CaptureScript(int shards) {
        this.shards = shards;
        this.failTransient = new int[shards];
        this.failPermanent = new int[shards];
        this.latencyNs = new long[shards];
        this.blocked = new boolean[shards];
        this.attempts = new long[shards];
    }

    ShardWriter writer(int shard) {
        return batch -> write(shard, batch);
    }

    private void write(int shard, SealedBatch batch) {
        long latency;
        synchronized (lock) {
            attempts[shard]++;
            while (blocked[shard]) {
                try {
                    lock.wait(100);
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                    throw SinkWriteException.transientFailure(
                            "capture shard " + shard + " interrupted while blocked", e);
                }
            }
            if (failPermanent[shard] > 0) {
                failPermanent[shard]--;
                throw SinkWriteException.permanentFailure("scripted permanent failure on capture shard " + shard, null);
            }
            if (failTransient[shard] > 0) {
                failTransient[shard]--;
                throw SinkWriteException.transientFailure("scripted transient failure on capture shard " + shard, null);
            }
            latency = latencyNs[shard];
        }
        if (latency > 0) {
            try {
                TimeUnit.NANOSECONDS.sleep(latency);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw SinkWriteException.transientFailure("capture shard " + shard + " interrupted", e);
            }
        }
        byte[] copy = new byte[batch.byteCount()];
        System.arraycopy(batch.bytes(), 0, copy, 0, copy.length);
        synchronized (lock) {
            writes.add(new Write(shard, batch.sequence(), batch.rowCount(), copy, batch.dedupToken(), batch.attempt()));
            lock.notifyAll();
        }
    }

    /** The next {@code count} writes of {@code shard} fail with a transient error (they are retried). */
    public CaptureScript failNext(int shard, int count) {
        synchronized (lock) {
            failTransient[check(shard)] += count;
        }
        return this;
    }

    /** The next {@code count} writes of {@code shard} fail with a permanent error. */
    public CaptureScript failNextPermanently(int shard, int count) {
        synchronized (lock) {
            failPermanent[check(shard)] += count;
        }
        return this;
    }

    /** Every later write of {@code shard} takes {@code latency} longer. */
    public CaptureScript latency(int shard, Duration latency) {
        synchronized (lock) {
            latencyNs[check(shard)] = latency.toNanos();
        }
        return this;
    }

    /** Writes of {@code shard} block (inside the writer) until {@link #release(int)}. */
    public CaptureScript block(int shard) {
        synchronized (lock) {
            blocked[check(shard)] = true;
        }
        return this;
    }

    /** Unblocks {@code shard}. */
    public CaptureScript release(int shard) {
        synchronized (lock) {
            blocked[check(shard)] = false;
            lock.notifyAll();
        }
        return this;
    }

    /**
     * Cancels every scripted fault of {@code shard}: failures not yet consumed by a write and the latency
     * (a blocked shard stays blocked until {@link #release(int)}).
     */
    public CaptureScript clearFaults(int shard) {
        synchronized (lock) {
            failTransient[check(shard)] = 0;
            failPermanent[shard] = 0;
            latencyNs[shard] = 0;
        }
        return this;
    }

    /** Every successful write so far, in completion order. */
    public List<Write> writes() {
        synchronized (lock) {
            return List.copyOf(writes);
        }
    }

    /** Rows written so far to {@code shard} (every successful write, including any duplicates). */
    public long rows(int shard) {
        synchronized (lock) {
            return writes.stream()
                    .filter(w -> w.shard() == shard)
                    .mapToLong(Write::rows)
                    .sum();
        }
    }

    /** Rows written so far over all shards. */
    public long rows() {
        synchronized (lock) {
            return writes.stream().mapToLong(Write::rows).sum();
        }
    }

    /** Write attempts so far on {@code shard}, failed ones included. */
    public long attempts(int shard) {
        synchronized (lock) {
            return attempts[check(shard)];
        }
    }

    /** Waits until at least {@code rows} rows were written over all shards; false on timeout. */
    public boolean awaitRows(long rows, Duration timeout) throws InterruptedException {
        long deadline = System.nanoTime() + timeout.toNanos();
        synchronized (lock) {
            while (writes.stream().mapToLong(Write::rows).sum() < rows) {
                long remainingMs = (deadline - System.nanoTime()) / 1_000_000L;
                if (remainingMs <= 0) {
                    return false;
                }
                lock.wait(remainingMs);
            }
            return true;
        }
    }

    private int check(int shard) {
        if (shard < 0 || shard >= shards) {
            throw new IllegalArgumentException("capture sink has shards 0.." + (shards - 1) + ", got " + shard);
        }
        return shard;
    }
}
