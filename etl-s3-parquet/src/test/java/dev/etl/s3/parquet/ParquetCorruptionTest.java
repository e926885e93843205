package dev.etl.s3.parquet;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.catchThrowable;

import dev.etl.s3.CorruptSplitException;
import dev.etl.s3.ObjectInfo;
import dev.etl.s3.WorkItem;
import dev.etl.s3.parquet.ParquetFiles.Settings;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.Arrays;
import java.util.List;
import java.util.Random;
import org.apache.avro.generic.GenericRecord;
import org.apache.parquet.hadoop.metadata.CompressionCodecName;
import org.junit.jupiter.api.Test;

/** Bad data is a corrupt split naming the object and the row group; a failing store stays an IOException. */
class ParquetCorruptionTest {
    private static final ParquetFormat FORMAT = new ParquetFormat();

    private final List<GenericRecord> records = ParquetFiles.events(new Random(11), 100);
    private final byte[] file =
            ParquetFiles.write(ParquetFiles.EVENT, records, Settings.plain(CompressionCodecName.UNCOMPRESSED, 20));

    @Test
    void aTruncatedFileIsACorruptSplitWhenPlanned() {
        for (int cut : new int[] {1, 4, 8, 100, file.length / 2, file.length - 5}) {
            MemoryObjectStore store = new MemoryObjectStore();
            ObjectInfo object = store.put("b", "cut.parquet", Arrays.copyOf(file, file.length - cut));
            assertThatThrownBy(() -> FORMAT.plan(store, object, 1))
                    .as("cut %d bytes", cut)
                    .isInstanceOf(CorruptSplitException.class)
                    .hasMessageContaining("s3://b/cut.parquet")
                    .hasMessageContaining("not a Parquet file, or its footer does not decode");
        }
    }

    @Test
    void aGarbledFooterIsACorruptSplitWhenPlannedAndWhenRead() throws Exception {
        int footerLength = footerLength(file);
        byte[] bad = file.clone();
        Arrays.fill(bad, file.length - 8 - footerLength, file.length - 8, (byte) 0xFF);
        MemoryObjectStore store = new MemoryObjectStore();
        ObjectInfo object = store.put("b", "bad.parquet", bad);
        assertThatThrownBy(() -> FORMAT.plan(store, object, 1))
                .isInstanceOf(CorruptSplitException.class)
                .hasMessageContaining("s3://b/bad.parquet");
        WorkItem item = new WorkItem("parquet", "b", "bad.parquet", 0, 1, bad.length, object.etag());
        assertThatThrownBy(() -> FORMAT.read(store, item, 0, new CollectedRows()))
                .isInstanceOf(CorruptSplitException.class);
    }

    @Test
    void aFooterLengthPointingOutsideTheFileIsACorruptSplit() {
        byte[] bad = file.clone();
        ByteBuffer.wrap(bad, bad.length - 8, 4).order(ByteOrder.LITTLE_ENDIAN).putInt(bad.length * 2);
        MemoryObjectStore store = new MemoryObjectStore();
        ObjectInfo object = store.put("b", "len.parquet", bad);
        assertThatThrownBy(() -> FORMAT.plan(store, object, 1)).isInstanceOf(CorruptSplitException.class);
    }

