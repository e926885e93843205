package dev.etl.pipeline;

import dev.etl.internal.metrics.ErrorMetrics;
import dev.etl.internal.metrics.LaneMetrics;
import dev.etl.internal.sink.ChunkOutbox;
import dev.etl.internal.sink.SinkRuntime;
import dev.etl.sink.SinkDefinition;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The lane and sink wiring {@link PipelineRuntime#start()} builds before it starts any thread: every
 * sink constructed (its writer factory and validation run), the dead-letter sink last; then per lane
 * one outbox per ordinary sink (and one for the dead-letter sink), its chain context, the {@link Lane}
 * and its thread, unstarted. Both add to the runtime's own lists as they go, so a start that throws
 * half-way can undo exactly what was built. On the thread calling {@code start()}.
 */
final class PipelineWiring {
    private PipelineWiring() {}

    /**
     * Constructs every sink into {@code sinks} (writer factories run here), starting none; returns the
     * dead-letter sink or null.
     */
    static SinkRuntime buildSinks(
            PipelineRuntime runtime,
            List<SinkDefinition> sinkDefinitions,
            SinkDefinition deadLetterDefinition,
            List<SinkRuntime> sinks) {
        PipelineConfig config = runtime.config();
        for (SinkDefinition definition : sinkDefinitions) {
            sinks.add(new SinkRuntime(
                    config.name(),
                    definition,
                    runtime.budget(),
                    config.ioThreads(),
                    runtime.meterRegistry(),
                    runtime::fail));
        }
        if (deadLetterDefinition == null) {
            return null;
        }
        // An ordinary sink (batching, retries, acks, abandonment, metrics), written to only by the
        // DEAD_LETTER error path; last, so its name is never the chains' default sink.
        SinkRuntime deadLetter = new SinkRuntime(
                config.name(),
                deadLetterDefinition,
                runtime.budget(),
                config.ioThreads(),
                runtime.meterRegistry(),
                runtime::fail);
        sinks.add(deadLetter);
        return deadLetter;
    }

    /** Builds every lane and its (unstarted) thread into {@code lanes} and {@code laneThreads}. */
    static void buildLanes(
            PipelineRuntime runtime,
            ErrorMetrics errorMetrics,
            List<SinkRuntime> sinks,
            SinkRuntime deadLetter,
            List<Lane> lanes,
            List<Thread> laneThreads) {
        PipelineConfig config = runtime.config();
        PipelineSkipWindow skipWindow = new PipelineSkipWindow(config.skipBudget(), System::nanoTime);
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
                    skipWindow);
            Lane lane = new Lane(runtime, i, context, new LaneMetrics(runtime.meterRegistry(), config.name(), i));
            lanes.add(lane);
            laneThreads.add(new Thread(lane, "etl-lane-" + config.name() + "-" + i));
        }
    }
}
