package dev.etl.s3;

import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Samples how much of the work list the group has committed, and so decides when a backfill is done
 * (what the application then does about it is the Spring layer's {@code BoundedRunCompletion}): the work list's extent is taken once, when the source starts
 * ({@link WorkList#start()}); the run is done when the list says all of it is committed
 * ({@link WorkList#progress()}; Kafka: the group's committed offsets reach the ends on every partition) —
 * every work item's rows durable, whichever instance read them. Each instance samples the group's offsets itself, so every
 * instance sees the end and stops. A thread of its own ({@code etl-backfill-<pipeline>}) samples every
 * progress interval and logs one progress line; done callbacks run once, on that thread.
 */
final class BackfillProgressSampler implements AutoCloseable {
    private static final Logger log = LoggerFactory.getLogger(S3BackfillSource.class);
    private final S3BackfillConfig config;
    private final WorkList workList;
    private final BackfillProgress progress;
    private final CountDownLatch done = new CountDownLatch(1);
    private final List<Runnable> callbacks = new CopyOnWriteArrayList<>();
    private final AtomicBoolean closed = new AtomicBoolean();
    private Thread thread;

    BackfillProgressSampler(S3BackfillConfig config, WorkList workList, BackfillProgress progress) {
        this.config = config;
        this.workList = workList;
        this.progress = progress;
    }

    /**
     * Takes the work list's extent and starts sampling.
     *
     * @throws IllegalStateException naming the list when it does not exist or cannot be read
     */
    synchronized void start() {
        if (thread != null) {
            return;
        }
        long total = workList.start();
        progress.itemsTotal.set(total);
        log.info(
                "pipeline={} backfill: {} work item(s) in {}, reading from {}",
                config.pipeline(),
                total,
                workList.describe(),
                config.store().describe());
        thread = new Thread(this::run, "etl-backfill-" + config.pipeline());
        thread.setDaemon(true);
        thread.start();
    }

    private void run() {
        long intervalMs = config.progressInterval().toMillis();
        while (!closed.get()) {
            try {
                if (sample()) {
                    complete();
                    return;
                }
            } catch (InterruptedException e) {
                return;
            } catch (Exception e) {
                log.warn(
                        "pipeline={} backfill: cannot read the group's committed offsets (retrying): {}",
                        config.pipeline(),
                        e.toString());
            }
            try {
                Thread.sleep(intervalMs);
            } catch (InterruptedException e) {
                return;
            }
        }
    }

    /** One sample: true when every partition's committed offset reached its end. */
    boolean sample() throws Exception {
        WorkList.Progress committed = workList.progress();
        long items = committed.committedItems();
        progress.itemsCommitted.set(items);
        long total = progress.itemsTotal.get();
        log.info(
                "pipeline={} backfill: {}/{} work items committed ({}%); this instance: {} rows, {} MiB read, {} item(s)"
                        + " finished, {} corrupt, {} reader(s)",
                config.pipeline(),
                items,
                total,
                total == 0 ? 100 : Math.round(1000.0 * items / total) / 10.0,
                progress.rowsTotal(),
                progress.bytesTotal() >> 20,
                progress.finished(),
                progress.corruptItems(),
                progress.readers.get());
        return committed.done();
    }

    private void complete() {
        progress.done.set(1);
        log.info(
                "pipeline={} backfill complete: all {} work item(s) of {} committed",
                config.pipeline(),
                progress.itemsTotal.get(),
                workList.describe());
        List<Runnable> run;
        synchronized (this) {
            done.countDown();
            run = List.copyOf(callbacks);
        }
        for (Runnable callback : run) {
            try {
                callback.run();
            } catch (RuntimeException e) {
                log.error("pipeline={} backfill: a done callback failed", config.pipeline(), e);
            }
        }
    }

    /** Runs {@code callback} once the backfill is done (at once, on this thread, if it is). */
    void onDone(Runnable callback) {
        synchronized (this) {
            if (!isDone()) {
                callbacks.add(callback);
                return;
            }
        }
        callback.run();
    }

    boolean isDone() {
        return done.getCount() == 0;
    }

    boolean awaitDone(Duration timeout) throws InterruptedException {
        return done.await(timeout.toNanos(), TimeUnit.NANOSECONDS);
    }

    @Override
    public void close() {
        if (closed.compareAndSet(false, true)) {
            Thread t;
            synchronized (this) {
                t = thread;
            }
            if (t != null) {
                t.interrupt();
            }
        }
    }
}
