package dev.etl.s3;

import java.io.IOException;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Reads the work items of one assigned work-topic partition, in offset order, on a thread of its own,
 * into a fixed set of {@link RowSegment}s (the partition's read-ahead): the lane takes published
 * segments without waiting and gives them back once their rows went through the chain. When the lane is
 * behind (sink backpressure, a held partition), the segments run out and this thread waits; the lane
 * never waits for object storage.
 *
 * <p>A storage failure retries the item from the first row not yet handed over (a format reads the same
 * rows in the same order every time), with backoff, up to the configured attempts; then the failure is
 * handed to the lane, which fails the pipeline (the item replays after a restart). A corrupt split ends
 * the item with its cause; the lane applies the corrupt-split policy.
 */
final class PartitionReader implements Runnable, RowOutput {
    private static final Logger log = LoggerFactory.getLogger(PartitionReader.class);
    private static final long WAIT_NS = TimeUnit.MILLISECONDS.toNanos(50);
    /** A segment with rows is handed over when it is full or this old, whichever first: slow reads still flow. */
    static final long PUBLISH_AFTER_NS = TimeUnit.MILLISECONDS.toNanos(100);

    /** One item handed to the reader: its work-topic offset, the item (or why it is unusable) and rows to skip. */
    record Submitted(long offset, WorkItem item, long skipRows, CorruptSplitException unusable) {}

    private final String name;
    private final ObjectStore store;
    private final BackfillFormats formats;
    private final S3BackfillConfig config;
    private final Thread laneThread;
    private final ConcurrentLinkedQueue<Submitted> inbox = new ConcurrentLinkedQueue<>();
    /** Published segments, oldest first (lock-free: the lane takes them without a lock; bounded by the segments). */
    private final ConcurrentLinkedQueue<RowSegment> ready = new ConcurrentLinkedQueue<>();
    /** Segments the lane gave back. */
    private final ConcurrentLinkedQueue<RowSegment> free = new ConcurrentLinkedQueue<>();

    private volatile boolean cancelled;
    private volatile Thread thread;
    private RowSegment current;
    private Submitted reading;
    private long delivered;

    PartitionReader(
            String name, ObjectStore store, BackfillFormats formats, S3BackfillConfig config, Thread laneThread) {
        this.name = name;
        this.store = store;
        this.formats = formats;
        this.config = config;
        this.laneThread = laneThread;
        int segments = config.readAheadSegments() + 1;
        int rows = Math.max(64, Math.min(16_384, config.segmentBytes() / 64)); // 2 ints a row: 128 KiB at most
        for (int i = 0; i < segments; i++) {
            free.add(new RowSegment(config.segmentBytes(), rows));
        }
    }

    /** Lane thread: queues an item (offset order). */
    void submit(Submitted item) {
        inbox.add(item);
        Thread t = thread;
        if (t != null) {
            LockSupport.unpark(t);
        }
    }

    /** Lane thread: the oldest published segment, without removing it, or null. */
    RowSegment peek() {
        return ready.peek();
    }

    /** Lane thread: removes the segment {@link #peek()} returned and gives it back for reuse. */
    void consumed(RowSegment segment) {
        ready.poll();
        segment.item = null;
        free.offer(segment);
        Thread t = thread;
        if (t != null) {
            LockSupport.unpark(t);
        }
    }

    /** Any thread: stops reading; the thread ends at its next row or wait. */
    void cancel() {
        cancelled = true;
        Thread t = thread;
        if (t != null) {
            t.interrupt();
        }
    }

    @Override
    public void run() {
        thread = Thread.currentThread();
        try {
            while (!cancelled) {
                Submitted next = inbox.poll();
                if (next == null) {
                    LockSupport.parkNanos(this, WAIT_NS);
                    Thread.interrupted(); // only cancel() interrupts, and it sets cancelled first
                    continue;
                }
                read(next);
            }
        } catch (ReadCancelledException e) {
            if (!cancelled) {
                // not ours: an interrupt from elsewhere, or a format that threw it: the partition must not lose its
                // reader silently
                failLane(new IllegalStateException("backfill reader " + name + " was interrupted"));
            }
            // else revoked, lost or shut down: nothing was promised for rows not handed over
        } catch (RuntimeException | Error e) {
            if (cancelled) {
                return; // a library wrapping the cancel's interrupt: the partition is gone anyway
            }
            log.error("backfill reader {} failed unexpectedly", name, e);
            failLane(new IllegalStateException("backfill reader " + name + " failed: " + e, e));
        } finally {
            thread = null;
        }
    }

    private void read(Submitted item) {
        reading = item;
        delivered = 0;
        current = null;
        if (item.unusable() != null) {
            finish(item.unusable(), null);
            return;
        }
        BackfillFormat format;
        try {
            format = formats.named(item.item().format());
        } catch (IllegalArgumentException e) {
            finish(
                    null,
                    new IllegalStateException("work item " + item.item().describe() + " (work-topic offset "
                            + item.offset() + "): " + e.getMessage()));
            return;
        }
        int attempts = config.readAttempts();
        for (int attempt = 1; ; attempt++) {
            try {
                format.read(store, item.item(), item.skipRows() + delivered, this);
                finish(null, null);
                return;
            } catch (CorruptSplitException e) {
                finish(e, null);
                return;
            } catch (IOException e) {
                if (cancelled) {
                    throw new ReadCancelledException();
                }
                if (attempt >= attempts) {
                    finish(
                            null,
                            new IllegalStateException(
                                    "reading " + item.item().describe() + " from " + store.describe() + " failed "
                                            + attempts + " times; last: " + e.getMessage(),
                                    e));
                    return;
                }
                long backoffMs = Math.min(
                        config.readBackoffMax().toMillis(),
                        config.readBackoff().toMillis() << Math.min(attempt - 1, 20));
                log.warn(
                        "backfill reader {}: reading {} failed (attempt {}/{}), retrying in {} ms from row {}: {}",
                        name,
                        item.item().describe(),
                        attempt,
                        attempts,
                        backoffMs,
                        item.skipRows() + delivered,
                        e.toString());
                sleep(backoffMs);
            }
        }
    }

    private void finish(CorruptSplitException corrupt, RuntimeException failure) {
        RowSegment segment = segment();
        segment.itemEnd = true;
        segment.itemRows = reading.skipRows() + delivered;
        segment.corrupt = corrupt;
        segment.failure = failure;
        publish(segment);
        current = null;
    }

    @Override
    public void row(byte[] array, int offset, int length) {
        if (cancelled) {
            throw new ReadCancelledException();
        }
        if (reading.skipRows() + delivered >= VirtualOffsets.MAX_ROWS) {
            throw new IllegalStateException("work item " + reading.item().describe() + " has more than "
                    + VirtualOffsets.MAX_ROWS + " rows: plan smaller splits");
        }
        RowSegment segment = segment();
        if (!segment.fits(length) && segment.count > 0) {
            publish(segment);
            current = null;
            segment = segment();
        }
        if (segment.count == 0) {
            segment.startedNs = System.nanoTime();
        }
        segment.add(array, offset, length);
        delivered++;
        if (System.nanoTime() - segment.startedNs > PUBLISH_AFTER_NS) {
            publish(segment);
            current = null;
        }
    }

    @Override
    public void bytesRead(long bytes) {
        segment().bytesRead += bytes;
    }

    private RowSegment segment() {
        if (current == null) {
            RowSegment s = take();
            s.reset(reading.offset(), reading.item(), reading.skipRows() + delivered);
            current = s;
        }
        return current;
    }

    /** A free segment, waiting (parked, woken by the lane's {@link #consumed}) while the lane holds them all. */
    private RowSegment take() {
        RowSegment s;
        while ((s = free.poll()) == null) {
            if (cancelled) {
                throw new ReadCancelledException();
            }
            LockSupport.parkNanos(this, WAIT_NS);
        }
        return s;
    }

    /** Hands a segment to the lane: never waits (only the reader's own segments circulate). */
    private void publish(RowSegment segment) {
        if (cancelled) {
            throw new ReadCancelledException();
        }
        ready.offer(segment);
        LockSupport.unpark(laneThread);
    }

    private void failLane(RuntimeException failure) {
        if (cancelled || reading == null) {
            return;
        }
        try {
            finish(null, failure);
        } catch (ReadCancelledException ignored) {
            // the lane let the partition go meanwhile
        }
    }

    private void sleep(long ms) {
        try {
            Thread.sleep(ms);
        } catch (InterruptedException e) {
            throw new ReadCancelledException();
        }
        if (cancelled) {
            throw new ReadCancelledException();
        }
    }

    @Override
    public String toString() {
        return name;
    }
}
