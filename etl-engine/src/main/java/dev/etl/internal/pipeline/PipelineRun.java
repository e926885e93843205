package dev.etl.internal.pipeline;

import dev.etl.error.FatalPipelineException;
import dev.etl.error.Secrets;
import dev.etl.internal.backpressure.InFlightBudget;
import dev.etl.internal.metrics.ErrorMetrics;
import dev.etl.internal.metrics.LaneMetrics;
import dev.etl.internal.sink.ChunkOutbox;
import dev.etl.internal.sink.SinkRuntime;
import dev.etl.ops.ChainFactory;
import dev.etl.pipeline.PipelineConfig;
import dev.etl.pipeline.PipelineRuntime;
import dev.etl.pipeline.PipelineState;
import dev.etl.pipeline.RunReport;
import dev.etl.pipeline.Scheduler;
import dev.etl.sink.SinkDefinition;
import dev.etl.source.Source;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The engine side of a running pipeline, behind {@link dev.etl.pipeline.PipelineRuntime} (which delegates
 * its public methods here): N lane threads, the sinks' io threads, and a controller thread that performs
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
public final class PipelineRun {
    private static final Logger log = LoggerFactory.getLogger(PipelineRuntime.class);

    private final PipelineConfig config;
    private final Scheduler scheduler;
    private final Source source;
    private final List<SinkDefinition> sinkDefinitions;
    private final SinkDefinition deadLetterDefinition;
    private final ChainFactory chainFactory;
    private final MeterRegistry registry;
    private final InFlightBudget budget;
    private final ErrorMetrics errorMetrics;
    private final AtomicReference<PipelineState> state = new AtomicReference<>(PipelineState.STARTING);
    private final AtomicReference<Throwable> failure = new AtomicReference<>();
    private final AtomicInteger lanesOpened = new AtomicInteger();
    private final AtomicInteger lanesAlive = new AtomicInteger();
    private final AtomicLong recordsIn = new AtomicLong();
    private final Map<Integer, Long> committed = new java.util.concurrent.ConcurrentHashMap<>();
    private final List<SinkRuntime> sinks = new ArrayList<>();
    private final List<Lane> lanes = new ArrayList<>();
    private final List<Thread> laneThreads = new ArrayList<>();
    /** The end of the run: shutdown sequence, failed-start undo, run report. */
    private final PipelineController controller;

    private volatile long drainDeadlineNs;

    public PipelineRun(
            PipelineConfig config,
            Source source,
            List<SinkDefinition> sinkDefinitions,
            SinkDefinition deadLetterDefinition,
            ChainFactory chainFactory,
            MeterRegistry registry,
            Scheduler scheduler) {
        this.config = config;
        this.scheduler = scheduler;
        this.source = source;
        this.sinkDefinitions = sinkDefinitions;
        this.deadLetterDefinition = deadLetterDefinition;
        this.chainFactory = chainFactory;
        this.registry = registry;
        this.budget = new InFlightBudget(config.maxInFlightBytes());
        this.errorMetrics = new ErrorMetrics(registry, config.name());
        this.controller = new PipelineController(this, scheduler, sinks, laneThreads);
        registerGauges();
    }

