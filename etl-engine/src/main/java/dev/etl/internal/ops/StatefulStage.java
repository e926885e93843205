package dev.etl.internal.ops;

/**
 * The lane's view of one {@code process} stage: its timer, and what its operator keeps (for the stall
 * detector, which must tell data an operator keeps, waiting for its timer, from data stuck on its way to
 * a sink). Registered with the {@link LaneContext} when the chain is built. Lane thread only.
 */
public interface StatefulStage {
    /** The stage's name. */
    String stageName();

    /** The deadline of the stage's timer on the lane's clock, or {@link Long#MAX_VALUE} when none is scheduled. */
    long timerDeadlineNs();

    /**
     * Fires the stage's timer (it is cleared first): calls the operator's {@code onTimer} with no current
     * record, like {@code flush}.
     *
     * @throws dev.etl.error.FatalPipelineException when the call fails
     */
    void fireTimer();

    /** Whether the stage's holders keep the batch {@code (partition, epoch, seq)}'s data. Slow path only. */
    boolean holds(int partition, int epoch, long seq);
}
