package dev.etl.datagen;

import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * When a {@link DatagenSource}'s bounded run is done: the count of partitions whose end is not yet
 * committed, the latch {@link DatagenSource#awaitDone} waits on and the done callbacks, each run once
 * (by the lane whose commit completed the run, or by {@link #onDone} when the run already is done).
 * The source keeps the run's final log line and says {@link #complete()} after it. Thread-safe; logs
 * under the source's category.
 */
final class DatagenDone {
    private static final Logger log = LoggerFactory.getLogger(DatagenSource.class);

    private final String pipeline;
    private final String topic;
    private final AtomicInteger remaining;
    private final CountDownLatch done = new CountDownLatch(1);
    private final List<Once> doneCallbacks = new CopyOnWriteArrayList<>();

    /** {@code partitionsWithRecords}: the partitions whose end must be committed (those with no record never count). */
    DatagenDone(String pipeline, String topic, int partitionsWithRecords) {
        this.pipeline = pipeline;
        this.topic = topic;
        this.remaining = new AtomicInteger(partitionsWithRecords);
    }

    /** A partition's end was committed; true when it was the last one (then {@link #complete()} must follow). */
    boolean partitionDone() {
        return remaining.decrementAndGet() == 0;
    }

    /** The run is done: releases {@link #awaitDone} and runs every done callback registered so far. */
    void complete() {
        done.countDown();
        for (Once callback : doneCallbacks) {
            callback.run();
        }
    }

    /** A done callback that runs at most once, whoever gets to it first (the completing lane or {@link #onDone}). */
    private final class Once {
        private final Runnable callback;
        private final java.util.concurrent.atomic.AtomicBoolean ran = new java.util.concurrent.atomic.AtomicBoolean();

        Once(Runnable callback) {
            this.callback = callback;
        }

        void run() {
            if (!ran.compareAndSet(false, true)) {
                return;
            }
            try {
                callback.run();
            } catch (RuntimeException e) {
                log.error("pipeline={} datagen {}: a done callback failed", pipeline, topic, e);
            }
        }
    }

    /** See {@link DatagenSource#onDone(Runnable)}; {@code callback} is not null. */
    void onDone(Runnable callback) {
        Once once = new Once(callback);
        doneCallbacks.add(once);
        if (isDone()) {
            once.run();
        }
    }

    boolean isDone() {
        return done.getCount() == 0;
    }

    boolean awaitDone(Duration timeout) throws InterruptedException {
        return done.await(timeout.toNanos(), TimeUnit.NANOSECONDS);
    }
}
