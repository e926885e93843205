package dev.etl.error;

import org.jspecify.annotations.Nullable;

/**
 * A single record failed in a stage. Carries where: the stage name, and the source position
 * (partition name such as {@code orders-3}, and offset) once the lane has filled it in.
 */
public class RecordException extends EtlException {
    private static final long serialVersionUID = 1L;

    private final String stage;
    private final String partitionName;
    private final long offset;

    public RecordException(
            ErrorClass errorClass,
            String stage,
            @Nullable String partitionName,
            long offset,
            String message,
            @Nullable Throwable cause) {
        super(errorClass, describe(stage, partitionName, offset, message), cause);
        this.stage = stage;
        this.partitionName = partitionName;
        this.offset = offset;
    }

    private static String describe(String stage, String partitionName, long offset, String message) {
        return "stage '" + stage + "' failed at " + (partitionName == null ? "?" : partitionName) + "@" + offset + ": "
                + message;
    }

    /** Name of the stage that failed. */
    public String stage() {
        return stage;
    }

    /** Source partition name, e.g. {@code orders-3}, or null when unknown. */
    public @Nullable String partitionName() {
        return partitionName;
    }

    /** Source offset of the failing record, or -1 when unknown. */
    public long offset() {
        return offset;
    }
}
