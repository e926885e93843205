package dev.etl.s3.parquet;

import dev.etl.s3.BackfillFormat;
import dev.etl.s3.CorruptSplitException;
import dev.etl.s3.ObjectInfo;
import dev.etl.s3.ObjectStore;
import dev.etl.s3.RowOutput;
import dev.etl.s3.WorkItem;
import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import org.apache.avro.Schema;
import org.apache.avro.generic.GenericRecord;
import org.apache.parquet.column.page.PageReadStore;
import org.apache.parquet.io.RecordReader;
import org.apache.parquet.io.api.RecordMaterializer;

/**
 * The {@code parquet} backfill format: Parquet files (keys ending in {@code .parquet}) read from object
 * storage, each record handed to the chain as an Avro single-object row, so the Avro chains of a Kafka
 * topic read a Parquet backfill unchanged. Registered through {@code META-INF/services}; adding the
 * {@code etl-s3-parquet} dependency is all it takes.
 *
 * <p><b>Splitting.</b> A work item is a range of row groups {@code [start, end)} (indexes in the footer):
 * consecutive row groups whose compressed bytes add up to at most {@code splitBytes}, at least one per
 * item. An object without row groups yields no work items.
 *
 * <p><b>Rows.</b> The Avro schema is the footer's {@code parquet.avro.schema} metadata when the file was
 * written by parquet-avro, else the one parquet-avro derives from the Parquet schema (INT96 timestamps
 * become 12-byte fixed values). It is registered in the shared writer schemas before the first row.
 * Records are generic: logical types stay in their Avro representation (a decimal is its bytes).
 *
 * <p><b>Reading.</b> A read fetches the footer (one ranged request with the file's tail) and then each
 * row group it needs, whole, in about one request; a row group's compressed column chunks and the pages
 * being decoded are what it holds in memory. {@code skipRows} skips whole row groups by their row counts
 * without fetching them, then the leading records of the next. A page or footer that does not decode is
 * a {@link CorruptSplitException} naming the object and the row group; a failure of the store is its own
 * {@link IOException}.
 *
 * <p>Stateless and thread-safe: every read has its own stream, decoder and buffers.
 */
public final class ParquetFormat implements BackfillFormat {
    /** The format's name in work items and configuration. */
    public static final String NAME = "parquet";

    /** Used by {@link java.util.ServiceLoader}. */
    public ParquetFormat() {}

    @Override
    public String name() {
        return NAME;
    }

    @Override
    public boolean matches(String key) {
        return key.toLowerCase(Locale.ROOT).endsWith(".parquet");
    }

    @Override
    public List<WorkItem> plan(ObjectStore store, ObjectInfo object, long splitBytes)
            throws IOException, CorruptSplitException {
        if (splitBytes <= 0) {
            throw new IllegalArgumentException("splitBytes must be positive: " + splitBytes);
        }
        try (ParquetObject file =
                ParquetObject.open(store, object.bucket(), object.key(), object.etag(), object.size())) {
            // Fails the plan, not every read, when the rows can have no Avro schema.
            file.avroSchema();
            List<WorkItem> items = new ArrayList<>();
            int count = file.rowGroupCount();
            int start = 0;
            long bytes = 0;
            for (int g = 0; g < count; g++) {
                long size = file.compressedBytes(g);
                if (g > start && bytes + size > splitBytes) {
                    items.add(item(object, start, g));
                    start = g;
                    bytes = 0;
                }
                bytes += size;
            }
            if (count > start) {
                items.add(item(object, start, count));
            }
            return items;
        }
    }

    private static WorkItem item(ObjectInfo object, int start, int end) {
        return new WorkItem(NAME, object.bucket(), object.key(), start, end, object.size(), object.etag());
    }

    @Override
    public void read(ObjectStore store, WorkItem item, long skipRows, RowOutput out)
            throws IOException, CorruptSplitException {
        if (skipRows < 0) {
            throw new IllegalArgumentException("skipRows must not be negative: " + skipRows);
        }
        long size = item.objectSize() >= 0
                ? item.objectSize()
                : store.head(item.bucket(), item.key()).size();
        try (ParquetObject file = ParquetObject.open(store, item.bucket(), item.key(), item.etag(), size)) {
            out.bytesRead(file.newBytes());
            int count = file.rowGroupCount();
            if (item.start() > count || item.end() > count) {
                throw new CorruptSplitException(
                        item.describe() + ": the object has " + count
                                + " row groups, fewer than the work item's (it is not the object planned)",
                        null);
            }
            int end = item.end() == -1 ? count : (int) item.end();
            int first = (int) item.start();
            long skip = skipRows;
            while (first < end && skip >= file.rowCount(first)) {
                skip -= file.rowCount(first);
                first++;
            }
            if (first == end) {
                return;
            }
            Schema schema = file.avroSchema();
            SingleObjectEncoder encoder = new SingleObjectEncoder(schema);
            RecordMaterializer<GenericRecord> materializer = file.materializer(schema);
            for (int g = first; g < end; g++) {
                readRowGroup(file, g, skip, materializer, encoder, out);
                skip = 0;
            }
        }
    }

    private static void readRowGroup(
            ParquetObject file,
            int index,
            long skip,
            RecordMaterializer<GenericRecord> materializer,
            SingleObjectEncoder encoder,
            RowOutput out)
            throws IOException, CorruptSplitException {
        long rows = file.rowCount(index);
        if (rows == 0) {
            return;
        }
        try (PageReadStore pages = file.readRowGroup(index)) {
            out.bytesRead(file.newBytes());
            RecordReader<GenericRecord> records = file.records(index, pages, materializer);
            for (long r = 0; r < rows; r++) {
                GenericRecord record = file.next(records, index, r);
                if (r < skip) {
                    continue;
                }
                int length;
                try {
                    length = encoder.encode(record);
                } catch (RuntimeException e) {
                    throw new CorruptSplitException(
                            file.rowGroup(index) + ": row " + r + " does not fit its Avro schema: " + e, e);
                }
                // Outside the try: a cancelled read propagates as it is.
                out.row(encoder.array(), 0, length);
            }
        }
    }
}
