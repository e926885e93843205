package dev.etl.internal.pipeline;

import dev.etl.error.ErrorClass;
import dev.etl.error.ErrorPolicy;
import dev.etl.error.FatalPipelineException;
import dev.etl.error.RateLimitedLog;
import dev.etl.error.RecordException;
import dev.etl.error.SkipBudget;
import dev.etl.internal.metrics.ErrorMetrics;
import dev.etl.internal.ops.LaneContext;
import dev.etl.internal.ops.StatefulStage;
import dev.etl.internal.record.MutableRecordMeta;
import dev.etl.internal.sink.Chunk;
import dev.etl.internal.sink.ChunkOutbox;
import dev.etl.ops.ChainContext;
import dev.etl.pipeline.PipelineConfig;
import dev.etl.sink.DeadLetterEncoder;
import dev.etl.sink.RowBuffer;
import dev.etl.sink.SinkDefinition;
import io.micrometer.core.instrument.MeterRegistry;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.function.IntFunction;
import java.util.function.LongSupplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/** The {@link ChainContext} a lane hands its chain. Confined to the lane thread. */
public final class LaneChainContext implements LaneContext {
    private static final Logger log = LoggerFactory.getLogger(LaneChainContext.class);
    static final long SKIP_LOG_INTERVAL_NS = 10_000_000_000L;

    private final PipelineConfig config;
    private final int laneIndex;
    private final MutableRecordMeta meta = new MutableRecordMeta();
    private final MeterRegistry registry;
    private final Map<String, ChunkOutbox> outboxes;
    private final List<String> sinkNames;
    private final ErrorMetrics errors;
    private final RateLimitedLog skipLog;
    private final RateLimitedLog deadLetterLog;
    private final LongSupplier nanoClock;
    // Skip budget (see SkipBudget): this lane's tumbling window, plain fields, lane thread only.
    private final SkipBudget budget;
    private final long budgetWindowNs;
    private final long[] windowSkips = new long[ErrorClass.values().length];
    private long windowStartNs;
    private long windowRecords;
    /** The pipeline-wide window every lane of the pipeline shares. */
    private final PipelineSkipWindow pipelineWindow;

    private final ChunkOutbox deadLetter;
    /** The lane's deterministic blocks, or null. */
    private LaneBlocks blocks;

    /** The chain's {@code process} stages, in build order: timers to fire, holders to ask. */
    private final java.util.ArrayList<StatefulStage> statefulStages = new java.util.ArrayList<>(2);
    /** The lane's checkpointer: told what stateful operators keep (for the stall detector). */
    private dev.etl.internal.checkpoint.Checkpointer checkpointer;

    private IntFunction<String> partitionNames = p -> "partition-" + p;
    private IntFunction<String> topics = p -> "default";
    /** Stages whose error policy the chain asked for while it was built (build time only). */
    private final java.util.Set<String> stages = new java.util.LinkedHashSet<>();

    LaneChainContext(
            PipelineConfig config,
            int laneIndex,
            MeterRegistry registry,
            Map<String, ChunkOutbox> outboxes,
            ErrorMetrics errors,
            ChunkOutbox deadLetter,
            PipelineSkipWindow pipelineWindow) {
        this(
                config,
                laneIndex,
                registry,
                outboxes,
                errors,
                deadLetter,
                pipelineWindow,
                System::nanoTime,
                SKIP_LOG_INTERVAL_NS);
    }

    LaneChainContext(
            PipelineConfig config,
            int laneIndex,
            MeterRegistry registry,
            Map<String, ChunkOutbox> outboxes,
            ErrorMetrics errors,
            ChunkOutbox deadLetter,
            PipelineSkipWindow pipelineWindow,
            LongSupplier nanoClock,
            long logIntervalNs) {
        this.config = config;
        this.pipelineWindow = pipelineWindow;
        this.nanoClock = nanoClock;
        this.skipLog = new RateLimitedLog(logIntervalNs, nanoClock);
        this.deadLetterLog = new RateLimitedLog(logIntervalNs, nanoClock);
        this.budget = config.skipBudget();
        this.budgetWindowNs = budget.window().toNanos();
        this.windowStartNs = nanoClock.getAsLong();
        if (budget.enabled()) {
            errors.registerSkipBudget();
        }
        this.deadLetter = deadLetter;
        this.laneIndex = laneIndex;
        this.registry = registry;
        this.outboxes = new LinkedHashMap<>(outboxes);
        this.sinkNames = List.copyOf(outboxes.keySet());
        this.errors = errors;
    }

