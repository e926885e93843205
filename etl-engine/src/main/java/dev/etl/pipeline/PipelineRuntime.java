package dev.etl.pipeline;

import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import dev.etl.internal.backpressure.InFlightBudget;
import dev.etl.error.FatalPipelineException;
import dev.etl.internal.metrics.ErrorMetrics;
import dev.etl.internal.metrics.LaneMetrics;
import dev.etl.ops.ChainFactory;
import dev.etl.sink.ChunkConfig;
import dev.etl.internal.sink.ChunkOutbox;
import dev.etl.sink.SinkDefinition;
import dev.etl.internal.sink.SinkRuntime;
import dev.etl.source.Source;
import dev.etl.util.Secrets;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;

/**
 * A running pipeline: N lane threads, the sinks' io threads, and a controller thread that performs
 * shutdown and failure handling.
 *
 * <p>States move forward only: {@code STARTING → RUNNING → DRAINING → STOPPED}, or to
 * {@code FAILED} from any non-terminal state. On shutdown the controller sets the drain deadline
 * ({@code drain-timeout}), lanes stop polling, hand off their chunks, wait for their partitions'
 * batches to be written, and commit synchronously; then the sinks stop, abandoning (failing, counting
 * and logging) whatever is still unwritten. On failure nothing more is committed.
 *
 * <p>Thread-safe.
 */
public final class PipelineRuntime {
    private static final Logger log = LoggerFactory.getLogger(PipelineRuntime.class);
    private static final long LANE_JOIN_GRACE_NS = TimeUnit.SECONDS.toNanos(5);

    private final PipelineConfig config;
    private final Source source;
    private final List<SinkDefinition> sinkDefinitions;
    private final SinkDefinition deadLetterDefinition;
    private final ChainFactory chainFactory;
    private final MeterRegistry registry;
    private final InFlightBudget budget;
    private final ErrorMetrics errorMetrics;
    private final AtomicReference<PipelineState> state = new AtomicReference<>(PipelineState.STARTING);
    private final AtomicReference<Throwable> failure = new AtomicReference<>();
    private final CountDownLatch stopRequested = new CountDownLatch(1);
    private final CountDownLatch terminated = new CountDownLatch(1);
    private final AtomicInteger lanesOpened = new AtomicInteger();
    private final AtomicInteger lanesAlive = new AtomicInteger();
    private final AtomicLong recordsIn = new AtomicLong();
    private final AtomicLong uncommittedBatches = new AtomicLong();
    private final AtomicLong failedBatches = new AtomicLong();
    private final AtomicLong droppedChunks = new AtomicLong();
    private final Map<Integer, Long> committed = new java.util.concurrent.ConcurrentHashMap<>();
    private final List<SinkRuntime> sinks = new ArrayList<>();
    private final List<Lane> lanes = new ArrayList<>();
    private final List<Thread> laneThreads = new ArrayList<>();
    private volatile long drainDeadlineNs;
    private volatile RunReport report;

    PipelineRuntime(PipelineConfig config, Source source, List<SinkDefinition> sinkDefinitions,
            SinkDefinition deadLetterDefinition, ChainFactory chainFactory, MeterRegistry registry) {
        this.config = config;
        this.source = source;
        this.sinkDefinitions = sinkDefinitions;
        this.deadLetterDefinition = deadLetterDefinition;
        this.chainFactory = chainFactory;
        this.registry = registry;
        this.budget = new InFlightBudget(config.maxInFlightBytes());
        this.errorMetrics = new ErrorMetrics(registry, config.name());
        registerGauges();
    }

    private void registerGauges() {
        String name = config.name();
        Gauge.builder("etl.pipeline.state", this, r -> r.state().code())
                .description("0 starting, 1 running, 2 draining, 3 stopped, 4 failed").tag("pipeline", name)
                .register(registry);
        Gauge.builder("etl.pipeline.lanes.alive", lanesAlive, AtomicInteger::get)
                .description("Lane threads currently running").tag("pipeline", name).register(registry);
        Gauge.builder("etl.pipeline.lanes.configured", config, PipelineConfig::lanes)
                .description("Lane threads the pipeline runs (etl.pipeline.threads)").tag("pipeline", name)
                .register(registry);
        Gauge.builder("etl.backpressure.in.flight.bytes", budget, InFlightBudget::inFlightBytes)
                .description("Encoded bytes handed to sinks and not yet written").baseUnit("bytes")
                .tag("pipeline", name).register(registry);
        Gauge.builder("etl.backpressure.paused.lanes", this, PipelineRuntime::pausedLanes)
                .description("Lanes that currently have their partitions paused").tag("pipeline", name)
                .register(registry);
        Gauge.builder("etl.checkpoint.held.partitions", this, r -> r.heldPartitions().size())
                .description("Partitions paused because their oldest outstanding batch failed or too many batches "
                        + "are outstanding behind it")
                .tag("pipeline", name).register(registry);
        Gauge.builder("etl.checkpoint.watermark.age", this, r -> r.maxWatermarkAgeNs() / 1e9)
                .description("Age of the oldest batch not yet committable, over all partitions (0 when idle)")
                .baseUnit("seconds").tag("pipeline", name).register(registry);
    }

