package dev.etl.error;

import org.jspecify.annotations.Nullable;

/**
 * A payload could not be turned into records: bad framing, unknown schema id, truncated or corrupt
 * body. Deserializers throw it (usually via {@link #of}); the lane fills in where it happened and
 * applies the deserialization stage's {@link ErrorPolicy}.
 */
public class DeserializationException extends RecordException {
    private static final long serialVersionUID = 1L;

    private final int schemaId;
    private final String reason;

    public DeserializationException(
            String stage,
            @Nullable String partitionName,
            long offset,
            int schemaId,
            String reason,
            @Nullable Throwable cause) {
        super(
                ErrorClass.DESERIALIZATION,
                stage,
                partitionName,
                offset,
                schemaId >= 0 ? reason + " (schema id " + schemaId + ")" : reason,
                cause);
        this.schemaId = schemaId;
        this.reason = reason;
    }

    /** A failure raised inside a deserializer, before the lane knows the position; schema id -1 if none. */
    public static DeserializationException of(int schemaId, String message, @Nullable Throwable cause) {
        return new DeserializationException("deserialize", null, -1, schemaId, message, cause);
    }

    /** Schema id named by the payload, or -1 when the format has none or it could not be read. */
    public int schemaId() {
        return schemaId;
    }

    /** A copy with the source position filled in. */
    public DeserializationException at(String stage, String partitionName, long offset) {
        DeserializationException located =
                new DeserializationException(stage, partitionName, offset, schemaId, reason, getCause());
        // Keep where the deserializer actually failed, not where the chain head re-threw it.
        located.setStackTrace(getStackTrace());
        return located;
    }

    /** What was wrong with the payload, without the position. */
    public String reason() {
        return reason;
    }
}
