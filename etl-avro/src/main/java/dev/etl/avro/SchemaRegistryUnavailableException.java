package dev.etl.avro;

import dev.etl.error.DeserializationException;
import org.jspecify.annotations.Nullable;

/**
 * The writer schema of a payload could not be fetched because the registry was unreachable, slow,
 * failing (5xx) or refused our credentials — not because the payload is bad.
 *
 * <p>By default {@link AvroDeserializer} throws it wrapped in a
 * {@link dev.etl.error.FatalPipelineException}, so the pipeline fails (and replays from its last
 * commit after a restart) rather than skipping good data under a {@code SKIP} policy; see
 * {@link AvroDeserializer.Builder#onRegistryUnavailable}.
 */
public class SchemaRegistryUnavailableException extends DeserializationException {
    private static final long serialVersionUID = 1L;

    public SchemaRegistryUnavailableException(
            String stage,
            @Nullable String partitionName,
            long offset,
            int schemaId,
            String reason,
            @Nullable Throwable cause) {
        super(stage, partitionName, offset, schemaId, reason, cause);
    }

    /** A failure raised inside the deserializer, before the lane knows the position. */
    public static SchemaRegistryUnavailableException of(int schemaId, String reason, @Nullable Throwable cause) {
        return new SchemaRegistryUnavailableException("deserialize", null, -1, schemaId, reason, cause);
    }

    @Override
    public SchemaRegistryUnavailableException at(String stage, String partitionName, long offset) {
        SchemaRegistryUnavailableException located =
                new SchemaRegistryUnavailableException(stage, partitionName, offset, schemaId(), reason(), getCause());
        located.setStackTrace(getStackTrace());
        return located;
    }
}