    /**
     * Starts the sinks' io threads and the lane threads, and returns. The state becomes
     * {@code RUNNING} at once; lanes open their source and chain on their own threads.
     *
     * <p>Every sink is constructed (its writer factory and validation run) before any io thread
     * starts. If anything fails here, the start is undone before the error is rethrown: the sinks
     * built so far are shut down (their io threads stopped, writers closed), the source is closed,
     * the state becomes {@code FAILED}, and {@link #awaitTermination()} returns a report with exit
     * code 1. No {@code etl-*} thread outlives a failed start.
     *
     * @throws IllegalStateException if already started
     */
    public synchronized void start() {
        if (!lanes.isEmpty() || !sinks.isEmpty() || state.get() != PipelineState.STARTING) {
            throw new IllegalStateException("pipeline '" + config.name() + "' was already started");
        }
        Thread controller = new Thread(this::control, "etl-controller-" + config.name());
        boolean controllerStarted = false;
        try {
            SinkRuntime deadLetter = buildSinks();
            buildLanes(deadLetter);
            for (SinkRuntime sink : sinks) {
                sink.start();
            }
            controller.start();
            controllerStarted = true;
            state.compareAndSet(PipelineState.STARTING, PipelineState.RUNNING);
            lanesAlive.set(laneThreads.size());
            laneThreads.forEach(Thread::start);
        } catch (RuntimeException | Error e) {
            abortStart(e, controllerStarted);
            throw e;
        }
        log.info("pipeline={} started: {} lanes, source {}, sinks {}", config.name(), config.lanes(), source.describe(),
                sinks.stream().map(SinkRuntime::name).toList());
    }

    /** Constructs every sink (writer factories run here), starting none; returns the dead-letter sink or null. */
    private SinkRuntime buildSinks() {
        for (SinkDefinition definition : sinkDefinitions) {
            sinks.add(new SinkRuntime(config.name(), definition, budget, config.ioThreads(), registry, this::fail));
        }
        if (deadLetterDefinition == null) {
            return null;
        }
        // An ordinary sink (batching, retries, acks, abandonment, metrics), written to only by the
        // DEAD_LETTER error path; last, so its name is never the chains' default sink.
        SinkRuntime deadLetter = new SinkRuntime(config.name(), deadLetterDefinition, budget, config.ioThreads(),
                registry, this::fail);
        sinks.add(deadLetter);
        return deadLetter;
    }

    private void buildLanes(SinkRuntime deadLetter) {
        PipelineSkipWindow skipWindow = new PipelineSkipWindow(config.skipBudget(), System::nanoTime);
        for (int i = 0; i < config.lanes(); i++) {
            Map<String, ChunkOutbox> outboxes = new LinkedHashMap<>();
            for (SinkRuntime sink : sinks) {
                if (sink != deadLetter) {
                    outboxes.put(sink.name(), new ChunkOutbox(sink, sink.definition()));
                }
            }
            LaneChainContext context = new LaneChainContext(config, i, registry, outboxes, errorMetrics,
                    deadLetter == null ? null : new ChunkOutbox(deadLetter, deadLetter.definition()), skipWindow);
            Lane lane = new Lane(this, i, context, new LaneMetrics(registry, config.name(), i));
            lanes.add(lane);
            laneThreads.add(new Thread(lane, "etl-lane-" + config.name() + "-" + i));
        }
    }

    /**
     * Undoes a start that threw: FAILED, every sink built so far shut down at once, the source closed,
     * the run ended. When the controller already runs it does the same through {@link #fail}.
     */
    private void abortStart(Throwable error, boolean controllerStarted) {
        fail(new FatalPipelineException(dev.etl.error.ErrorClass.SOURCE,
                "pipeline '" + config.name() + "' failed to start: " + error, error));
        if (controllerStarted) {
            return; // the controller joins the lanes, shuts the sinks down and ends the run
        }
        long abandoned = 0;
        for (SinkRuntime sink : sinks) {
            try {
                abandoned += sink.shutdown(System.nanoTime());
            } catch (RuntimeException e) {
                log.error("pipeline={} sink {} failed to shut down after a failed start", config.name(), sink.name(), e);
            }
        }
        try {
            source.close();
        } catch (Exception e) {
            log.warn("pipeline={} source close failed", config.name(), e);
        }
        endRun(abandoned);
    }

