package dev.etl.internal.sink;

import dev.etl.internal.checkpoint.AckQueue;
import dev.etl.internal.checkpoint.AckRef;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.function.BooleanSupplier;
import org.agrona.collections.IntArrayList;

/**
 * Plays a lane for sink tests: creates one ack per chunk (as a poll batch would), encodes rows as
 * 8-byte little-endian values, and collects the acks the sink posts. Thread-safe enough for one
 * producing thread per instance; several instances may share one {@link AckQueue}.
 *
 * <p>A {@link #pooled pooled} lane instead owns its queue and takes its acks from the queue's pool,
 * as a real lane does: its producing thread {@link #drainPosted() drains} it, which checks and
 * counts every posted ack and recycles it for a later chunk.
 */
final class TestLane {
    private final AckQueue acks;
    private final int partition;
    private final boolean pooled;
    private final List<AckRef> created = new ArrayList<>();
    private long seq;
    // Pooled lanes, by seq: the generation of the ack the chunk took, and how often it was posted.
    private final IntArrayList generations = new IntArrayList();
    private final IntArrayList postings = new IntArrayList();
    private long posted;
    private long failed;

    TestLane(AckQueue acks, int partition) {
        this(acks, partition, false);
    }

    private TestLane(AckQueue acks, int partition, boolean pooled) {
        this.acks = acks;
        this.partition = partition;
        this.pooled = pooled;
    }

    /** A lane with its own queue whose acks are pooled; only its producing thread may drain it. */
    static TestLane pooled(int partition) {
        return new TestLane(new AckQueue(), partition, true);
    }

    /** A chunk for {@code shard} with {@code rows} rows valued {@code first, first + 1, ...}, holding one new ack. */
    Chunk chunk(SinkRuntime sink, int shard, long first, int rows) {
        AckRef ack;
        if (pooled) {
            ack = acks.acquire(partition, 0, seq++);
            generations.addInt(ack.generation());
            postings.addInt(0);
        } else {
            ack = new AckRef(partition, 0, seq++, acks);
            synchronized (created) {
                created.add(ack);
            }
        }
        Chunk chunk = sink.newChunk(shard);
        for (int i = 0; i < rows; i++) {
            chunk.rows().writeLongLE(first + i);
            chunk.addRow(ack);
        }
        ack.release(true); // the lane's own hold: the chunk now decides the outcome
        return chunk;
    }

    /**
     * Pooled lanes: drains the lane's queue, checking that each ack is posted once, by the generation
     * its chunk took, with no reference left, and counting it. The producing thread only (or another
     * thread after joining it).
     */
    void drainPosted() {
        acks.drain(ack -> {
            int s = (int) ack.seq();
            if (ack.partition() != partition || s >= postings.size()) {
                throw new AssertionError("lane " + partition + " drained a foreign ack " + ack);
            }
            if (ack.generation() != generations.getInt(s) || ack.refCount() != 0) {
                throw new AssertionError("lane " + partition + " seq " + s + ": posted " + ack
                        + ", taken as generation " + generations.getInt(s));
            }
            postings.setInt(s, postings.getInt(s) + 1);
            posted++;
            if (!ack.succeeded()) {
                failed++;
            }
        });
    }

    /** Pooled lanes: acks taken and not yet drained. */
    long outstanding() {
        return seq - posted;
    }

    /** Pooled lanes: how often the ack of each chunk was posted, by seq. */
    IntArrayList postings() {
        return postings;
    }

    /** Pooled lanes: acks drained with a failed status. */
    long failed() {
        return failed;
    }

    /** The lane's queue. */
    AckQueue queue() {
        return acks;
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