    /**
     * Called once the lane's chain is built: every stage named in the configured stage policies must be a
     * stage of the chain (one that asked for its error policy), else a typo would silently leave the
     * declared policy in force.
     *
     * @throws FatalPipelineException naming the unknown stage, the closest known one and all known ones
     */
    void requireConfiguredStagesExist() {
        for (String configured : config.stagePolicies().keySet()) {
            if (!stages.contains(configured)) {
                String closest = dev.etl.error.Suggestion.closest(configured, stages);
                throw new FatalPipelineException(
                        ErrorClass.OPERATOR,
                        "pipeline '" + config.name()
                                + "' configures an error policy for stage '" + configured
                                + "' (Spring Boot: etl.errors.stages."
                                + configured + "), but its chain has no stage of that name"
                                + (closest != null ? "; did you mean '" + closest + "'?" : ".")
                                + " The chain's stages with an error policy are " + new java.util.TreeSet<>(stages),
                        null);
            }
        }
    }

    void partitionNames(IntFunction<String> partitionNames, IntFunction<String> topics) {
        this.partitionNames = partitionNames;
        this.topics = topics;
    }

    /** Every outbox the lane hands off and fails at teardown, the dead-letter one included. */
    ChunkOutbox[] outboxArray() {
        java.util.List<ChunkOutbox> all = new java.util.ArrayList<>(outboxes.values());
        if (deadLetter != null) {
            all.add(deadLetter);
        }
        return all.toArray(new ChunkOutbox[0]);
    }

    @Override
    public String pipelineName() {
        return config.name();
    }

    @Override
    public int laneIndex() {
        return laneIndex;
    }

    @Override
    public MutableRecordMeta meta() {
        return meta;
    }

    @Override
    public MeterRegistry meterRegistry() {
        return registry;
    }

    @Override
    public List<String> sinkNames() {
        return sinkNames;
    }

    @Override
    public ChunkOutbox outbox(String sinkName) {
        ChunkOutbox outbox = outboxes.get(sinkName);
        if (outbox == null) {
            throw new IllegalArgumentException("pipeline '" + config.name() + "' has no sink named '" + sinkName
                    + "'; its sinks are " + sinkNames);
        }
        return outbox;
    }

    /** Called once by the lane before its chain is built. */
    void blocks(LaneBlocks blocks) {
        this.blocks = blocks;
    }

    /** Called once by the lane before its chain is built. */
    void checkpointer(dev.etl.internal.checkpoint.Checkpointer checkpointer) {
        this.checkpointer = checkpointer;
    }

    @Override
    public long nanoTime() {
        return nanoClock.getAsLong();
    }

    @Override
    public void statefulStage(StatefulStage stage) {
        statefulStages.add(stage);
    }

    @Override
    public void operatorHold(dev.etl.internal.checkpoint.AckRef ack, boolean held) {
        if (checkpointer != null) {
            checkpointer.operatorHold(ack, held);
        }
    }

    /**
     * Fires the timers due at {@code nowNs} (in build order; each call to an operator's {@code onTimer} may
     * schedule it again, for later); returns the earliest deadline still scheduled, or {@link Long#MAX_VALUE}.
     * A loop over the chain's stateful stages, no allocation.
     *
     * @throws dev.etl.error.FatalPipelineException when an operator's {@code onTimer} failed
     */
    long fireTimers(long nowNs) {
        long next = Long.MAX_VALUE;
        java.util.ArrayList<StatefulStage> stages = statefulStages;
        for (int i = 0, n = stages.size(); i < n; i++) {
            StatefulStage stage = stages.get(i);
            long deadline = stage.timerDeadlineNs();
            if (deadline != Long.MAX_VALUE && deadline - nowNs <= 0) {
                stage.fireTimer();
                deadline = stage.timerDeadlineNs();
            }
            if (deadline != Long.MAX_VALUE && (next == Long.MAX_VALUE || deadline - next < 0)) {
                next = deadline;
            }
        }
        return next;
    }