    /** Starts (if needed) and blocks until the run ends. */
    public RunReport run() throws InterruptedException {
        if (lanes.isEmpty()) {
            start();
        }
        return awaitTermination();
    }

    /** A handle that requests a graceful shutdown. */
    public ShutdownHandle shutdownHandle() {
        return this::shutdown;
    }

    /** Requests a graceful shutdown (see {@link ShutdownHandle}). */
    public void shutdown() {
        if (state.compareAndSet(PipelineState.RUNNING, PipelineState.DRAINING)
                || state.compareAndSet(PipelineState.STARTING, PipelineState.DRAINING)) {
            drainDeadlineNs = System.nanoTime() + config.drainTimeout().toNanos();
            log.info("pipeline={} draining (deadline in {})", config.name(), config.drainTimeout());
            wakeLanes();
        }
        stopRequested.countDown();
    }

    /** Moves the pipeline to FAILED (first failure wins); nothing is committed after this. Any thread. */
    public void fail(FatalPipelineException error) {
        while (true) {
            PipelineState current = state.get();
            if (current.isTerminal()) {
                return;
            }
            if (state.compareAndSet(current, PipelineState.FAILED)) {
                failure.set(error);
                errorMetrics.increment(error.errorClass(), "pipeline");
                // the failure may quote a URL with user info or a password=... setting: masked (Secrets)
                log.error("pipeline={} FAILED: {}", config.name(), Secrets.mask(error.getMessage()), Secrets.mask(error));
                wakeLanes();
                stopRequested.countDown();
                return;
            }
        }
    }

    private void wakeLanes() {
        for (Lane lane : lanes) {
            lane.wakeup();
        }
    }

    /** Blocks until the run has ended and returns its report. */
    public RunReport awaitTermination() throws InterruptedException {
        terminated.await();
        return report;
    }

    /** Like {@link #awaitTermination()} but gives up after {@code timeout}, returning null. */
    public RunReport awaitTermination(Duration timeout) throws InterruptedException {
        return terminated.await(timeout.toNanos(), TimeUnit.NANOSECONDS) ? report : null;
    }

    private void control() {
        try {
            stopRequested.await();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            fail(new FatalPipelineException(dev.etl.error.ErrorClass.SOURCE, "controller interrupted", e));
        }
        long joinDeadlineNs = (state.get() == PipelineState.DRAINING ? drainDeadlineNs
                : System.nanoTime() + config.drainTimeout().toNanos()) + LANE_JOIN_GRACE_NS;
        int stuckLanes = joinLanes(joinDeadlineNs);
        if (stuckLanes > 0) {
            // A lane that did not stop could not report what it holds; whatever it is, it is uncommitted.
            uncommittedBatches.addAndGet(stuckLanes);
        }
        long sinkDeadlineNs = state.get() == PipelineState.DRAINING ? drainDeadlineNs : System.nanoTime();
        long abandoned = 0;
        for (SinkRuntime sink : sinks) {
            try {
                abandoned += sink.shutdown(sinkDeadlineNs);
            } catch (RuntimeException e) {
                log.error("pipeline={} sink {} failed to shut down", config.name(), sink.name(), e);
            }
        }
        try {
            source.close();
        } catch (Exception e) {
            log.warn("pipeline={} source close failed", config.name(), e);
        }
        endRun(abandoned);
    }

    /** Builds the report, logs the final line and releases {@link #awaitTermination()}. Once. */
    private void endRun(long abandoned) {
        state.compareAndSet(PipelineState.DRAINING, PipelineState.STOPPED);
        report = new RunReport(state.get(), failure.get(), abandoned, recordsIn.get(), uncommittedBatches.get(),
                failedBatches.get(), droppedChunks.get());
        if (report.leftDataUnwritten()) {
            log.warn("pipeline={} stopped with data unwritten: abandonedBatches={} uncommittedBatches={} "
                    + "failedBatches={} droppedChunks={}; their offsets were not committed and will replay",
                    config.name(), abandoned, report.uncommittedBatches(), report.failedBatches(),
                    report.droppedChunks());
        }
        log.info("pipeline={} ended: state={} exitCode={} recordsIn={} abandonedBatches={} uncommittedBatches={} "
                + "failedBatches={} droppedChunks={}", config.name(), report.state(), report.exitCode(),
                report.recordsIn(), abandoned, report.uncommittedBatches(), report.failedBatches(),
                report.droppedChunks());
        terminated.countDown();
    }