    @Test
    void aCorruptPageIsACorruptSplitNamingItsRowGroupAfterTheRowsBefore() throws Exception {
        MemoryObjectStore store = new MemoryObjectStore();
        ObjectInfo good = store.put("b", "good.parquet", file);
        long start;
        long end;
        try (ParquetObject parsed = ParquetObject.open(store, "b", "good.parquet", good.etag(), file.length)) {
            assertThat(parsed.rowGroupCount()).isEqualTo(5);
            start = parsed.rowGroupStart(3);
            end = parsed.rowGroupEnd(3);
        }
        byte[] bad = file.clone();
        int middle = (int) ((start + end) / 2);
        for (int i = middle; i < middle + 16; i++) {
            bad[i] ^= 0x5A;
        }
        ObjectInfo object = store.put("b", "page.parquet", bad);
        List<WorkItem> items = FORMAT.plan(store, object, Long.MAX_VALUE);
        assertThat(items).hasSize(1);

        CollectedRows out = new CollectedRows();
        Throwable thrown = catchThrowable(() -> FORMAT.read(store, items.get(0), 0, out));
        assertThat(thrown)
                .isInstanceOf(CorruptSplitException.class)
                .hasMessageContaining("s3://b/page.parquet row group 3 of 5");
        // The rows before the bad row group were delivered, and are right.
        assertThat(out.rows.size()).isBetween(60, 79);
        assertThat(ParquetFiles.canonical(ParquetFiles.decode(out.rows)))
                .isEqualTo(ParquetFiles.canonical(records.subList(0, out.rows.size())));

        // Items not touching it read well.
        CollectedRows last = new CollectedRows();
        FORMAT.read(store, new WorkItem("parquet", "b", "page.parquet", 4, 5, bad.length, object.etag()), 0, last);
        assertThat(ParquetFiles.canonical(ParquetFiles.decode(last.rows)))
                .isEqualTo(ParquetFiles.canonical(records.subList(80, 100)));
    }

    @Test
    void anItemBeyondTheFilesRowGroupsIsACorruptSplit() {
        MemoryObjectStore store = new MemoryObjectStore();
        ObjectInfo object = store.put("b", "k.parquet", file);
        WorkItem item = new WorkItem("parquet", "b", "k.parquet", 4, 9, file.length, object.etag());
        assertThatThrownBy(() -> FORMAT.read(store, item, 0, new CollectedRows()))
                .isInstanceOf(CorruptSplitException.class)
                .hasMessageContaining("has 5 row groups");
    }

    @Test
    void aStoreFailureStaysTheStoresIOException() throws Exception {
        // Large enough that the tail fetched with the footer does not reach row group 2.
        byte[] file = ParquetFiles.write(
                ParquetFiles.EVENT,
                ParquetFiles.events(new Random(12), 5_000),
                Settings.plain(CompressionCodecName.UNCOMPRESSED, 1_000));
        MemoryObjectStore store = new MemoryObjectStore();
        ObjectInfo object = store.put("b", "k.parquet", file);
        WorkItem item = FORMAT.plan(store, object, Long.MAX_VALUE).get(0);

        store.failOpens(true);
        assertThatThrownBy(() -> FORMAT.plan(store, object, 1))
                .isExactlyInstanceOf(IOException.class)
                .hasMessageContaining("injected: connection refused");
        assertThatThrownBy(() -> FORMAT.read(store, item, 0, new CollectedRows()))
                .isExactlyInstanceOf(IOException.class)
                .hasMessageContaining("injected: connection refused");
        store.failOpens(false);

        // At row group 2's first byte: after rows of row groups 0 and 1 were delivered.
        long rowGroup2;
        try (ParquetObject parsed = ParquetObject.open(store, "b", "k.parquet", object.etag(), file.length)) {
            rowGroup2 = parsed.rowGroupStart(2);
        }
        store.failReadsAt(rowGroup2);
        CollectedRows out = new CollectedRows();
        assertThatThrownBy(() -> FORMAT.read(store, item, 0, out))
                .isExactlyInstanceOf(IOException.class)
                .hasMessageContaining("injected: connection reset");
        assertThat(out.rows).hasSize(2_000);
        store.failReadsAt(-1);
    }

    @Test
    void anObjectThatChangedSincePlannedIsRefusedByTheStore() throws Exception {
        MemoryObjectStore store = new MemoryObjectStore();
        ObjectInfo object = store.put("b", "k.parquet", file);
        WorkItem item = FORMAT.plan(store, object, Long.MAX_VALUE).get(0);
        store.put(
                "b",
                "k.parquet",
                ParquetFiles.write(
                        ParquetFiles.EVENT, records.subList(0, 10), Settings.plain(CompressionCodecName.SNAPPY, 5)));
        assertThatThrownBy(() -> FORMAT.read(store, item, 0, new CollectedRows()))
                .isExactlyInstanceOf(IOException.class)
                .hasMessageContaining("changed");
    }

    private static int footerLength(byte[] bytes) {
        return ByteBuffer.wrap(bytes, bytes.length - 8, 4)
                .order(ByteOrder.LITTLE_ENDIAN)
                .getInt();
    }
}