    /** The stages whose operators keep the data of batch {@code (partition, epoch, seq)}. Slow path. */
    List<StatefulStage> stagesHolding(int partition, int epoch, long seq) {
        List<StatefulStage> holding = new java.util.ArrayList<>(1);
        for (StatefulStage stage : statefulStages) {
            if (stage.holds(partition, epoch, seq)) {
                holding.add(stage);
            }
        }
        return holding;
    }

    @Override
    public void beforeRecord(int partition, long offset) {
        LaneBlocks blocks = this.blocks;
        if (blocks != null) {
            blocks.beforeRecord(partition, offset);
        }
    }

    @Override
    public SinkDefinition sink(String sinkName) {
        SinkDefinition definition = outbox(sinkName).definition();
        if (definition == null) {
            throw new IllegalStateException(
                    "sink '" + sinkName + "' has no definition in pipeline '" + config.name() + "'");
        }
        return definition;
    }

    @Override
    public String describePartition(int partition) {
        return partitionNames.apply(partition);
    }

    @Override
    public String topicOf(int partition) {
        return topics.apply(partition);
    }

    @Override
    public ErrorPolicy policy(String stage, ErrorClass errorClass, ErrorPolicy declared) {
        stages.add(stage);
        ErrorPolicy byStage = config.stagePolicies().get(stage);
        if (byStage != null) {
            return byStage;
        }
        ErrorPolicy byClass = config.classPolicies().get(errorClass);
        return byClass != null ? byClass : declared;
    }

    /**
     * The lane received {@code records} more records (one batch): counted in the skip budget's
     * window, which starts over once it has lasted its length. Plain arithmetic, no allocation.
     */
    void recordsIn(int records) {
        if (!budget.enabled()) {
            return;
        }
        long nowNs = nanoClock.getAsLong();
        // The window ends once it lasted its length and saw min-records records: on a slow topic it lasts
        // until it has seen enough to judge, so a topic too slow to fill one window cannot skip 100 %
        // forever (issue 30).
        if (nowNs - windowStartNs >= budgetWindowNs && windowRecords >= budget.minRecords()) {
            windowStartNs = nowNs;
            windowRecords = 0;
            Arrays.fill(windowSkips, 0);
        }
        windowRecords += records;
        pipelineWindow.recordsIn(records);
    }

    /**
     * Charges a skipped or dead-lettered record to the skip budget of its error class; fails the
     * pipeline when the class's share of this window's records exceeds the budget.
     */
    private void chargeBudget(RecordException failure, String what) {
        if (!budget.enabled()) {
            return;
        }
        ErrorClass errorClass = failure.errorClass();
        long skips = ++windowSkips[errorClass.ordinal()];
        long records = windowRecords;
        if (exceeds(skips, records)) {
            long elapsedMs = Math.max(0, (nanoClock.getAsLong() - windowStartNs) / 1_000_000);
            throw budgetExceeded(
                    errorClass,
                    "pipeline '" + config.name() + "' lane " + laneIndex
                            + " exceeded its skip budget: " + skips + " of the " + records
                            + " records it received in the last "
                            + elapsedMs + " ms",
                    what,
                    failure);
        }
        long pipelineSkips = pipelineWindow.skipped(errorClass);
        long pipelineRecords = pipelineWindow.records();
        if (exceeds(pipelineSkips, pipelineRecords)) {
            throw budgetExceeded(
                    errorClass,
                    "pipeline '" + config.name() + "' exceeded its skip budget: "
                            + pipelineSkips + " of the " + pipelineRecords + " records its lanes received in the last "
                            + pipelineWindow.elapsedMs() + " ms",
                    what,
                    failure);
        }
    }