    /** Joins the lane threads until the deadline; returns how many are still alive. */
    private int joinLanes(long deadlineNs) {
        int alive = 0;
        for (Thread thread : laneThreads) {
            long remainingMs = TimeUnit.NANOSECONDS.toMillis(deadlineNs - System.nanoTime());
            try {
                thread.join(Math.max(1, remainingMs));
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                return (int) laneThreads.stream().filter(Thread::isAlive).count();
            }
            if (thread.isAlive()) {
                alive++;
                log.error("pipeline={} lane thread {} did not stop by the drain deadline", config.name(),
                        thread.getName());
            }
        }
        return alive;
    }

    public PipelineState state() {
        return state.get();
    }

    public PipelineConfig config() {
        return config;
    }

    /** The fatal error, if the pipeline failed. */
    public Throwable failure() {
        return failure.get();
    }

    /** Liveness: not failed, and every lane thread alive while running. */
    public boolean isLive() {
        PipelineState s = state.get();
        if (s == PipelineState.FAILED) {
            return false;
        }
        return s != PipelineState.RUNNING || lanesAlive.get() == laneThreads.size();
    }

    /**
     * Readiness: running, every lane opened its source and received its first assignment (possibly
     * empty), and every sink healthy.
     */
    public boolean isReady() {
        if (state.get() != PipelineState.RUNNING || lanesOpened.get() < config.lanes()) {
            return false;
        }
        for (Lane lane : lanes) {
            if (!lane.hasJoined()) {
                return false;
            }
        }
        for (SinkRuntime sink : sinks) {
            if (!sink.isHealthy()) {
                return false;
            }
        }
        return true;
    }

    /** The last offset committed per partition id by this process (diagnostics and tests). */
    public Map<Integer, Long> committedOffsets() {
        return Map.copyOf(committed);
    }

    /** Records polled so far. */
    public long recordsIn() {
        return recordsIn.get();
    }

    /** The in-flight byte budget shared by all lanes and sinks (engine use). */
    InFlightBudget budget() {
        return budget;
    }

    /** Encoded bytes handed to the sinks and not yet written, failed or abandoned (the in-flight budget's use). */
    public long inFlightBytes() {
        return budget.inFlightBytes();
    }

    /** The in-flight byte budget's limit ({@code max-in-flight-bytes}). */
    public long maxInFlightBytes() {
        return budget.maxBytes();
    }

    public MeterRegistry meterRegistry() {
        return registry;
    }

    long maxWatermarkAgeNs() {
        long max = 0;
        for (Lane lane : lanes) {
            max = Math.max(max, lane.watermarkAgeNs());
        }
        return max;
    }

    /**
     * Names of the partitions currently paused on their own because their oldest outstanding batch
     * is stalled (failed, or too many batches outstanding behind it), over all lanes, sorted. Any
     * thread; a snapshot as of each lane's last change.
     */
    public List<String> heldPartitions() {
        List<String> names = new ArrayList<>();
        for (Lane lane : lanes) {
            names.addAll(lane.heldPartitions());
        }
        names.sort(null);
        return names;
    }

    int pausedLanes() {
        int paused = 0;
        for (Lane lane : lanes) {
            paused += lane.isPaused() ? 1 : 0;
        }
        return paused;
    }

    Source source() {
        return source;
    }

    ChainFactory chainFactory() {
        return chainFactory;
    }

    long drainDeadlineNs() {
        return drainDeadlineNs;
    }

    void laneOpened() {
        lanesOpened.incrementAndGet();
    }

    void laneStopped(int index) {
        lanesAlive.decrementAndGet();
        if (state.get() == PipelineState.RUNNING) {
            fail(new FatalPipelineException(dev.etl.error.ErrorClass.SOURCE,
                    "lane " + index + " of pipeline '" + config.name() + "' stopped unexpectedly", null));
        }
    }

    /** A lane stopped holding these uncommitted source batches ({@code failed} of them failed) and dropped chunks. */
    void laneLeftUnwritten(long uncommitted, long failed, long dropped) {
        uncommittedBatches.addAndGet(uncommitted);
        failedBatches.addAndGet(failed);
        droppedChunks.addAndGet(dropped);
    }

    void recordsIn(int count) {
        recordsIn.addAndGet(count);
    }

    void committed(int partition, long offset) {
        committed.merge(partition, offset, Math::max);
    }

    void flushSinks() {
        for (SinkRuntime sink : sinks) {
            sink.flushNow();
        }
    }
}
