package dev.etl.clickhouse;

import java.util.HashSet;
import java.util.Locale;
import java.util.Set;

/**
 * What a failed insert means: {@link Category#TRANSIENT} (a retry of the same bytes may pass),
 * {@link Category#DATA} (the server refused rows for their content: other rows of the same batch may
 * pass, these never will) or {@link Category#CONFIGURATION} (the target or the request is wrong: every
 * row of every batch would fail the same way).
 *
 * <p>Transient: everything that may pass with time or on another replica — no connection, timeouts,
 * broken connections, overload, ZooKeeper trouble, and any 5xx that carries no known code. An unknown
 * code stays transient on purpose: a new overload or coordination code must never be taken for bad rows
 * (which a {@code SKIP} policy drops). A code the server uses for rows' content that this list does not
 * know can be declared with {@link ClickHouseSinkConfig#rejectionCodes()}.
 *
 * <p>Data: a parse error of a value (a {@code MATERIALIZED} or {@code DEFAULT} expression parsing a
 * String), a {@code throwIf} or a constraint that some rows violate, a division by zero, a value out of
 * its type's range. The shard writer isolates such rows and writes the others
 * ({@link ClickHouseShardWriter}).
 *
 * <p>Configuration: unknown table, column or database, bad credentials, a read-only user, a setting the
 * server refuses, a body that does not parse as the table's columns at all ({@code Cannot read all
 * data}), a Native column whose type differs from the table's (18.16: BAD_CAST).
 *
 * <p>Rules, in order: client-side failures (connect, timeout, IO) are transient; a code of the sink's
 * {@linkplain ClickHouseSinkConfig#rejectionCodes() extra rejection codes} is data; a code in
 * {@link #CONFIGURATION_CODES} is configuration, in {@link #TRANSIENT_CODES} transient, in
 * {@link #REJECTION_CODES} data; text containing "Cannot parse" or "Type mismatch" is data; otherwise
 * HTTP 5xx is transient and any other status configuration. (18.16 answers 500 for most exceptions, so
 * the code decides, not the status.)
 */
final class ClickHouseErrors {

    /** What a failed insert means (see the class comment). */
    public enum Category {
        /** A retry of the same bytes, maybe on another replica, may succeed. */
        TRANSIENT,
        /** The server refused some rows for their content; the other rows of the batch can be written. */
        DATA,
        /** The target or the request is wrong: every row would fail the same way; no retry can pass. */
        CONFIGURATION
    }

    /**
     * Codes (ClickHouse {@code ErrorCodes.cpp}) that refuse rows for their content. 6 CANNOT_PARSE_TEXT,
     * 26 CANNOT_PARSE_QUOTED_STRING, 27 CANNOT_PARSE_INPUT_ASSERTION_FAILED, 38 CANNOT_PARSE_DATE,
     * 41 CANNOT_PARSE_DATETIME, 72 CANNOT_PARSE_NUMBER, 376 CANNOT_PARSE_UUID,
     * 441 CANNOT_PARSE_DOMAIN_VALUE_FROM_STRING, 467 CANNOT_PARSE_BOOL (a {@code MATERIALIZED}/{@code DEFAULT}
     * expression parsing a String value: {@code toDate(s)}); 53 TYPE_MISMATCH, 69 ARGUMENT_OUT_OF_BOUND,
     * 70 CANNOT_CONVERT_TYPE, 321 VALUE_IS_OUT_OF_RANGE_OF_DATA_TYPE, 407 DECIMAL_OVERFLOW,
     * 691 UNKNOWN_ELEMENT_OF_ENUM (a value its target type cannot hold); 117 INCORRECT_DATA,
     * 128 TOO_LARGE_ARRAY_SIZE, 131 TOO_LARGE_STRING_SIZE, 190 SIZES_OF_ARRAYS_DOESNT_MATCH (a Nested
     * column's arrays of different lengths in one row), 349 CANNOT_INSERT_NULL_IN_ORDINARY_COLUMN (a value);
     * 153 ILLEGAL_DIVISION (a division by zero in an expression), 395 FUNCTION_THROW_IF_VALUE_IS_NON_ZERO
     * ({@code throwIf} in a {@code MATERIALIZED} column), 469 VIOLATED_CONSTRAINT (a table constraint).
     */
    public static final Set<Integer> REJECTION_CODES = Set.of(
            6, 26, 27, 38, 41, 53, 69, 70, 72, 117, 128, 131, 153, 190, 321, 349, 376, 395, 407, 441, 467, 469, 691);