    private boolean exceeds(long skips, long records) {
        return records >= budget.minRecords() && skips > budget.maxRatio() * records;
    }

    private FatalPipelineException budgetExceeded(
            ErrorClass errorClass, String counts, String what, RecordException failure) {
        errors.skipBudgetExceeded(errorClass);
        return new FatalPipelineException(
                errorClass,
                counts + " were " + what + " with error type "
                        + errorClass.label() + " (budget: " + budget.describe()
                        + "); failing instead of silently dropping "
                        + "the data. Fix the cause (last: " + failure.getMessage()
                        + "), or change etl.errors.skip-budget.* / "
                        + "PipelineConfig.skipBudget",
                failure);
    }

    @Override
    public void skipped(RecordException failure) {
        chargeBudget(failure, "skipped or dead-lettered");
        try {
            errors.increment(failure.errorClass(), failure.stage());
            long suppressed = skipLog.permit();
            if (suppressed >= 0) {
                log.warn(
                        "pipeline={} lane={} skipped record ({} similar skips suppressed since the last line): {}",
                        config.name(),
                        laneIndex,
                        suppressed,
                        failure.getMessage(),
                        failure.getCause());
            }
        } catch (RuntimeException e) {
            // Reporting must never turn a skip into a failure.
            log.debug("failed to report a skipped record", e);
        }
    }

    /**
     * Reports the skip and dead-letter lines suppressed since the last one, once the log interval has
     * passed (so a burst that ended is still counted in the log); with {@code stopping}, whatever is
     * pending. Called by the lane loop and at teardown; costs two reads when nothing is pending.
     */
    void reportSuppressed(boolean stopping) {
        long skips = stopping ? skipLog.drainSuppressed() : skipLog.pollSuppressed();
        if (skips > 0) {
            log.warn(
                    "pipeline={} lane={} skipped {} more records whose lines were suppressed (etl_errors_total "
                            + "counts every one)",
                    config.name(),
                    laneIndex,
                    skips);
        }
        long deadLetters = stopping ? deadLetterLog.drainSuppressed() : deadLetterLog.pollSuppressed();
        if (deadLetters > 0) {
            log.warn(
                    "pipeline={} lane={} sent {} more records to the dead-letter sink whose lines were suppressed "
                            + "(etl_dead_letters_total counts every one)",
                    config.name(),
                    laneIndex,
                    deadLetters);
        }
    }

    @Override
    public boolean hasDeadLetter() {
        return deadLetter != null;
    }

    @Override
    public void deadLetterStage(String stage, ErrorClass errorClass) {
        errors.deadLetterCounter(errorClass, stage);
    }

    @Override
    public void deadLettered(RecordException failure) {
        if (deadLetter == null) {
            LaneContext.super.deadLettered(failure);
            return;
        }
        int partition = meta.partition();
        Chunk chunk = deadLetter.chunk(0);
        RowBuffer rows = chunk.rows();
        int mark = rows.length();
        try {
            DeadLetterEncoder.encode(meta, topicOf(partition), describePartition(partition), failure, rows);
            // The dead-letter chunk now holds the batch's ack: the offset waits for this write.
            chunk.addRow(meta.ack());
        } catch (RuntimeException e) {
            rows.truncate(mark);
            throw new FatalPipelineException(
                    failure.errorClass(),
                    "could not add a record to the dead-letter sink: " + e + "; the record: " + failure.getMessage(),
                    e);
        }
        deadLetter.rowAdded(0);
        chargeBudget(failure, "skipped or dead-lettered");
        try {
            errors.increment(failure.errorClass(), failure.stage());
            errors.deadLettered(failure.errorClass(), failure.stage());
            long suppressed = deadLetterLog.permit();
            if (suppressed >= 0) {
                log.warn(
                        "pipeline={} lane={} sent a record to the dead-letter sink ({} similar suppressed since "
                                + "the last line): {}",
                        config.name(),
                        laneIndex,
                        suppressed,
                        failure.getMessage(),
                        failure.getCause());
            }
        } catch (RuntimeException e) {
            log.debug("failed to report a dead-lettered record", e);
        }
    }
}
