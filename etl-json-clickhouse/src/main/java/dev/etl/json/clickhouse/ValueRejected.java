package dev.etl.json.clickhouse;

/**
 * A well-formed JSON value that its column cannot take (out of range, wrong kind, not a date, an unknown
 * enum symbol): the problem only; the transcoder adds the column, the field path and the position. No
 * stack trace: it is an expected outcome of bad input, reported as a {@code ColumnEncodeException}.
 */
final class ValueRejected extends RuntimeException {
    private static final long serialVersionUID = 1L;

    ValueRejected(String problem) {
        super(problem, null, false, false);
    }
}
