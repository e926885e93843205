package dev.etl.internal.sink;

import dev.etl.error.FatalPipelineException;
import dev.etl.internal.backpressure.InFlightBudget;
import dev.etl.sink.ShardWriter;
import dev.etl.sink.SinkDefinition;
import io.micrometer.core.instrument.MeterRegistry;
import java.util.Objects;
import java.util.Random;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Consumer;
import java.util.function.LongSupplier;
import java.util.random.RandomGenerator;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The running side of one {@link SinkDefinition}: a bounded chunk queue per shard, and shard workers
 * on io threads that merge chunks into batches, seal them ({@link BatchConfig}), write them through
 * the shard's {@link ShardWriter}, retry transient failures with backoff ({@link RetryConfig}), and
 * release the batches' acks: success after a durable write, failure on every other path.
 *
 * <p>Lanes call {@link #newChunk} and {@link #tryHandOff} from their own threads; neither ever
 * blocks. The pipeline controller calls the life-cycle methods.
 *
 * <p>Writers: {@link SinkDefinition#writersPerShard()} per shard, each with its own queue and worker, writing
 * one sealed batch at a time while its next one fills; a deterministic block goes to the writer of its source
 * partition (so a partition's blocks reach the shard in order), a merged chunk to the writer of its lane.
 * Created by the constructor and closed by {@link #shutdown}.
 *
 * <p>Threads: one per writer when {@code ioThreads} is 0 (the default), else
 * {@code min(ioThreads, writers)} platform threads named
 * {@code etl-io-<pipeline>-<sink>-<n>} (not daemons), started by {@link #start()}; writer {@code w} of shard
 * {@code s} runs on thread {@code (w × shards + s) % threads} (so with a multiple of the shard count, no two
 * shards share one). Each runs a duty cycle over its writers and, when idle, sleeps until a writer's linger or
 * retry is due or a lane hands it a chunk ({@link IoIdle}). A write blocks its thread, so writers sharing a thread share its write time. The fatal listener
 * is called on an io thread.
 *
 * <p>Metrics (names in {@code docs/design/sink-metrics.md}) are registered by the constructor.
 */
public final class SinkRuntime implements ChunkSink, AutoCloseable {
    private static final Logger LOG = LoggerFactory.getLogger(SinkRuntime.class);

    private enum State {
        NEW,
        STARTED,
        SHUT_DOWN
    }

    private final String pipelineName;
    private final SinkDefinition definition;
    private final InFlightBudget budget;
    private final LongSupplier nanoClock;
    /** Where the io threads come from and how they are joined. */
    private final Threads threadSource;

    private final PartitionNames partitionNames = new PartitionNames();

    /** How many writers (each with its queue, worker and one write at a time) every shard has. */
    private final int writersPerShard;
    /** Per writer, shard by shard: index {@code shard * writersPerShard + w}, like {@link #writers} and {@link #workers}. */
    private final ShardQueue[] queues;

    private final ChunkPool pool;
    private final ShardWriter[] writers;
    private final ShardWorker[] workers;
    private final IoAgent[] agents;
    /** The agent (io thread) of each queue, by queue index: rung after a hand-off. */
    private final IoAgent[] agentOfQueue;

    private final DrainSignal drain = new DrainSignal();
    private volatile boolean closed;
    private Thread[] threads;
    private State state = State.NEW;

    /** How this sink names source partitions in its messages: set from the pipeline's source. */
    public PartitionNames partitionNames() {
        return partitionNames;
    }

    /** The definition this sink runs. */
    public SinkDefinition definition() {
        return definition;
    }

    public SinkRuntime(
            String pipelineName,
            SinkDefinition definition,
            InFlightBudget budget,
            int ioThreads,
            MeterRegistry registry,
            Consumer<FatalPipelineException> fatalListener) {
        this(pipelineName, definition, budget, ioThreads, registry, fatalListener, System::nanoTime, new Random());
    }

    /**
     * Where a sink's time and threads come from (the pipeline's {@code Scheduler}).
     *
     * @param nanoClock   monotonic clock for linger, backoff and deadlines
     * @param jitter      random source of retry jitter, shared by the io threads (thread-safe)
     * @param threads     creates the (unstarted) io threads
     * @param joiner      waits for an io thread to end
     * @param park        parks an idle io thread for up to the given nanos, may return early (0: lets others run)
     * @param unpark      makes an io thread parked in {@code park} return
     * @param maxIdleSleepNs the longest an idle io thread sleeps (it is woken by hand-offs and sleeps only until
     *                    its workers' next linger or retry, read on {@code nanoClock}): {@link #IDLE_SLEEP_NS}
     *                    when {@code park} waits on that clock, shorter for a clock {@code park} knows nothing of
     */
    public record Threads(
            LongSupplier nanoClock,
            RandomGenerator jitter,
            java.util.function.BiFunction<Runnable, String, Thread> threads,
            Joiner joiner,
            java.util.function.LongConsumer park,
            Consumer<Thread> unpark,
            long maxIdleSleepNs) {
        /** The longest an idle io thread sleeps when its park and its deadlines share a clock. */
        public static final long IDLE_SLEEP_NS = IoIdle.MAX_SLEEP_NS;

        /**
         * Platform threads, with {@code nanoClock} for linger, backoff and deadlines: idle io threads sleep at most
         * 1 ms, since the clock may not be the one their parks wait on (a test's hand-driven clock).
         */
        public static Threads system(LongSupplier nanoClock, RandomGenerator jitter) {
            return new Threads(
                    nanoClock,
                    jitter,
                    Thread::new,
                    (thread, nanos) -> {
                        thread.join(Math.max(1, nanos / 1_000_000));
                        return !thread.isAlive();
                    },
                    nanos -> {
                        if (nanos > 0) {
                            java.util.concurrent.locks.LockSupport.parkNanos(nanos);
                        } else {
                            Thread.yield();
                        }
                    },
                    java.util.concurrent.locks.LockSupport::unpark,
                    1_000_000L);
        }
    }

    /** Waits up to {@code nanos} for a thread to end; whether it ended. */
    @FunctionalInterface
    public interface Joiner {
        boolean join(Thread thread, long nanos) throws InterruptedException;
    }

    /**
     * As the main constructor, with the time source and the retry jitter source given (for tests).
     *
     * @param nanoClock monotonic nanosecond clock for linger, backoff and deadlines; {@link #shutdown}
     *                  deadlines are read against it
     * @param jitter    random source of retry jitter, shared by the io threads (so thread-safe, as
     *                  {@link Random} is)
     */
    public SinkRuntime(
            String pipelineName,
            SinkDefinition definition,
            InFlightBudget budget,
            int ioThreads,
            MeterRegistry registry,
            Consumer<FatalPipelineException> fatalListener,
            LongSupplier nanoClock,
            RandomGenerator jitter) {
        this(pipelineName, definition, budget, ioThreads, registry, fatalListener, Threads.system(nanoClock, jitter));
    }

    /** As the main constructor, with the sink's clock and threads given (the pipeline's scheduler). */
    public SinkRuntime(
            String pipelineName,
            SinkDefinition definition,
            InFlightBudget budget,
            int ioThreads,
            MeterRegistry registry,
            Consumer<FatalPipelineException> fatalListener,
            Threads threads) {
        LongSupplier nanoClock = threads.nanoClock();
        RandomGenerator jitter = threads.jitter();
        this.threadSource = threads;
        this.pipelineName = Objects.requireNonNull(pipelineName, "pipelineName");
        this.definition = Objects.requireNonNull(definition, "definition");
        this.budget = Objects.requireNonNull(budget, "budget");
        this.nanoClock = Objects.requireNonNull(nanoClock, "nanoClock");
        Objects.requireNonNull(registry, "registry");
        Objects.requireNonNull(fatalListener, "fatalListener");
        Objects.requireNonNull(jitter, "jitter");
        if (ioThreads < 0) {
            throw new IllegalArgumentException(
                    "sink '" + definition.name() + "' io threads must be >= 0 (0 = one per writer), got " + ioThreads);
        }
        int shardCount = definition.shardCount();
        this.writersPerShard = definition.writersPerShard();
        int workerCount = shardCount * writersPerShard;
        this.queues = new ShardQueue[workerCount];
        this.pool = new ChunkPool(shardCount, ChunkPool.bytesPerShard(budget.maxBytes(), shardCount));
        this.writers = createWriters(definition);
        this.workers = new ShardWorker[workerCount];
        // Writes block their thread, so by default every writer gets its own: one slow replica then
        // delays only its own shard, and a shard's writers write at the same time.
        int threadCount = ioThreads == 0 ? workerCount : Math.min(ioThreads, workerCount);
        WriteGate[] gates = new WriteGate[threadCount];
        for (int t = 0; t < threadCount; t++) {
            gates[t] = new WriteGate();
        }
        BackoffPolicy backoff = new BackoffPolicy(definition.retry(), jitter);
        for (int shard = 0; shard < shardCount; shard++) {
            ShardQueue[] shardQueues = new ShardQueue[writersPerShard];
            for (int w = 0; w < writersPerShard; w++) {
                shardQueues[w] = new ShardQueue(definition.queueCapacity());
                queues[shard * writersPerShard + w] = shardQueues[w];
            }
            SinkMetrics metrics = new SinkMetrics(registry, pipelineName, definition.name(), shard, shardQueues);
            AtomicLong batchSequence = new AtomicLong();
            for (int w = 0; w < writersPerShard; w++) {
                int index = shard * writersPerShard + w;
                workers[index] = new ShardWorker(
                        definition,
                        shard,
                        queues[index],
                        pool,
                        budget,
                        writers[index],
                        gates[threadOf(shard, w, shardCount, threadCount)],
                        metrics,
                        backoff,
                        fatalListener,
                        nanoClock,
                        partitionNames,
                        batchSequence);
            }
        }
        this.agents = new IoAgent[threadCount];
        this.agentOfQueue = new IoAgent[workerCount];
        for (int t = 0; t < threadCount; t++) {
            java.util.List<ShardWorker> mine = new java.util.ArrayList<>();
            for (int shard = 0; shard < shardCount; shard++) {
                for (int w = 0; w < writersPerShard; w++) {
                    if (threadOf(shard, w, shardCount, threadCount) == t) {
                        mine.add(workers[shard * writersPerShard + w]);
                    }
                }
            }
            ShardWorker[] assigned = mine.toArray(new ShardWorker[0]);
            agents[t] = new IoAgent(
                    "etl-io-" + pipelineName + "-" + definition.name() + "-" + t,
                    assigned,
                    gates[t],
                    drain,
                    new IoIdle(threads.park(), threads.unpark(), threads.maxIdleSleepNs()),
                    nanoClock);
        }
        for (int shard = 0; shard < shardCount; shard++) {
            for (int w = 0; w < writersPerShard; w++) {
                agentOfQueue[shard * writersPerShard + w] = agents[threadOf(shard, w, shardCount, threadCount)];
            }
        }
    }

    /**
     * The io thread of writer {@code w} of {@code shard}: {@code (w × shards + shard) mod threads}. With one thread
     * per writer each has its own; with a multiple of the shard count (one per shard, say) no two shards share a
     * thread, so a slow shard delays only itself; with fewer threads than shards, shards share as before.
     */
    static int threadOf(int shard, int w, int shards, int threads) {
        return (w * shards + shard) % threads;
    }

    /** {@code writersPerShard} writers per shard, shard by shard (index {@code shard * writersPerShard + w}). */
    private static ShardWriter[] createWriters(SinkDefinition definition) {
        int perShard = definition.writersPerShard();
        ShardWriter[] writers = new ShardWriter[definition.shardCount() * perShard];
        try {
            for (int i = 0; i < writers.length; i++) {
                int shard = i / perShard;
                writers[i] = Objects.requireNonNull(
                        definition.writers().apply(shard),
                        "sink '" + definition.name() + "' writer factory returned null for shard " + shard);
            }
        } catch (RuntimeException e) {
            closeAll(definition.name(), writers, perShard);
            throw e;
        }
        return writers;
    }

    public String name() {
        return definition.name();
    }

    public int shardCount() {
        return definition.shardCount();
    }

    /** An empty chunk for {@code shard}, recycled when possible. Any thread; never blocks. */
    public Chunk newChunk(int shard) {
        checkShard(shard);
        return pool.take(shard);
    }

    /**
     * Hands a non-empty chunk to its shard worker if the in-flight budget and the shard's queue both
     * have room; on success ownership moves to the worker. On {@code false} nothing changed and the
     * caller still owns the chunk (it keeps it and pauses). Any lane thread; never blocks.
     *
     * <p>Once {@link #shutdown} has begun every hand-off is refused; the lane then fails the chunk's
     * acks when it tears down.
     *
     * @throws IllegalArgumentException if the chunk is empty or its shard is out of range
     */
    public boolean tryHandOff(Chunk chunk) {
        if (chunk.isEmpty()) {
            throw new IllegalArgumentException("sink '" + definition.name() + "' refuses an empty chunk: " + chunk);
        }
        int shard = chunk.shard();
        checkShard(shard);
        int index = shard * writersPerShard + Math.floorMod(chunk.route, writersPerShard);
        ShardQueue queue = queues[index];
        // A block chain is one queue entry but counts as all its chunks until they are settled.
        int chunks = chunk.next == null ? 1 : chunk.chainLength();
        // Count in before reading the closed flag: see ShardQueue for why this needs no lock.
        queue.beginHandOff(chunks);
        if (closed) {
            queue.cancelHandOff(chunks);
            return false;
        }
        // The buffers' capacity, not just their content: a queued chunk holds all of it. Once merged, the
        // worker returns the difference (the content is then in the batch buffer, the buffer in the pool).
        int bytes = chunk.next == null ? chunk.rows().capacity() : chunk.chainCapacity();
        if (!budget.tryAcquire(bytes)) {
            queue.cancelHandOff(chunks);
            return false;
        }
        chunk.budgetBytes = bytes;
        if (!queue.offer(chunk, chunks)) {
            chunk.budgetBytes = 0;
            budget.release(bytes);
            queue.cancelHandOff(chunks);
            return false;
        }
        agentOfQueue[index].ring();
        return true;
    }

    private void ringAll() {
        for (IoAgent agent : agents) {
            agent.ring();
        }
    }

    /** How many times the io threads went to sleep (tests). */
    long idleSleeps() {
        long sleeps = 0;
        for (IoAgent agent : agents) {
            sleeps += agent.sleeps();
        }
        return sleeps;
    }

    private void checkShard(int shard) {
        if (shard < 0 || shard >= definition.shardCount()) {
            throw new IllegalArgumentException(
                    "sink '" + definition.name() + "' has " + definition.shardCount() + " shards, got shard " + shard);
        }
    }

    /**
     * Starts the io threads.
     *
     * @throws IllegalStateException if already started or shut down
     */
    public synchronized void start() {
        if (state != State.NEW) {
            throw new IllegalStateException("sink '" + definition.name() + "' cannot start: it is " + state);
        }
        threads = new Thread[agents.length];
        for (int t = 0; t < agents.length; t++) {
            Thread thread = threadSource.threads().apply(agents[t], agents[t].roleName());
            thread.setDaemon(false);
            threads[t] = thread;
        }
        for (Thread thread : threads) {
            thread.start();
        }
        state = State.STARTED;
    }

    /**
     * Asks every worker to seal what it holds now instead of waiting for linger (revoke and shutdown
     * drains), and to keep doing so for chunks that arrive until its queue has been empty once.
     * Returns immediately; any thread.
     */
    public void flushNow() {
        for (ShardWorker worker : workers) {
            worker.requestFlush();
        }
        ringAll();
    }

    /**
     * Whether every handed-off chunk has been written or failed (queues empty, nothing being written).
     * Once true, the acks, the budget and the metrics of every such chunk have been settled.
     */
    public boolean isIdle() {
        for (ShardQueue queue : queues) {
            if (queue.unsettledChunks() != 0) {
                return false;
            }
        }
        return true;
    }

    /**
     * Stops the workers: they keep draining queued chunks and writing (retrying as configured) until
     * everything is written or {@code deadlineNanos} ({@link System#nanoTime()} based, or the clock given
     * to the constructor) passes; what is still unwritten then is abandoned — acks failed,
     * {@code etl_sink_abandoned_batches_total} incremented, one log line per shard. Returns the number
     * of abandoned batches, counting per shard the sealed batch, the open batch and (as one batch) the
     * chunks still queued. Then closes the writers.
     *
     * <p>Hand-offs are refused from the moment this is called. Blocks the caller until the io threads
     * have exited, with one exception: a thread still inside {@link ShardWriter#write} at the deadline is
     * not waited for. Its shards are abandoned by the calling thread (the batch being written included,
     * even if the write later succeeds — a replay is safe, a false success is not), the thread is
     * interrupted, and it exits when the write returns; writers are closed while it may still be inside
     * one. A write that returns before the caller notices the deadline settles normally (success is
     * durable). If never started, everything queued is abandoned at once.
     *
     * <p>Idempotent: later calls return 0.
     */
    public synchronized int shutdown(long deadlineNanos) {
        if (state == State.SHUT_DOWN) {
            return 0;
        }
        closed = true;
        int abandoned = 0;
        if (state == State.STARTED) {
            drain.begin(deadlineNanos);
            ringAll();
            abandoned = awaitWorkers(deadlineNanos);
        } else {
            for (ShardWorker worker : workers) {
                abandoned += worker.abandon();
            }
        }
        state = State.SHUT_DOWN;
        closeAll(definition.name(), writers, writersPerShard);
        if (abandoned > 0) {
            LOG.warn(
                    "Sink '{}' of pipeline '{}' shut down with {} abandoned batch(es)",
                    definition.name(),
                    pipelineName,
                    abandoned);
        }
        return abandoned;
    }

    private int awaitWorkers(long deadlineNanos) {
        boolean interrupted = false;
        for (int t = 0; t < threads.length; t++) {
            Thread thread = threads[t];
            IoAgent agent = agents[t];
            while (true) {
                try {
                    if (threadSource.joiner().join(thread, 1_000_000)) {
                        break;
                    }
                } catch (InterruptedException e) {
                    interrupted = true; // keep waiting: the deadline bounds the wait, not the interrupt
                }
                if (nanoClock.getAsLong() - deadlineNanos >= 0 && agent.seize()) {
                    LOG.warn(
                            "Sink '{}': io thread {} is still inside a write at the shutdown deadline; abandoning "
                                    + "its shards without waiting",
                            definition.name(),
                            thread.getName());
                    agent.abandonSeizedWorkers();
                    thread.interrupt();
                    break;
                }
            }
        }
        if (interrupted) {
            Thread.currentThread().interrupt();
        }
        // Exited threads abandoned their own shards (join publishes their counts), seized ones were
        // abandoned here.
        int total = 0;
        for (ShardWorker worker : workers) {
            total += worker.abandonedBatches();
        }
        return total;
    }

    private static void closeAll(String sinkName, ShardWriter[] writers, int perShard) {
        for (int i = 0; i < writers.length; i++) {
            ShardWriter writer = writers[i];
            if (writer == null) {
                continue;
            }
            try {
                writer.close();
            } catch (Exception e) {
                LOG.warn("Sink '{}': closing a writer of shard {} failed", sinkName, i / perShard, e);
            }
        }
    }

    /**
     * Capacity of every buffer this runtime holds now: queued chunks, the chunk pool's free lists and
     * every shard's two batch buffers (memory accounting for tests and diagnostics; a snapshot, exact
     * only when the io threads are quiet or blocked in a write). See {@link #retainedBytesBound}.
     */
    long retainedBufferBytes() {
        long total = pool.pooledBytes();
        for (ShardQueue queue : queues) {
            total += queue.queuedCapacity();
        }
        for (ShardWorker worker : workers) {
            total += worker.batchBufferBytes();
        }
        return total;
    }

    /**
     * What {@link #retainedBufferBytes()} never exceeds beyond the in-flight budget's own bytes
     * ({@code max-in-flight-bytes}, which covers queued chunk buffers in full): per writer two batch
     * buffers of {@link ShardWorker#batchBufferCap} (per shard about two of {@code max-bytes}, however many
     * writers it has) and per shard the pool's {@link ChunkPool#bytesPerShard} (together half the budget, at
     * least 4 MiB a shard). A single
     * chunk larger than {@code max-bytes} (admitted alone) adds its own size while its batch is in flight.
     */
    long retainedBytesBound() {
        long perShard = 2L
                        * writersPerShard
                        * ShardWorker.batchBufferCap(definition.batch().maxBytes(), writersPerShard)
                + pool.maxPooledBytesPerShard();
        return shardCount() * perShard;
    }

    /**
     * Tests only (fault injection), before {@link #start()}: {@code fault} runs in the middle of every
     * merge of {@code shard} (after the chunk's bytes are copied, before its acks move to the batch).
     */
    void injectMidMergeFault(int shard, Runnable fault) {
        checkShard(shard);
        for (int w = 0; w < writersPerShard; w++) {
            workers[shard * writersPerShard + w].injectMidMergeFault(fault);
        }
    }

    /** Whether every shard's writer reports healthy. */
    public boolean isHealthy() {
        for (ShardWriter writer : writers) {
            if (!writer.isHealthy()) {
                return false;
            }
        }
        return true;
    }

    /** Same as {@code shutdown(now)} on the runtime's clock: abandon whatever is left immediately. */
    @Override
    public void close() {
        shutdown(nanoClock.getAsLong());
    }
}
