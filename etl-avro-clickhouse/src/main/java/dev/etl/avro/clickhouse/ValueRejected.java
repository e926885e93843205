package dev.etl.avro.clickhouse;

/**
 * A well-formed Avro value does not fit its column (out of range, null for a non-Nullable column, too
 * long for a FixedString, more digits than the Decimal's precision). Internal: {@link AvroRowTranscoder}
 * turns it into a {@link dev.etl.clickhouse.ColumnEncodeException} naming the column.
 */
final class ValueRejected extends RuntimeException {
    private static final long serialVersionUID = 1L;

    ValueRejected(String message) {
        super(message, null, false, false);
    }
}
