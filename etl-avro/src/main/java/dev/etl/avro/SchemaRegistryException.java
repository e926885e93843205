package dev.etl.avro;

import org.jspecify.annotations.Nullable;

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
    private final boolean lookupRefused;

    public SchemaRegistryException(String message, int httpStatus, int errorCode, @Nullable Throwable cause) {
        this(message, httpStatus, errorCode, cause, false);
    }

    private SchemaRegistryException(
            String message, int httpStatus, int errorCode, @Nullable Throwable cause, boolean lookupRefused) {
        super(message, cause);
        this.httpStatus = httpStatus;
        this.errorCode = errorCode;
        this.lookupRefused = lookupRefused;
    }

    /** An unknown id the client did not ask the registry about: more unknown ids than its lookup rate. */
    static SchemaRegistryException lookupRefused(String message) {
        return new SchemaRegistryException(message, -1, SCHEMA_NOT_FOUND, null, true);
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

    /**
     * Whether the schema, subject or version does not exist: the registry answered so, or the client
     * treats an unknown schema id as such without asking ({@link #lookupRefused()}). Either way a fact
     * about the data: the record is a bad payload.
     */
    public boolean notFound() {
        return httpStatus == 404 || lookupRefused;
    }

    /**
     * Whether the registry was not asked: the id is neither cached nor known to be missing, and the
     * client's lookups of unknown schema ids are over their rate (a producer writing ids the registry
     * does not know). {@link #notFound()} is true too.
     */
    public boolean lookupRefused() {
        return lookupRefused;
    }
}
