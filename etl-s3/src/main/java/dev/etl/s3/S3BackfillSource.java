package dev.etl.s3;

import dev.etl.error.SourceException;
import dev.etl.source.PartitionListener;
import dev.etl.source.Source;
import dev.etl.source.SourceLane;
import java.time.Duration;
import java.util.Objects;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A bounded backfill from object storage: the work list (one record per object or split, see
 * {@link BackfillPlanner}) is a {@link WorkList} — by default a Kafka topic consumed by this pipeline's
 * consumer group ({@link KafkaWorkList}), so instances share the work and rebalances move it; each work item's rows are read off the lane by a reader thread and go
 * through the same chains and sinks as a Kafka topic's records. A work item's offset is committed only
 * when every row it produced is durable (the rows' offsets are {@link VirtualOffsets}), so a crash
 * replays an item from its first uncommitted row and never loses one, and a restarted backfill skips
 * what is committed. The run is done when the group has committed the whole list as it stood when the
 * source started ({@link #onDone}).
 *
 * <pre>{@code
 * S3BackfillSource source = new S3BackfillSource(S3BackfillConfig.builder()
 *         .workTopic(KafkaSourceConfig.builder()
 *                 .properties(Map.of("bootstrap.servers", "broker:9092", "group.id", "orders-backfill"))
 *                 .topics("orders-backfill-work").build())
 *         .store(S3ObjectStore.builder().region("eu-west-1").build())
 *         .topic("orders")                // the chain of topic "orders" reads the rows
 *         .build());
 * }</pre>
 */
public final class S3BackfillSource implements Source {
    private static final Logger log = LoggerFactory.getLogger(S3BackfillSource.class);

    private final S3BackfillConfig config;
    private final WorkList work;
    private final BackfillFormats formats;
    private final BackfillProgress progress;
    private final BackfillProgressSampler sampler;
    /** Running readers, cancelled at close (the lanes cancel theirs first). */
    private final Set<PartitionReader> readers = ConcurrentHashMap.newKeySet();

    private final AtomicInteger readerIds = new AtomicInteger();

    public S3BackfillSource(S3BackfillConfig config) {
        this(config, BackfillFormats.discover());
    }

    /** With an explicit set of formats; the work list is the config's work topic ({@link KafkaWorkList}). */
    public S3BackfillSource(S3BackfillConfig config, BackfillFormats formats) {
        this(config, formats, new KafkaWorkList(Objects.requireNonNull(config, "config")));
    }

    /** With an explicit set of formats and work list; the source closes the list. */
    public S3BackfillSource(S3BackfillConfig config, BackfillFormats formats, WorkList workList) {
        this.config = Objects.requireNonNull(config, "config");
        this.formats = Objects.requireNonNull(formats, "formats");
        this.work = Objects.requireNonNull(workList, "workList");
        this.progress = new BackfillProgress(config);
        this.sampler = new BackfillProgressSampler(config, work, progress);
    }

    /**
     * Opens lane {@code laneIndex}: the work list's lane wrapped by the backfill's lane. The first lane to
     * open takes the work list's extent.
     *
     * @throws SourceException when the work list does not exist or cannot be read
     */
    @Override
    public SourceLane openLane(int laneIndex, PartitionListener listener) {
        try {
            sampler.start();
        } catch (IllegalStateException e) {
            throw new SourceException("pipeline " + config.pipeline() + ": " + e.getMessage(), e);
        }
        S3BackfillLane lane = new S3BackfillLane(this, listener);
        lane.attach(work.openLane(laneIndex, lane));
        return lane;
    }

    /**
     * Starts the reader of one assigned work-topic partition on a thread of its own (not a pool's: a
     * cancel's interrupt must never reach the thread's next reader).
     */
    PartitionReader startReader(String partition, Thread laneThread) {
        PartitionReader reader =
                new PartitionReader(config.pipeline() + "/" + partition, config.store(), formats, config, laneThread);
        Thread thread = new Thread(
                () -> {
                    progress.readers.incrementAndGet();
                    try {
                        reader.run();
                    } finally {
                        progress.readers.decrementAndGet();
                        readers.remove(reader);
                    }
                },
                "etl-s3-reader-" + config.pipeline() + "-" + readerIds.getAndIncrement());
        thread.setDaemon(true);
        readers.add(reader);
        thread.start();
        return reader;
    }

    S3BackfillConfig config() {
        return config;
    }

    BackfillProgress progress() {
        return progress;
    }

    /**
     * Runs {@code callback} once the group has committed the whole work list (on the backfill's progress
     * thread; at once if it already has). The Spring layer closes the application there.
     */
    public void onDone(Runnable callback) {
        sampler.onDone(Objects.requireNonNull(callback, "callback"));
    }

    /** Whether the whole work list is committed. */
    public boolean isDone() {
        return sampler.isDone();
    }

    /** Waits until {@link #isDone()}; false on timeout. */
    public boolean awaitDone(Duration timeout) throws InterruptedException {
        return sampler.awaitDone(timeout);
    }

    /** {@code s3-backfill[work=orders-backfill-work group=... store=...]}; never includes secrets. */
    @Override
    public String describe() {
        return "s3-backfill[work=" + work.describe() + " store="
                + config.store().describe() + " topic=" + config.topic() + "]";
    }

    @Override
    public void close() {
        readers.forEach(PartitionReader::cancel);
        sampler.close();
        work.close();
        try {
            config.store().close();
        } catch (Exception e) {
            log.warn(
                    "pipeline={} backfill: closing {} failed: {}",
                    config.pipeline(),
                    config.store().describe(),
                    e.toString());
        }
    }

    @Override
    public String toString() {
        return describe();
    }
}
