package dev.etl.avro.clickhouse;

import dev.etl.avro.binary.AvroCursor;
import dev.etl.avro.binary.MalformedAvroException;
import dev.etl.clickhouse.ColumnEncodeException;
import dev.etl.sink.RowBuffer;

/**
 * A mapping compiled for one writer schema: {@link RowPlan} (one row per record, one pass) or
 * {@link ScanPlan} (rows per element of an exploded array, record filters, a shard key). Immutable
 * and shared by every lane; per-record state lives in each lane's cursor.
 */
interface Plan {
    /** How many marks the plan keeps in the cursor. */
    int markCount();

    /**
     * Writes the rows of the body under {@code in} and returns how many (0 when a filter drops the
     * record or its exploded array is empty).
     *
     * @throws ColumnEncodeException when a value does not fit its column
     * @throws MalformedAvroException when the body does not match the writer schema
     */
    int write(AvroCursor in, RowBuffer out);
}
