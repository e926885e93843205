package dev.etl.clickhouse;

import java.util.Locale;
import java.util.Set;

/**
 * Transient or permanent? A retry sends the same bytes (maybe to another replica), so an error is
 * permanent when those bytes or the target can never succeed: bad data, wrong types, unknown
 * table/column/database, bad credentials, a setting the server refuses. Everything that may pass with
 * time or on another replica is transient: no connection, timeouts, broken connections, overload,
 * ZooKeeper trouble, and any 5xx that carries no known permanent code.
 *
 * <p>Rules, in order: client-side failures (connect, timeout, IO) are transient; a ClickHouse error
 * code in {@link #PERMANENT_CODES} is permanent and in {@link #TRANSIENT_CODES} transient; text
 * containing "Cannot parse" or "Type mismatch" is permanent; otherwise HTTP 5xx is transient and any
 * other status permanent. (18.16 answers 500 for most exceptions, so the code decides, not the status.)
 */
public final class ClickHouseErrors {
    /**
     * Codes (ClickHouse {@code ErrorCodes.cpp}) that retrying the same bytes cannot fix.
     * 6 CANNOT_PARSE_TEXT, 16 NO_SUCH_COLUMN_IN_TABLE, 20 NUMBER_OF_COLUMNS_DOESNT_MATCH,
     * 26 CANNOT_PARSE_QUOTED_STRING, 27 CANNOT_PARSE_INPUT_ASSERTION_FAILED, 32 ATTEMPT_TO_READ_AFTER_EOF,
     * 33 CANNOT_READ_ALL_DATA, 36 BAD_ARGUMENTS, 38 CANNOT_PARSE_DATE, 41 CANNOT_PARSE_DATETIME,
     * 43 ILLEGAL_TYPE_OF_ARGUMENT, 44 ILLEGAL_COLUMN, 47 UNKNOWN_IDENTIFIER, 48 NOT_IMPLEMENTED,
     * 53 TYPE_MISMATCH, 60 UNKNOWN_TABLE, 62 SYNTAX_ERROR, 69 ARGUMENT_OUT_OF_BOUND,
     * 70 CANNOT_CONVERT_TYPE, 72 CANNOT_PARSE_NUMBER, 73 UNKNOWN_FORMAT, 81 UNKNOWN_DATABASE,
     * 115 UNKNOWN_SETTING, 117 INCORRECT_DATA, 131 TOO_LARGE_STRING_SIZE, 164 READONLY,
     * 192 UNKNOWN_USER, 193 WRONG_PASSWORD, 194 REQUIRED_PASSWORD, 195 IP_ADDRESS_NOT_ALLOWED,
     * 349 CANNOT_INSERT_NULL_IN_ORDINARY_COLUMN, 368 BAD_CAST (18.16's answer to a Native block whose column
     * type differs from the table's), 497 ACCESS_DENIED, 516 AUTHENTICATION_FAILED.
     */
    public static final Set<Integer> PERMANENT_CODES = Set.of(
            6, 16, 20, 26, 27, 32, 33, 36, 38, 41, 43, 44, 47, 48, 53, 60, 62, 69, 70, 72, 73, 81, 115, 117, 131, 164,
            192, 193, 194, 195, 349, 368, 497, 516);

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
        if (e.kind() != ClickHouseRequestException.Kind.HTTP) {
            return true;
        }
        int code = e.serverCode();
        if (PERMANENT_CODES.contains(code)) {
            return false;
        }
        if (TRANSIENT_CODES.contains(code)) {
            return true;
        }
        String text = e.serverText() == null ? "" : e.serverText().toLowerCase(Locale.ROOT);
        if (text.contains("cannot parse") || text.contains("type mismatch")) {
            return false;
        }
        return e.status() >= 500;
    }
}
