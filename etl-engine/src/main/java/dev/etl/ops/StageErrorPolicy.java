package dev.etl.ops;

import java.util.Objects;

import dev.etl.error.ErrorClass;
import dev.etl.error.ErrorPolicy;
import dev.etl.error.FatalPipelineException;
import dev.etl.error.RecordException;
import dev.etl.record.RecordMeta;

/**
 * The error policy of one stage, resolved once at build time (configuration over the declared
 * policy), and what a failure under it does. Only the failure path allocates.
 */
final class StageErrorPolicy {
    private final ChainContext context;
    private final String stage;
    private final ErrorClass errorClass;
    private final boolean skip;

    private StageErrorPolicy(ChainContext context, String stage, ErrorClass errorClass, boolean skip) {
        this.context = context;
        this.stage = stage;
        this.errorClass = errorClass;
        this.skip = skip;
    }

    static StageErrorPolicy resolve(ChainContext context, String stage, ErrorClass errorClass, ErrorPolicy declared) {
        ErrorPolicy policy = Objects.requireNonNull(context.policy(stage, errorClass, declared),
                () -> "ChainContext.policy returned null for stage '" + stage + "'");
        return new StageErrorPolicy(context, stage, errorClass, policy == ErrorPolicy.SKIP);
    }

    String stage() {
        return stage;
    }

    /**
     * Handles a failure of the current record: under {@code SKIP} reports it and returns (the caller
     * drops the record, so it takes no ack reference); under {@code FAIL} throws.
     *
     * @throws FatalPipelineException naming the stage, partition and offset, caused by the
     *         {@link RecordException}
     */
    void fail(String message, Throwable cause) {
        RecordMeta meta = context.meta();
        RecordException failure = new RecordException(errorClass, stage, context.describePartition(meta.partition()),
                meta.offset(), message, cause);
        if (skip) {
            context.skipped(failure);
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