    /**
     * Codes that say every row would fail: the request or the target is wrong. 16 NO_SUCH_COLUMN_IN_TABLE,
     * 20 NUMBER_OF_COLUMNS_DOESNT_MATCH, 32 ATTEMPT_TO_READ_AFTER_EOF, 33 CANNOT_READ_ALL_DATA (the body is
     * not rows of the table's columns), 36 BAD_ARGUMENTS, 43 ILLEGAL_TYPE_OF_ARGUMENT, 44 ILLEGAL_COLUMN,
     * 47 UNKNOWN_IDENTIFIER, 48 NOT_IMPLEMENTED, 50 UNKNOWN_TYPE, 60 UNKNOWN_TABLE, 62 SYNTAX_ERROR,
     * 73 UNKNOWN_FORMAT, 81 UNKNOWN_DATABASE, 115 UNKNOWN_SETTING, 164 READONLY, 192 UNKNOWN_USER,
     * 193 WRONG_PASSWORD, 194 REQUIRED_PASSWORD, 195 IP_ADDRESS_NOT_ALLOWED, 291 DATABASE_ACCESS_DENIED,
     * 368 BAD_CAST (18.16's answer to a Native block whose column type differs from the table's),
     * 452 SETTING_CONSTRAINT_VIOLATION, 471 INVALID_SETTING_VALUE, 472 READONLY_SETTING, 497 ACCESS_DENIED,
     * 516 AUTHENTICATION_FAILED.
     */
    public static final Set<Integer> CONFIGURATION_CODES = Set.of(
            16, 20, 32, 33, 36, 43, 44, 47, 48, 50, 60, 62, 73, 81, 115, 164, 192, 193, 194, 195, 291, 368, 452, 471,
            472, 497, 516);

    /** Every code a retry cannot fix: {@link #REJECTION_CODES} and {@link #CONFIGURATION_CODES}. */
    public static final Set<Integer> PERMANENT_CODES = union(REJECTION_CODES, CONFIGURATION_CODES);

    /**
     * Codes that may pass on retry or on another replica. 159 TIMEOUT_EXCEEDED,
     * 202 TOO_MANY_SIMULTANEOUS_QUERIES, 203 NO_FREE_CONNECTION, 209 SOCKET_TIMEOUT, 210 NETWORK_ERROR,
     * 225 NO_ZOOKEEPER, 236 ABORTED, 241 MEMORY_LIMIT_EXCEEDED, 242 TABLE_IS_READ_ONLY, 252 TOO_MANY_PARTS,
     * 285 TOO_FEW_LIVE_REPLICAS, 286 UNSATISFIED_QUORUM_FOR_PREVIOUS_WRITE, 319 UNKNOWN_STATUS_OF_INSERT,
     * 373 SESSION_IS_LOCKED, 394 QUERY_WAS_CANCELLED, 425 SYSTEM_ERROR, 999 KEEPER_EXCEPTION.
     */
    public static final Set<Integer> TRANSIENT_CODES =
            Set.of(159, 202, 203, 209, 210, 225, 236, 241, 242, 252, 285, 286, 319, 373, 394, 425, 999);

    private ClickHouseErrors() {}

    /** Whether a retry of the same bytes may succeed. */
    public static boolean isTransient(ClickHouseRequestException e) {
        return classify(e) == Category.TRANSIENT;
    }

    /** What {@code e} means, with the built-in code lists only. */
    public static Category classify(ClickHouseRequestException e) {
        return classify(e, Set.of());
    }

    /**
     * What {@code e} means; a code in {@code extraRejectionCodes} (a sink's
     * {@link ClickHouseSinkConfig#rejectionCodes()}) is {@link Category#DATA}.
     */
    public static Category classify(ClickHouseRequestException e, Set<Integer> extraRejectionCodes) {
        if (e.kind() != ClickHouseRequestException.Kind.HTTP) {
            return Category.TRANSIENT;
        }
        int code = e.serverCode();
        if (extraRejectionCodes.contains(code)) {
            return Category.DATA;
        }
        if (CONFIGURATION_CODES.contains(code)) {
            return Category.CONFIGURATION;
        }
        if (TRANSIENT_CODES.contains(code)) {
            return Category.TRANSIENT;
        }
        if (REJECTION_CODES.contains(code)) {
            return Category.DATA;
        }
        String text = e.serverText() == null ? "" : e.serverText().toLowerCase(Locale.ROOT);
        if (text.contains("cannot parse") || text.contains("type mismatch")) {
            return Category.DATA;
        }
        return e.status() >= 500 ? Category.TRANSIENT : Category.CONFIGURATION;
    }

    private static Set<Integer> union(Set<Integer> a, Set<Integer> b) {
        Set<Integer> all = new HashSet<>(a);
        all.addAll(b);
        return Set.copyOf(all);
    }
}
