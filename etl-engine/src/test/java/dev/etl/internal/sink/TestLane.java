package dev.etl.internal.sink;

import dev.etl.internal.checkpoint.AckQueue;
import dev.etl.internal.checkpoint.AckRef;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.function.BooleanSupplier;

/**
 * Plays a lane for sink tests: creates one ack per chunk (as a poll batch would), encodes rows as
 * 8-byte little-endian values, and collects the acks the sink posts. Thread-safe enough for one
 * producing thread per instance; several instances may share one {@link AckQueue}.
 */
final class TestLane {
    private final AckQueue acks;
    private final int partition;
    private final List<AckRef> created = new ArrayList<>();
    private long seq;

    TestLane(AckQueue acks, int partition) {
        this.acks = acks;
        this.partition = partition;
    }

    /** A chunk for {@code shard} with {@code rows} rows valued {@code first, first + 1, ...}, holding one new ack. */
    Chunk chunk(SinkRuntime sink, int shard, long first, int rows) {
        AckRef ack = new AckRef(partition, 0, seq++, acks);
        synchronized (created) {
            created.add(ack);
        }
        Chunk chunk = sink.newChunk(shard);
        for (int i = 0; i < rows; i++) {
            chunk.rows().writeLongLE(first + i);
            chunk.addRow(ack);
        }
        ack.release(true); // the lane's own hold: the chunk now decides the outcome
        return chunk;
    }

    List<AckRef> created() {
        synchronized (created) {
            return List.copyOf(created);
        }
    }

    /** Every ack posted so far to {@code queue}. */
    static List<AckRef> drain(AckQueue queue) {
        List<AckRef> posted = new ArrayList<>();
        queue.drain(posted::add);
        return posted;
    }

    /** Polls {@code condition} every millisecond; fails the test after {@code timeout}. */
    static void await(String what, Duration timeout, BooleanSupplier condition) {
        long deadline = System.nanoTime() + timeout.toNanos();
        while (!condition.getAsBoolean()) {
            if (System.nanoTime() - deadline >= 0) {
                throw new AssertionError("timed out after " + timeout + " waiting for " + what);
            }
            try {
                Thread.sleep(1);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new AssertionError("interrupted waiting for " + what, e);
            }
        }
    }
}
