package dev.etl.datagen;

import dev.etl.source.PartitionListener;
import dev.etl.source.Source;
import dev.etl.source.SourceLane;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import java.time.Duration;
import java.util.List;
import java.util.Objects;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReferenceArray;
import java.util.function.LongSupplier;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A load-generator {@link Source}: synthetic records made by a {@link RecordGenerator}, in
 * {@code partitions} partitions spread over the pipeline's lanes (partition {@code p} belongs to lane
 * {@code p % lanes}, assigned at the lane's first poll and never revoked).
 *
 * <pre>{@code
 * DatagenSource source = DatagenSource.builder(generator)
 *         .partitions(8).records(1_000_000).seed(42)
 *         .lanes(config.lanes())                    // the pipeline's etl.pipeline.threads
 *         .build();
 * PipelineRuntime runtime = Pipeline.builder(config).source(source)...build();
 * source.onDone(runtime::shutdown);                 // a bounded run ends when everything is committed
 * runtime.start();
 * RunReport report = runtime.awaitTermination();    // exit code 0: every record written and committed
 * }</pre>
 *
 * <p><b>Bounded or not.</b> With {@link Builder#records(long) records(n)} the run has exactly {@code n}
 * records (partition {@code p} the ids {@code i < n} with {@code i % partitions == p}); without, it never
 * ends. With {@link Builder#ratePerSecond(long) ratePerSecond(r)} records appear at {@code r} per second
 * over all partitions, on a schedule that keeps running while the pipeline is paused or slow, like a
 * producer filling a topic: what is due and not yet generated is the partition's lag
 * ({@code etl_source_lag_records}), and it is generated as fast as the pipeline takes it once the
 * pipeline can. Without a rate, records are generated as fast as the pipeline takes them.
 *
 * <p><b>Done</b> (bounded runs): when every partition's committed offset has reached its end — every
 * record generated was written durably (or deliberately dropped) and its offset committed. The
 * {@link #onDone(Runnable) done callbacks} then run once; {@code runtime::shutdown} drains and stops the
 * pipeline, whose run report then has exit code 0. Commits come every {@code checkpoint.interval}, so
 * a run is done at most one interval after its last row was written.
 *
 * <p><b>The source contract.</b> Each poll returns at most {@code maxPollRecords} records per partition
 * (one batch each), none while the lane or the partition is paused (a paused poll waits its timeout,
 * or until {@link SourceLane#wakeup()}); it never waits longer than its timeout, and returns as soon as
 * something was delivered. Commits are kept in memory (offset and metadata, verbatim); a commit past
 * what was generated, or of a partition the lane does not own, is refused with a
 * {@link dev.etl.error.SourceException}. Asynchronous commits report to their callback from inside the
 * lane's next poll or commit. Nothing survives the process: a new run starts every partition at 0.
 *
 * <p>Thread-safe: each lane is used by its own thread; the observers ({@link #isDone()},
 * {@link #committedOffset(int)}, the gauges) read published volatile state.
 */
public final class DatagenSource implements Source {
    private static final Logger log = LoggerFactory.getLogger(DatagenSource.class);

    /** Default records per partition and poll: as many as the Kafka source's default {@code max.poll.records}. */
    public static final int DEFAULT_MAX_POLL_RECORDS = 5_000;
    /** Default topic name (routing, partition names, the lag gauge's {@code topic} tag). */
    public static final String DEFAULT_TOPIC = "datagen";

    private final RecordGenerator generator;
    private final int partitionCount;
    private final long records;
    private final DatagenSchedule schedule;
    private final long seed;
    private final String topic;
    private final int lanes;
    private final int maxPollRecords;
    private final String pipeline;
    private final MeterRegistry registry;
    private final LongSupplier nanoClock;
    private final DatagenPartition[] partitions;
    private final AtomicReferenceArray<DatagenLane> openLanes;
    private final AtomicLong startNs = new AtomicLong(Long.MIN_VALUE);
    /** Bounded runs: partitions whose end is not committed yet (those with no record never count). */
    private final AtomicInteger partitionsLeft;
    /** Released when the last partition's end is committed: {@link #awaitDone}, {@link #isDone}. */
    private final CountDownLatch done = new CountDownLatch(1);

    private final List<DoneCallback> doneCallbacks = new CopyOnWriteArrayList<>();

    private final List<Gauge> gauges = new CopyOnWriteArrayList<>();

    private DatagenSource(Builder b) {
        this.generator = b.generator;
        this.partitionCount = b.partitions;
        this.records = b.records;
        this.schedule = new DatagenSchedule(b.partitions, b.ratePerSecond);
        this.seed = b.seed;
        this.topic = b.topic;
        this.lanes = b.lanes;
        this.maxPollRecords = b.maxPollRecords;
        this.pipeline = b.pipeline;
        this.registry = b.registry;
        this.nanoClock = b.nanoClock;
        this.partitions = new DatagenPartition[b.partitions];
        int withRecords = 0;
        for (int p = 0; p < b.partitions; p++) {
            long end = isBounded() ? share(b.records, b.partitions, p) : Long.MAX_VALUE;
            partitions[p] = new DatagenPartition(p, end);
            withRecords += end > 0 ? 1 : 0;
        }
        this.partitionsLeft = new AtomicInteger(withRecords);
        this.openLanes = new AtomicReferenceArray<>(b.lanes);
    }

    /** Records of a run of {@code records} that partition {@code p} of {@code partitions} has: ids {@code i % partitions == p}. */
    static long share(long records, int partitions, int p) {
        return records <= p ? 0 : (records - p - 1) / partitions + 1;
    }

    /** A builder generating with {@code generator}. */
    public static Builder builder(RecordGenerator generator) {
        return new Builder(generator);
    }

    @Override
    public SourceLane openLane(int laneIndex, PartitionListener listener) {
        if (laneIndex < 0 || laneIndex >= lanes) {
            throw new IllegalStateException("datagen source was built for " + lanes + " lane(s) but lane " + laneIndex
                    + " opened: build it with lanes(n) equal to the pipeline's lane count (etl.pipeline.threads), "
                    + "or partitions of the missing lanes are never generated");
        }
        int owned = 0;
        for (int p = laneIndex; p < partitionCount; p += lanes) {
            owned++;
        }
        DatagenPartition[] mine = new DatagenPartition[owned];
        for (int p = laneIndex, k = 0; p < partitionCount; p += lanes, k++) {
            mine[k] = partitions[p];
        }
        DatagenLane lane = new DatagenLane(
                this, laneIndex, listener, mine, new DatagenBatch(generator, seed, partitionCount, topic));
        if (!openLanes.compareAndSet(laneIndex, null, lane)) {
            throw new IllegalStateException("datagen lane " + laneIndex + " was opened twice");
        }
        startNs.compareAndSet(Long.MIN_VALUE, nanoClock.getAsLong());
        return lane;
    }

    /** Called by a lane when it reports its assignment: the partitions' lag gauges appear. */
    void assigned(DatagenPartition[] owned) {
        if (registry == null) {
            return;
        }
        for (DatagenPartition partition : owned) {
            gauges.add(Gauge.builder("etl.source.lag", partition, this::lag)
                    .description("Records between the lane's position and the partition's end offset (high "
                            + "watermark, or last stable offset under read_committed), sampled by the owning lane")
                    .baseUnit("records")
                    .strongReference(true)
                    .tag("pipeline", pipeline)
                    .tag("topic", topic)
                    .tag("partition", Integer.toString(partition.id))
                    .register(registry));
        }
    }

    /** What exists and was not generated yet: due by the schedule (up to the end), minus the position. */
    private double lag(DatagenPartition partition) {
        long available = Math.min(partition.end, schedule.scheduled(partition.id, elapsedNs(nanoClock.getAsLong())));
        if (available == Long.MAX_VALUE) {
            return 0; // unbounded and unlimited: nothing waits, the pipeline sets the pace
        }
        return Math.max(0, available - partition.position);
    }

    long elapsedNs(long nowNs) {
        long start = startNs.get();
        return start == Long.MIN_VALUE ? 0 : nowNs - start;
    }

    /** Called by the owning lane when a bounded partition's end was committed. */
    void partitionDone(DatagenPartition partition) {
        if (partitionsLeft.decrementAndGet() == 0) {
            long elapsedNs = elapsedNs(nanoClock.getAsLong());
            log.info(
                    "pipeline={} datagen {}: all {} records of {} partitions written and committed in {} ms ({} records/s "
                            + "including the last commit interval)",
                    pipeline,
                    topic,
                    records,
                    partitionCount,
                    TimeUnit.NANOSECONDS.toMillis(elapsedNs),
                    elapsedNs > 0 ? Math.round(records * 1e9 / elapsedNs) : 0);
            done.countDown();
            for (DoneCallback callback : doneCallbacks) {
                callback.run();
            }
        }
    }

    /**
     * Runs {@code callback} once, when a bounded run is {@link #isDone() done} (at once if it already is);
     * never for an unbounded run. It runs on the lane thread whose commit completed the run, so it must not
     * block: {@code runtime::shutdown} (which only requests the drain) is the intended use.
     */
    public void onDone(Runnable callback) {
        DoneCallback once = new DoneCallback(Objects.requireNonNull(callback, "callback"));
        doneCallbacks.add(once);
        if (isDone()) {
            once.run();
        }
    }

    /** A done callback that runs at most once, whoever gets to it first: the completing lane or {@link #onDone}. */
    private final class DoneCallback {
        private final Runnable callback;
        private final AtomicBoolean ran = new AtomicBoolean();

        DoneCallback(Runnable callback) {
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

    /** Whether this is a bounded run and every partition's end has been committed. */
    public boolean isDone() {
        return done.getCount() == 0;
    }

    /** Waits until {@link #isDone()}; false on timeout (always false, after the timeout, for an unbounded run). */
    public boolean awaitDone(Duration timeout) throws InterruptedException {
        return done.await(timeout.toNanos(), TimeUnit.NANOSECONDS);
    }

    /** Whether the run has a fixed number of records. */
    public boolean isBounded() {
        return records >= 0;
    }

    /** Records of the whole run, or -1 when unbounded. */
    public long records() {
        return records;
    }

    public int partitions() {
        return partitionCount;
    }

    /** Records generated so far (handed to lanes), over all partitions. */
    public long generated() {
        long sum = 0;
        for (DatagenPartition partition : partitions) {
            sum += partition.position;
        }
        return sum;
    }

    /** The last committed next-offset of {@code partition}, or -1 when nothing was committed. */
    public long committedOffset(int partition) {
        return partitions[checkPartition(partition)].committed;
    }

    /** The metadata committed with {@link #committedOffset(int)}, or null. */
    public @Nullable String committedMetadata(int partition) {
        return partitions[checkPartition(partition)].metadata;
    }

    /** Records partition {@code partition} has in a bounded run (Long.MAX_VALUE when unbounded). */
    public long endOffset(int partition) {
        return partitions[checkPartition(partition)].end;
    }

    private int checkPartition(int partition) {
        if (partition < 0 || partition >= partitionCount) {
            throw new IllegalArgumentException(
                    "datagen has partitions 0.." + (partitionCount - 1) + ", got " + partition);
        }
        return partition;
    }

    DatagenSchedule schedule() {
        return schedule;
    }

    LongSupplier nanoClock() {
        return nanoClock;
    }

    int maxPollRecords() {
        return maxPollRecords;
    }

    /** The seed every record's content derives from. */
    long seed() {
        return seed;
    }

    String topic() {
        return topic;
    }

    String pipeline() {
        return pipeline;
    }

    @Override
    public String describe() {
        return "datagen[" + topic + ", " + partitionCount + " partitions, "
                + (isBounded() ? records + " records" : "unbounded") + ", "
                + (schedule.isLimited() ? schedule.ratePerSecond() + " records/s" : "unlimited rate") + ", seed " + seed
                + ", generator " + generator + "]";
    }

    @Override
    public void close() {
        if (registry != null) {
            for (Gauge gauge : gauges) {
                registry.remove(gauge);
            }
        }
        gauges.clear();
    }

    /** Builds a {@link DatagenSource}. Not thread-safe. */
    public static final class Builder {
        private final RecordGenerator generator;
        private int partitions = 1;
        private long records = -1;
        private long ratePerSecond;
        private long seed;
        private String topic = DEFAULT_TOPIC;
        private int lanes = 1;
        private int maxPollRecords = DEFAULT_MAX_POLL_RECORDS;
        private String pipeline = "etl";
        private MeterRegistry registry;
        private LongSupplier nanoClock = System::nanoTime;

        private Builder(RecordGenerator generator) {
            this.generator = Objects.requireNonNull(generator, "generator");
        }

        /** Number of partitions (default 1), at least 1; each is owned by one lane. */
        public Builder partitions(int partitions) {
            if (partitions < 1) {
                throw new IllegalArgumentException("datagen partitions must be >= 1, got " + partitions);
            }
            this.partitions = partitions;
            return this;
        }

        /** A bounded run of exactly {@code records} records over all partitions (at least 1). Default: unbounded. */
        public Builder records(long records) {
            if (records < 1) {
                throw new IllegalArgumentException(
                        "datagen records must be >= 1 (omit it for an unbounded run), got " + records);
            }
            this.records = records;
            return this;
        }

        /** Records per second over all partitions; 0 (the default) generates as fast as the pipeline takes them. */
        public Builder ratePerSecond(long ratePerSecond) {
            if (ratePerSecond < 0 || ratePerSecond > DatagenSchedule.MAX_RATE) {
                throw new IllegalArgumentException("datagen rate must be in [0, " + DatagenSchedule.MAX_RATE
                        + "] records/s (0: unlimited), got " + ratePerSecond);
            }
            this.ratePerSecond = ratePerSecond;
            return this;
        }

        /** Seed of every record's random numbers (default 0): the same seed gives the same records. */
        public Builder seed(long seed) {
            this.seed = seed;
            return this;
        }

        /** Topic name of every partition (default {@value DatagenSource#DEFAULT_TOPIC}), for routing and names. */
        public Builder topic(String topic) {
            if (topic == null || topic.isBlank()) {
                throw new IllegalArgumentException("datagen topic must not be blank");
            }
            this.topic = topic;
            return this;
        }

        /** The pipeline's lane count (default 1): partition {@code p} goes to lane {@code p % lanes}. */
        public Builder lanes(int lanes) {
            if (lanes < 1) {
                throw new IllegalArgumentException("datagen lanes must be >= 1, got " + lanes);
            }
            this.lanes = lanes;
            return this;
        }

        /** Most records per partition in one poll (default {@value DatagenSource#DEFAULT_MAX_POLL_RECORDS}). */
        public Builder maxPollRecords(int maxPollRecords) {
            if (maxPollRecords < 1) {
                throw new IllegalArgumentException("datagen max-poll-records must be >= 1, got " + maxPollRecords);
            }
            this.maxPollRecords = maxPollRecords;
            return this;
        }

        /** The pipeline name, for the {@code pipeline} tag of the lag gauges and the logs (default "etl"). */
        public Builder pipeline(String pipeline) {
            this.pipeline = Objects.requireNonNull(pipeline, "pipeline");
            return this;
        }

        /** Where the per-partition lag gauges ({@code etl.source.lag}) go; none without. */
        public Builder meterRegistry(@Nullable MeterRegistry registry) {
            this.registry = registry;
            return this;
        }

        /** The monotonic clock of the rate schedule (tests). */
        Builder nanoClock(LongSupplier nanoClock) {
            this.nanoClock = Objects.requireNonNull(nanoClock, "nanoClock");
            return this;
        }

        public DatagenSource build() {
            return new DatagenSource(this);
        }
    }
}
