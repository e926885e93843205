package dev.etl.internal.ops;

import dev.etl.error.ErrorClass;
import dev.etl.error.ErrorPolicy;
import dev.etl.error.FatalPipelineException;
import dev.etl.error.RecordException;
import dev.etl.record.RecordMeta;
import java.util.Objects;

/**
 * The error policy of one stage, resolved once at build time (configuration over the declared
 * policy), and what a failure under it does. Only the failure path allocates.
 */
public final class StageErrorPolicy {
    private final LaneContext context;
    private final String stage;
    private final ErrorClass errorClass;
    private final ErrorPolicy policy;

    private StageErrorPolicy(LaneContext context, String stage, ErrorClass errorClass, ErrorPolicy policy) {
        this.context = context;
        this.stage = stage;
        this.errorClass = errorClass;
        this.policy = policy;
    }

    public static StageErrorPolicy resolve(
            LaneContext context, String stage, ErrorClass errorClass, ErrorPolicy declared) {
        return new StageErrorPolicy(context, stage, errorClass, resolvePolicy(context, stage, errorClass, declared));
    }

    /**
     * The effective policy of a stage (configuration over {@code declared}).
     *
     * @throws IllegalStateException when it is {@code DEAD_LETTER} and the pipeline has no dead-letter sink
     */
    static ErrorPolicy resolvePolicy(LaneContext context, String stage, ErrorClass errorClass, ErrorPolicy declared) {
        ErrorPolicy policy = Objects.requireNonNull(
                context.policy(stage, errorClass, declared),
                () -> "ChainContext.policy returned null for stage '" + stage + "'");
        if (policy == ErrorPolicy.DEAD_LETTER && !context.hasDeadLetter()) {
            throw new IllegalStateException("stage '" + stage + "' of pipeline '" + context.pipelineName()
                    + "' has error policy DEAD_LETTER (" + (policy == declared ? "declared by the chain" : "configured")
                    + ") but the pipeline has no dead-letter sink: add one with Pipeline.builder(..).deadLetter(sink) "
                    + "(Spring Boot: etl.errors.dead-letter.topic), or choose SKIP or FAIL");
        }
        if (policy == ErrorPolicy.DEAD_LETTER) {
            context.deadLetterStage(stage, errorClass);
        }
        return policy;
    }

    String stage() {
        return stage;
    }

    /**
     * Handles a failure of the current record: under {@code SKIP} reports it and returns (the caller
     * drops the record, so it takes no ack reference); under {@code DEAD_LETTER} writes the original
     * source record to the dead-letter sink (whose chunk then holds the batch's ack) and returns;
     * under {@code FAIL} throws.
     *
     * @throws FatalPipelineException naming the stage, partition and offset, caused by the
     *         {@link RecordException}
     */
    void fail(String message, Throwable cause) {
        RecordMeta meta = context.meta();
        RecordException failure = new RecordException(
                errorClass, stage, context.describePartition(meta.partition()), meta.offset(), message, cause);
        if (policy == ErrorPolicy.SKIP) {
            context.skipped(failure);
            return;
        }
        if (policy == ErrorPolicy.DEAD_LETTER) {
            context.deadLettered(failure);
            return;
        }
        throw new FatalPipelineException(errorClass, failure.getMessage(), failure);
    }

    /** Where the current record came from, e.g. {@code orders-3@42} (allocates; failure path). */
    String describePosition() {
        RecordMeta meta = context.meta();
        return context.describePartition(meta.partition()) + "@" + meta.offset();
    }

    void fail(Throwable cause) {
        fail(String.valueOf(cause), cause);
    }
}
