package dev.etl.s3;

import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicBoolean;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.ListOffsetsResult;
import org.apache.kafka.clients.admin.OffsetSpec;
import org.apache.kafka.clients.admin.TopicDescription;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.errors.UnknownTopicOrPartitionException;
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
    private final Admin admin;
    private final Map<TopicPartition, Long> start = new HashMap<>();
    private final Map<TopicPartition, Long> end = new HashMap<>();
    private final CountDownLatch done = new CountDownLatch(1);
    private final List<Runnable> callbacks = new CopyOnWriteArrayList<>();
    private final AtomicBoolean closed = new AtomicBoolean();
    private Thread thread;

    BackfillCompletion(S3BackfillConfig config, BackfillProgress progress) {
        this.config = config;
        this.progress = progress;
        this.admin =
                Admin.create(KafkaClientSettings.admin(config.workTopic().consumerProperties(), "backfill-progress"));
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
        try {
            TopicDescription description = admin.describeTopics(List.of(topic))
                    .allTopicNames()
                    .get(TIMEOUT.toMillis(), TimeUnit.MILLISECONDS)
                    .get(topic);
            Map<TopicPartition, OffsetSpec> earliest = new HashMap<>();
            Map<TopicPartition, OffsetSpec> latest = new HashMap<>();
            description.partitions().forEach(p -> {
                TopicPartition tp = new TopicPartition(topic, p.partition());
                earliest.put(tp, OffsetSpec.earliest());
                latest.put(tp, OffsetSpec.latest());
            });
            offsets(admin.listOffsets(earliest), start);
            offsets(admin.listOffsets(latest), end);
        } catch (ExecutionException e) {
            if (e.getCause() instanceof UnknownTopicOrPartitionException) {
                throw new IllegalStateException(
                        "the backfill's work topic '" + topic + "' does not exist: plan the backfill"
                                + " first (with Spring Boot: a run with etl.source.s3.mode=plan, or"
                                + " mode plan-and-run; without: BackfillPlanner.plan())",
                        e.getCause());
            }
            throw new IllegalStateException(
                    "cannot read the extent of the work topic '" + topic + "': " + e.getCause(), e);
        } catch (TimeoutException e) {
            throw new IllegalStateException(
                    "cannot read the extent of the work topic '" + topic + "' within " + TIMEOUT, e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted reading the work topic's extent", e);
        }
        long total = 0;
        for (Map.Entry<TopicPartition, Long> e : end.entrySet()) {
            total += e.getValue() - start.get(e.getKey());
        }
        progress.itemsTotal.set(total);
        log.info(
                "pipeline={} backfill: {} work item(s) in {} (group {}), reading from {}",
                config.pipeline(),
                total,
                topic,
                config.workTopic().groupId(),
                config.store().describe());
        thread = new Thread(this::run, "etl-backfill-" + config.pipeline());
        thread.setDaemon(true);
        thread.start();
    }

    private static void offsets(ListOffsetsResult result, Map<TopicPartition, Long> into)
            throws ExecutionException, InterruptedException, TimeoutException {
        result.all().get(TIMEOUT.toMillis(), TimeUnit.MILLISECONDS).forEach((tp, info) -> into.put(tp, info.offset()));
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
            long first = start.get(e.getKey());
            long last = e.getValue();
            OffsetAndMetadata c = committed.get(e.getKey());
            long at = c == null ? first : Math.max(first, Math.min(last, c.offset()));
            items += at - first;
            all &= at >= last;
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
            admin.close(Duration.ofSeconds(5));
        }
    }
}
