package dev.etl.s3;

import java.io.IOException;
import java.util.List;

/**
 * A file format a backfill reads: how it splits an object into work items and how it reads one item's
 * rows. Avro object container files and NDJSON are built in; {@code etl-s3-parquet} adds Parquet. Found
 * by name through {@link java.util.ServiceLoader} (a module adds one by listing its class in
 * {@code META-INF/services/dev.etl.s3.BackfillFormat}). Implementations are stateless and thread-safe.
 */
public interface BackfillFormat {
    /** The name in work items and configuration: {@code avro}, {@code ndjson}, {@code parquet}. */
    String name();

    /** Whether this format reads an object with this key by default (its extension). */
    boolean matches(String key);

    /**
     * Splits one object into work items of about {@code splitBytes} each (a format that cannot split,
     * such as compressed NDJSON, returns one whole-object item). May read the object's header or footer.
     */
    List<WorkItem> plan(ObjectStore store, ObjectInfo object, long splitBytes)
            throws IOException, CorruptSplitException;

    /**
     * Reads {@code item}'s rows in order into {@code out}, skipping the first {@code skipRows} rows (a
     * restart resumes inside an item: the rows before were committed). The order and the rows must be the
     * same on every read of the same item: a replay rebuilds the same inserts.
     *
     * @throws CorruptSplitException when the data cannot be read past some point
     * @throws IOException when object storage fails (the read is retried)
     */
    void read(ObjectStore store, WorkItem item, long skipRows, RowOutput out) throws IOException, CorruptSplitException;
}
