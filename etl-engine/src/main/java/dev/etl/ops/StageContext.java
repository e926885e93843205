package dev.etl.ops;

import dev.etl.record.RecordMeta;
import io.micrometer.core.instrument.MeterRegistry;

/** The {@link OperatorContext} of one stage: the lane's context plus the stage name. */
final class StageContext implements OperatorContext {
    private final ChainContext context;
    private final String stageName;

    StageContext(ChainContext context, String stageName) {
        this.context = context;
        this.stageName = stageName;
    }

    @Override
    public String stageName() {
        return stageName;
    }

    @Override
    public String pipelineName() {
        return context.pipelineName();
    }

    @Override
    public int laneIndex() {
        return context.laneIndex();
    }

    @Override
    public RecordMeta meta() {
        return context.meta();
    }

    @Override
    public MeterRegistry meterRegistry() {
        return context.meterRegistry();
    }

    @Override
    public String describePartition(int partition) {
        return context.describePartition(partition);
    }
}
