package dev.etl.avro;

/**
 * A schema-registry call failed: the registry answered with an error, or could not be reached within
 * the client's timeouts and retries.
 *
 * <p>{@link #notFound()} separates "the registry does not know this id or subject" (a fact about the
 * data) from everything else — unreachable, timeouts, 5xx after retries, 401/403 — which is a fact
 * about our environment and must never be treated as bad data.
 */
public class SchemaRegistryException extends RuntimeException {
    private static final long serialVersionUID = 1L;

    /** Error code of a subject the registry does not know. */
    public static final int SUBJECT_NOT_FOUND = 40401;
    /** Error code of a version the registry does not know. */
    public static final int VERSION_NOT_FOUND = 40402;
    /** Error code of a schema (id, or schema under a subject) the registry does not know. */
    public static final int SCHEMA_NOT_FOUND = 40403;

    private final int httpStatus;
    private final int errorCode;

    public SchemaRegistryException(String message, int httpStatus, int errorCode, Throwable cause) {
        super(message, cause);
        this.httpStatus = httpStatus;
        this.errorCode = errorCode;
    }

    /** HTTP status of the last answer, or -1 when no answer arrived (connect/IO failure, timeout). */
    public int httpStatus() {
        return httpStatus;
    }

    /** Confluent error code of the last answer (e.g. {@value #SCHEMA_NOT_FOUND}), or -1 when none. */
    public int errorCode() {
        return errorCode;
    }

    /**
     * Whether the registry answered, successfully, with something unusable: a schema that is not Avro
     * (e.g. PROTOBUF) or does not parse, or a body without the expected fields.
     */
    public boolean invalidAnswer() {
        return httpStatus >= 200 && httpStatus < 300;
    }

    /** Whether the registry answered that the schema, subject or version does not exist. */
    public boolean notFound() {
        return httpStatus == 404;
    }
}