    private void registerGauges() {
        String name = config.name();
        Gauge.builder("etl.pipeline.state", this, r -> r.state().code())
                .description("0 starting, 1 running, 2 draining, 3 stopped, 4 failed")
                .tag("pipeline", name)
                .register(registry);
        Gauge.builder("etl.pipeline.lanes.alive", lanesAlive, AtomicInteger::get)
                .description("Lane threads currently running")
                .tag("pipeline", name)
                .register(registry);
        Gauge.builder("etl.pipeline.lanes.configured", config, PipelineConfig::lanes)
                .description("Lane threads the pipeline runs (etl.pipeline.threads)")
                .tag("pipeline", name)
                .register(registry);
        Gauge.builder("etl.backpressure.in.flight.bytes", budget, InFlightBudget::inFlightBytes)
                .description("Encoded bytes handed to sinks and not yet written")
                .baseUnit("bytes")
                .tag("pipeline", name)
                .register(registry);
        Gauge.builder("etl.backpressure.paused.lanes", this, PipelineRun::pausedLanes)
                .description("Lanes that currently have their partitions paused")
                .tag("pipeline", name)
                .register(registry);
        Gauge.builder(
                        "etl.checkpoint.held.partitions",
                        this,
                        r -> r.heldPartitions().size())
                .description("Partitions paused because their oldest outstanding batch failed or too many batches "
                        + "are outstanding behind it")
                .tag("pipeline", name)
                .register(registry);
        Gauge.builder("etl.checkpoint.watermark.age", this, r -> r.maxWatermarkAgeNs() / 1e9)
                .description("Age of the oldest batch not yet committable, over all partitions (0 when idle)")
                .baseUnit("seconds")
                .tag("pipeline", name)
                .register(registry);
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
        Thread controllerThread = scheduler.newThread(controller, "etl-controller-" + config.name());
        boolean controllerStarted = false;
        try {
            SinkRuntime deadLetter = buildSinks();
            buildLanes(deadLetter);
            for (SinkRuntime sink : sinks) {
                sink.start();
            }
            controllerThread.start();
            controllerStarted = true;
            state.compareAndSet(PipelineState.STARTING, PipelineState.RUNNING);
            lanesAlive.set(laneThreads.size());
            laneThreads.forEach(Thread::start);
        } catch (RuntimeException | Error e) {
            abortStart(e, controllerStarted);
            throw e;
        }
        log.info(
                "pipeline={} started: {} lanes, source {}, sinks {}",
                config.name(),
                config.lanes(),
                source.describe(),
                sinks.stream().map(SinkRuntime::name).toList());
    }

    /**
     * The first half of the wiring {@link #start()} builds before it starts any thread: every sink
     * constructed (its writer factory and validation run) into {@link #sinks}, the dead-letter sink last;
     * returns the dead-letter sink or null. {@link #buildLanes} is the second half. Both add to this run's
     * own lists as they go, so a start that throws half-way can undo exactly what was built.
     */
    private SinkRuntime buildSinks() {
        for (SinkDefinition definition : sinkDefinitions) {
            sinks.add(newSink(definition));
        }
        if (deadLetterDefinition == null) {
            return null;
        }
        // An ordinary sink (batching, retries, acks, abandonment, metrics), written to only by the
        // DEAD_LETTER error path; last, so its name is never the chains' default sink.
        SinkRuntime deadLetter = newSink(deadLetterDefinition);
        sinks.add(deadLetter);
        return deadLetter;
    }

    private SinkRuntime newSink(SinkDefinition definition) {
        return new SinkRuntime(
                config.name(),
                definition,
                budget,
                config.ioThreads(),
                registry,
                this::fail,
                new SinkRuntime.Threads(
                        scheduler::nanoTime,
                        scheduler.random(),
                        scheduler::newThread,
                        scheduler::join,
                        scheduler::parkNanos,
                        scheduler::unpark,
                        SinkRuntime.Threads.IDLE_SLEEP_NS));
    }

    /**
     * Builds every lane into {@link #lanes} and its thread, unstarted, into {@link #laneThreads}: per lane
     * one outbox per ordinary sink (and one for the dead-letter sink) and its chain context.
     */
    private void buildLanes(SinkRuntime deadLetter) {
        PipelineSkipWindow skipWindow = new PipelineSkipWindow(config.skipBudget(), scheduler::nanoTime);
        for (int i = 0; i < config.lanes(); i++) {
            Map<String, ChunkOutbox> outboxes = new LinkedHashMap<>();
            for (SinkRuntime sink : sinks) {
                if (sink != deadLetter) {
                    outboxes.put(sink.name(), new ChunkOutbox(sink, sink.definition(), i));
                }
            }
            LaneChainContext context = new LaneChainContext(
                    config,
                    i,
                    registry,
                    outboxes,
                    errorMetrics,
                    deadLetter == null ? null : new ChunkOutbox(deadLetter, deadLetter.definition(), i),
                    skipWindow,
                    scheduler::nanoTime,
                    LaneChainContext.SKIP_LOG_INTERVAL_NS);
            Lane lane = new Lane(this, i, context, new LaneMetrics(registry, config.name(), i));
            lanes.add(lane);
            laneThreads.add(scheduler.newThread(lane, "etl-lane-" + config.name() + "-" + i));
        }
    }

