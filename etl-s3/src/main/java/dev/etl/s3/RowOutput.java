package dev.etl.s3;

/**
 * Where a {@link BackfillFormat} puts the rows it reads from a work item, in order. Implemented by the
 * backfill source (it copies each row into a read-ahead segment, blocking the reader thread while the
 * lane is behind: the lane itself never waits for object storage).
 */
public interface RowOutput {
    /**
     * One row: the payload the chain will see, as a record's value is for a Kafka source (an Avro row is
     * single-object encoded, see {@link AvroRows}; an NDJSON row is one line without its line break).
     * The bytes are copied before this returns.
     *
     * @throws ReadCancelledException when the item was taken from this reader (revoked, shutdown): the
     *         format stops reading and lets it propagate
     */
    void row(byte[] array, int offset, int length);

    /** Bytes read from object storage so far for this item (for progress metrics): adds {@code bytes}. */
    void bytesRead(long bytes);

    /** Thrown by {@link #row} when reading must stop. */
    final class ReadCancelledException extends RuntimeException {
        private static final long serialVersionUID = 1L;

        public ReadCancelledException() {
            super("backfill read cancelled", null, false, false);
        }
    }
}
