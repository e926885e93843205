package dev.etl.internal.pipeline;

import dev.etl.internal.metrics.ErrorMetrics;
import dev.etl.internal.metrics.LaneMetrics;
import dev.etl.internal.sink.ChunkOutbox;
import dev.etl.internal.sink.SinkRuntime;
import dev.etl.pipeline.PipelineConfig;
import dev.etl.pipeline.Scheduler;
import dev.etl.sink.SinkDefinition;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The lane and sink wiring {@link PipelineRun#start()} builds before it starts any thread: every
 * sink constructed (its writer factory and validation run), the dead-letter sink last; then per lane
 * one outbox per ordinary sink (and one for the dead-letter sink), its chain context, the {@link Lane}
 * and its thread, unstarted. Both add to the runtime's own lists as they go, so a start that throws
 * half-way can undo exactly what was built. On the thread calling {@code start()}.
 */
public final class PipelineWiring {
    private PipelineWiring() {}

    /**
     * Constructs every sink into {@code sinks} (writer factories run here), starting none; returns the
     * dead-letter sink or null.
     */
    static SinkRuntime buildSinks(
            PipelineRun runtime,
            List<SinkDefinition> sinkDefinitions,
            SinkDefinition deadLetterDefinition,
            List<SinkRuntime> sinks) {
        PipelineConfig config = runtime.config();
        for (SinkDefinition definition : sinkDefinitions) {
            sinks.add(newSink(runtime, definition));
        }
        if (deadLetterDefinition == null) {
            return null;
        }
        // An ordinary sink (batching, retries, acks, abandonment, metrics), written to only by the
        // DEAD_LETTER error path; last, so its name is never the chains' default sink.
        SinkRuntime deadLetter = newSink(runtime, deadLetterDefinition);
        sinks.add(deadLetter);
        return deadLetter;
    }

    private static SinkRuntime newSink(PipelineRun runtime, SinkDefinition definition) {
        PipelineConfig config = runtime.config();
        Scheduler scheduler = runtime.scheduler();
        return new SinkRuntime(
                config.name(),
                definition,
                runtime.budget(),
                config.ioThreads(),
                runtime.meterRegistry(),
                runtime::fail,
                new SinkRuntime.Threads(
                        scheduler::nanoTime,
                        scheduler.random(),
                        scheduler::newThread,
                        scheduler::join,
                        scheduler == Scheduler.system() ? null : scheduler::parkNanos));
    }

    /** Builds every lane and its (unstarted) thread into {@code lanes} and {@code laneThreads}. */
    static void buildLanes(
            PipelineRun runtime,
            ErrorMetrics errorMetrics,
            List<SinkRuntime> sinks,
            SinkRuntime deadLetter,
            List<Lane> lanes,
            List<Thread> laneThreads) {
        PipelineConfig config = runtime.config();
        Scheduler scheduler = runtime.scheduler();
        PipelineSkipWindow skipWindow = new PipelineSkipWindow(config.skipBudget(), scheduler::nanoTime);
        for (int i = 0; i < config.lanes(); i++) {
            Map<String, ChunkOutbox> outboxes = new LinkedHashMap<>();
            for (SinkRuntime sink : sinks) {
                if (sink != deadLetter) {
                    outboxes.put(sink.name(), new ChunkOutbox(sink, sink.definition()));
                }
            }
            LaneChainContext context = new LaneChainContext(
                    config,
                    i,
                    runtime.meterRegistry(),
                    outboxes,
                    errorMetrics,
                    deadLetter == null ? null : new ChunkOutbox(deadLetter, deadLetter.definition()),
                    skipWindow,
                    scheduler::nanoTime,
                    LaneChainContext.SKIP_LOG_INTERVAL_NS);
            Lane lane = new Lane(runtime, i, context, new LaneMetrics(runtime.meterRegistry(), config.name(), i));
            lanes.add(lane);
            laneThreads.add(scheduler.newThread(lane, "etl-lane-" + config.name() + "-" + i));
        }
    }
}