    /**
     * Undoes a start that threw: FAILED, every sink built so far shut down at once, the source closed,
     * the run ended ({@link PipelineController#endFailedStart}). When the controller already runs it
     * does the same through {@link #fail}.
     */
    private void abortStart(Throwable error, boolean controllerStarted) {
        fail(new FatalPipelineException(
                dev.etl.error.ErrorClass.SOURCE, "pipeline '" + config.name() + "' failed to start: " + error, error));
        if (controllerStarted) {
            return; // the controller joins the lanes, shuts the sinks down and ends the run
        }
        controller.endFailedStart();
    }

    /** Starts (if needed) and blocks until the run ends. */
    public RunReport run() throws InterruptedException {
        if (lanes.isEmpty()) {
            start();
        }
        return awaitTermination();
    }

    /** Requests a graceful shutdown (see {@link dev.etl.pipeline.ShutdownHandle}). */
    public void shutdown() {
        if (state.compareAndSet(PipelineState.RUNNING, PipelineState.DRAINING)
                || state.compareAndSet(PipelineState.STARTING, PipelineState.DRAINING)) {
            drainDeadlineNs = scheduler.nanoTime() + config.drainTimeout().toNanos();
            log.info("pipeline={} draining (deadline in {})", config.name(), config.drainTimeout());
            wakeLanes();
        }
        controller.requestStop();
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
                log.error(
                        "pipeline={} FAILED: {}", config.name(), Secrets.mask(error.getMessage()), Secrets.mask(error));
                wakeLanes();
                controller.requestStop();
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
        return controller.awaitTermination();
    }

    /** Like {@link #awaitTermination()} but gives up after {@code timeout}, returning null. */
    public RunReport awaitTermination(Duration timeout) throws InterruptedException {
        return controller.awaitTermination(timeout);
    }

    public PipelineState state() {
        return state.get();
    }

    public PipelineConfig config() {
        return config;
    }

    /** A lane opened its source lane: the sinks name source partitions with it in their messages. */
    public void sourceLaneOpened(dev.etl.source.SourceLane lane) {
        for (SinkRuntime sink : sinks) {
            sink.partitionNames().use(lane::describe);
        }
    }

    /** Where the pipeline's clock and threads come from. */
    public Scheduler scheduler() {
        return scheduler;
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
    public InFlightBudget budget() {
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

    public long maxWatermarkAgeNs() {
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

    public int pausedLanes() {
        int paused = 0;
        for (Lane lane : lanes) {
            paused += lane.isPaused() ? 1 : 0;
        }
        return paused;
    }

    public Source source() {
        return source;
    }

    public ChainFactory chainFactory() {
        return chainFactory;
    }

    public long drainDeadlineNs() {
        return drainDeadlineNs;
    }

    /** The end of a run (controller): a drained pipeline becomes STOPPED; a failed one stays FAILED. */
    public void markStopped() {
        state.compareAndSet(PipelineState.DRAINING, PipelineState.STOPPED);
    }

    public void laneOpened() {
        lanesOpened.incrementAndGet();
    }

    public void laneStopped(int index) {
        lanesAlive.decrementAndGet();
        if (state.get() == PipelineState.RUNNING) {
            fail(new FatalPipelineException(
                    dev.etl.error.ErrorClass.SOURCE,
                    "lane " + index + " of pipeline '" + config.name() + "' stopped unexpectedly",
                    null));
        }
    }

    /** A lane stopped holding these uncommitted source batches ({@code failed} of them failed) and dropped chunks. */
    public void laneLeftUnwritten(long uncommitted, long failed, long dropped) {
        controller.laneLeftUnwritten(uncommitted, failed, dropped);
    }

    public void recordsIn(int count) {
        recordsIn.addAndGet(count);
    }

    public void committed(int partition, long offset) {
        committed.merge(partition, offset, Math::max);
    }

    public void flushSinks() {
        for (SinkRuntime sink : sinks) {
            sink.flushNow();
        }
    }
}
