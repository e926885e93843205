package dev.etl.s3;

import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.common.TopicPartition;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * When a backfill is done: the work list's end offsets are taken once, when the source starts; the run
 * is done when the group's committed offsets reach them on every partition — every work item's rows
 * durable, whichever instance read them. Each instance samples the group's offsets itself, so every
 * instance sees the end and stops. A thread of its own ({@code etl-backfill-<pipeline>}) samples every
 * progress interval and logs one progress line; done callbacks run once, on that thread.
 */
final class BackfillCompletion implements AutoCloseable {
    private static final Logger log = LoggerFactory.getLogger(S3BackfillSource.class);
    private static final Duration TIMEOUT = Duration.ofSeconds(30);

    private final S3BackfillConfig config;
    private final BackfillProgress progress;
    private volatile Admin admin;
    private final Map<TopicPartition, Long> end = new HashMap<>();
    private final CountDownLatch done = new CountDownLatch(1);
    private final List<Runnable> callbacks = new CopyOnWriteArrayList<>();
    private final AtomicBoolean closed = new AtomicBoolean();
    private Thread thread;

    BackfillCompletion(S3BackfillConfig config, BackfillProgress progress) {
        this.config = config;
        this.progress = progress;
    }

    /**
     * Takes the work list's extent and starts sampling.
     *
     * @throws IllegalStateException naming the topic when it does not exist or cannot be described
     */
    synchronized void start() {
        if (thread != null) {
            return;
        }
        String topic = config.workTopicName();
        WorkListScan.Extent extent = WorkListScan.scan(config.workTopic().consumerProperties(), topic, TIMEOUT)
                .orElseThrow(() -> new IllegalStateException("the backfill's work topic '" + topic
                        + "' does not exist: plan the backfill first (etl.source.s3.mode=plan)"));
        if (extent.items() == 0) {
            throw new IllegalStateException("the backfill's work topic '" + topic + "' holds no work items: plan the"
                    + " backfill first (etl.source.s3.mode=plan; a plan that found no objects writes none)");
        }
        extent.truncated().ifPresent(tp -> {
            throw new IllegalStateException("work items were deleted from the work topic '" + topic + "' (partition "
                    + tp.partition() + " starts at offset " + extent.earliest().get(tp) + ", by retention or"
                    + " DeleteRecords): their data would never be read; plan again into a new work topic");
        });
        end.putAll(extent.afterLast());
        long total = extent.items();
        progress.itemsTotal.set(total);
        log.info(
                "pipeline={} backfill: {} work item(s) in {} (group {}), reading from {}",
                config.pipeline(),
                total,
                topic,
                config.workTopic().groupId(),
                config.store().describe());
        admin = Admin.create(KafkaClientSettings.admin(config.workTopic().consumerProperties(), "backfill-progress"));
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
        Map<TopicPartition, OffsetAndMetadata> committed = admin.listConsumerGroupOffsets(
                        config.workTopic().groupId())
                .partitionsToOffsetAndMetadata()
                .get(TIMEOUT.toMillis(), TimeUnit.MILLISECONDS);
        long items = 0;
        boolean all = true;
        for (Map.Entry<TopicPartition, Long> e : end.entrySet()) {
            OffsetAndMetadata c = committed.get(e.getKey());
            long at = c == null ? 0 : c.offset();
            items += Math.min(at, e.getValue()); // approximate: offsets also count transaction markers
            all &= at >= e.getValue();
        }
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
        return all;
    }

    private void complete() {
        progress.done.set(1);
        log.info(
                "pipeline={} backfill complete: the group {} committed all {} work item(s) of {}",
                config.pipeline(),
                config.workTopic().groupId(),
                progress.itemsTotal.get(),
                config.workTopicName());
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
            if (admin != null) {
                admin.close(Duration.ofSeconds(5));
            }
        }
    }
}
