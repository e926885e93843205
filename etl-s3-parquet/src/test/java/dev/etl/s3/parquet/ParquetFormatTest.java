package dev.etl.s3.parquet;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.etl.s3.BackfillFormat;
import dev.etl.s3.ObjectInfo;
import dev.etl.s3.RowOutput;
import dev.etl.s3.WorkItem;
import dev.etl.s3.parquet.ParquetFiles.Settings;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.ServiceLoader;
import org.apache.avro.Schema;
import org.apache.avro.generic.GenericData;
import org.apache.avro.generic.GenericRecord;
import org.apache.parquet.conf.PlainParquetConfiguration;
import org.apache.parquet.example.data.Group;
import org.apache.parquet.example.data.simple.SimpleGroupFactory;
import org.apache.parquet.hadoop.ParquetWriter;
import org.apache.parquet.hadoop.example.ExampleParquetWriter;
import org.apache.parquet.hadoop.metadata.CompressionCodecName;
import org.apache.parquet.schema.MessageType;
import org.apache.parquet.schema.MessageTypeParser;
import org.junit.jupiter.api.Test;

class ParquetFormatTest {
    private static final ParquetFormat FORMAT = new ParquetFormat();

    @Test
    void isFoundByTheServiceLoaderAndMatchesParquetKeys() {
        List<String> names = new ArrayList<>();
        for (BackfillFormat f : ServiceLoader.load(BackfillFormat.class)) {
            names.add(f.name());
        }
        assertThat(names).contains("parquet");
        assertThat(FORMAT.name()).isEqualTo("parquet");
        assertThat(FORMAT.matches("events/2024/part-0001.parquet")).isTrue();
        assertThat(FORMAT.matches("events/PART.PARQUET")).isTrue();
        assertThat(FORMAT.matches("events/part.avro")).isFalse();
        assertThat(FORMAT.matches("events/part.parquet.crc")).isFalse();
    }

    /**
     * The invariant: for any file and any {@code splitBytes}, the planned items cover the row groups
     * exactly once, in order, and reading every item yields every record once, in order, equal to what
     * was written; reading an item with {@code skipRows} yields its rows after the first {@code skipRows}.
     */
    @Test
    void planningAndReadingEveryItemYieldsEveryRecordOnceInOrder() throws Exception {
        long seed = System.nanoTime();
        System.out.println("ParquetFormatTest seed " + seed);
        Random random = new Random(seed);
        for (int trial = 0; trial < 40; trial++) {
            Settings settings = Settings.random(random);
            List<GenericRecord> records = ParquetFiles.events(random, random.nextInt(300));
            byte[] bytes = ParquetFiles.write(ParquetFiles.EVENT, records, settings);
            MemoryObjectStore store = new MemoryObjectStore();
            ObjectInfo object = store.put("bucket", "t" + trial + ".parquet", bytes);
            long splitBytes = 1 + (long) (random.nextDouble() * bytes.length * 1.2);
            String context = "seed " + seed + " trial " + trial + " " + settings + " records " + records.size()
                    + " splitBytes " + splitBytes;

            List<WorkItem> items = FORMAT.plan(store, object, splitBytes);
            int rowGroups;
            try (ParquetObject file = ParquetObject.open(store, "bucket", object.key(), object.etag(), bytes.length)) {
                rowGroups = file.rowGroupCount();
            }
            long next = 0;
            for (WorkItem item : items) {
                assertThat(item.format()).isEqualTo("parquet");
                assertThat(item.objectSize()).isEqualTo(bytes.length);
                assertThat(item.etag()).isEqualTo(object.etag());
                assertThat(item.start()).as(context).isEqualTo(next);
                assertThat(item.end()).as(context).isGreaterThan(item.start());
                next = item.end();
            }
            assertThat(next).as(context).isEqualTo(rowGroups);

            List<List<byte[]>> perItem = new ArrayList<>();
            List<byte[]> all = new ArrayList<>();
            for (WorkItem item : items) {
                // An item survives the work topic: read what decode(encode()) gives.
                byte[] value = item.encode();
                WorkItem decoded = WorkItem.decode(value, 0, value.length);
                CollectedRows out = new CollectedRows();
                FORMAT.read(store, decoded, 0, out);
                assertThat(out.bytesRead).as(context).isPositive();
                perItem.add(out.rows);
                all.addAll(out.rows);
            }
            assertThat(ParquetFiles.canonical(ParquetFiles.decode(all)))
                    .as(context)
                    .isEqualTo(ParquetFiles.canonical(records));

            if (!items.isEmpty()) {
                int pick = random.nextInt(items.size());
                List<byte[]> rows = perItem.get(pick);
                long skip = random.nextInt(rows.size() + 3);
                CollectedRows out = new CollectedRows();
                FORMAT.read(store, items.get(pick), skip, out);
                List<GenericRecord> expected =
                        ParquetFiles.decode(rows.subList((int) Math.min(skip, rows.size()), rows.size()));
                assertThat(ParquetFiles.canonical(ParquetFiles.decode(out.rows)))
                        .as(context + " item " + pick + " skip " + skip)
                        .isEqualTo(ParquetFiles.canonical(expected));
            }
        }
    }

    @Test
    void everyCodecReadsBack() throws Exception {
        Random random = new Random(7);
        for (CompressionCodecName codec : ParquetFiles.CODECS) {
            List<GenericRecord> records = ParquetFiles.events(random, 120);
            byte[] bytes = ParquetFiles.write(ParquetFiles.EVENT, records, Settings.plain(codec, 25));
            MemoryObjectStore store = new MemoryObjectStore();
            ObjectInfo object = store.put("b", "codec.parquet", bytes);
            List<byte[]> rows = readAll(store, object, 1);
            assertThat(ParquetFiles.canonical(ParquetFiles.decode(rows)))
                    .as(codec.name())
                    .isEqualTo(ParquetFiles.canonical(records));
        }
    }

    @Test
    void splitsOneRowGroupPerItemWhenSplitBytesIsSmallAndOneItemWhenLarge() throws Exception {
        List<GenericRecord> records = ParquetFiles.events(new Random(1), 200);
        byte[] bytes =
                ParquetFiles.write(ParquetFiles.EVENT, records, Settings.plain(CompressionCodecName.UNCOMPRESSED, 20));
        MemoryObjectStore store = new MemoryObjectStore();
        ObjectInfo object = store.put("b", "k.parquet", bytes);

        List<WorkItem> small = FORMAT.plan(store, object, 1);
        assertThat(small).hasSize(10);
        for (int i = 0; i < small.size(); i++) {
            assertThat(small.get(i).start()).isEqualTo(i);
            assertThat(small.get(i).end()).isEqualTo(i + 1);
        }
        assertThat(FORMAT.plan(store, object, Long.MAX_VALUE))
                .containsExactly(new WorkItem("parquet", "b", "k.parquet", 0, 10, bytes.length, object.etag()));
    }

    @Test
    void skipRowsSkipsWholeRowGroupsWithoutFetchingThem() throws Exception {
        List<GenericRecord> records = ParquetFiles.events(new Random(2), 100);
        byte[] bytes = ParquetFiles.write(ParquetFiles.EVENT, records, Settings.plain(CompressionCodecName.SNAPPY, 10));
        MemoryObjectStore store = new MemoryObjectStore();
        ObjectInfo object = store.put("b", "k.parquet", bytes);
        WorkItem item = new WorkItem("parquet", "b", "k.parquet", 2, 8, bytes.length, object.etag());

        store.resetCounts();
        CollectedRows out = new CollectedRows();
        FORMAT.read(store, item, 35, out);
        // Rows 20..79 are the item's; 35 skipped: three whole row groups (not fetched) and five rows.
        assertThat(ParquetFiles.canonical(ParquetFiles.decode(out.rows)))
                .isEqualTo(ParquetFiles.canonical(records.subList(55, 80)));
        assertThat(store.opens()).as("footer + row groups 5, 6, 7").isLessThanOrEqualTo(4);

        CollectedRows none = new CollectedRows();
        FORMAT.read(store, item, 60, none);
        assertThat(none.rows).isEmpty();
        FORMAT.read(store, item, 1_000, none);
        assertThat(none.rows).isEmpty();
        assertThatThrownBy(() -> FORMAT.read(store, item, -1, new CollectedRows()))
                .isInstanceOf(IllegalArgumentException.class);
    }

    /**
     * Parquet reads the footer as several small reads and a row group as one read per 8 MiB buffer; the
     * stream makes that one request for the footer and one per row group.
     */
    @Test
    void readAheadKeepsRequestsToAboutOnePerRowGroup() throws Exception {
        List<GenericRecord> records = ParquetFiles.events(new Random(3), 400);
        byte[] bytes =
                ParquetFiles.write(ParquetFiles.EVENT, records, Settings.plain(CompressionCodecName.UNCOMPRESSED, 10));
        MemoryObjectStore store = new MemoryObjectStore();
        ObjectInfo object = store.put("b", "k.parquet", bytes);

        store.resetCounts();
        List<WorkItem> items = FORMAT.plan(store, object, 3 * bytes.length / 40);
        assertThat(store.opens())
                .as(
                        "planning reads the footer in one request (ranges %s, object %d bytes)",
                        describe(store.ranges()), bytes.length)
                .isEqualTo(1);
        assertThat(items.size()).isGreaterThan(5);
        for (WorkItem item : items) {
            store.resetCounts();
            CollectedRows out = new CollectedRows();
            FORMAT.read(store, item, 0, out);
            assertThat(out.rows).hasSize((int) (item.end() - item.start()) * 10);
            assertThat(store.opens())
                    .as("requests reading %s (ranges %s)", item, describe(store.ranges()))
                    .isLessThanOrEqualTo(1 + (int) (item.end() - item.start()));
            assertThat(out.bytesRead).isLessThanOrEqualTo(bytes.length);
        }
    }

    @Test
    void aRowGroupLargerThanParquetsReadBuffersIsStillOneRequest() throws Exception {
        Schema schema = new Schema.Parser().parse("""
                {"type": "record", "name": "Blob", "fields": [
                  {"name": "id", "type": "long"}, {"name": "data", "type": "bytes"}]}
                """);
        Random random = new Random(4);
        List<GenericRecord> records = new ArrayList<>();
        for (int i = 0; i < 24; i++) {
            byte[] data = new byte[512 * 1024];
            random.nextBytes(data);
            GenericRecord r = new GenericData.Record(schema);
            r.put("id", (long) i);
            r.put("data", ByteBuffer.wrap(data));
            records.add(r);
        }
        // One row group of 12 MiB: more than the 8 MiB Parquet reads into one buffer.
        byte[] bytes = ParquetFiles.write(schema, records, Settings.plain(CompressionCodecName.UNCOMPRESSED, 24));
        assertThat(bytes.length).isGreaterThan(12 * 1024 * 1024);
        MemoryObjectStore store = new MemoryObjectStore();
        ObjectInfo object = store.put("b", "big.parquet", bytes);
        List<WorkItem> items = FORMAT.plan(store, object, Long.MAX_VALUE);
        assertThat(items).hasSize(1);

        store.resetCounts();
        CollectedRows out = new CollectedRows();
        FORMAT.read(store, items.get(0), 0, out);
        assertThat(ParquetFiles.canonical(ParquetFiles.decode(out.rows))).isEqualTo(ParquetFiles.canonical(records));
        assertThat(store.opens()).as("ranges %s", describe(store.ranges())).isEqualTo(2);
    }

    @Test
    void aFileWithoutAvroMetadataIsReadWithTheSchemaParquetAvroDerives() throws Exception {
        MessageType type = MessageTypeParser.parseMessageType("""
                message plain {
                  required int64 id;
                  required binary name (STRING);
                  optional double ratio;
                  required group tags (LIST) { repeated group list { required binary element (STRING); } }
                }
                """);
        SimpleGroupFactory groups = new SimpleGroupFactory(type);
        ParquetFiles.MemoryOutputFile file = new ParquetFiles.MemoryOutputFile();
        List<String> expected = new ArrayList<>();
        try (ParquetWriter<Group> writer = ExampleParquetWriter.builder(file)
                .withType(type)
                .withRowGroupRowCountLimit(7)
                .withConf(new PlainParquetConfiguration())
                .build()) {
            for (int i = 0; i < 50; i++) {
                Group g = groups.newGroup().append("id", (long) i).append("name", "n" + i);
                if (i % 3 != 0) {
                    g.append("ratio", i / 4.0);
                }
                Group tags = g.addGroup("tags");
                for (int t = 0; t < i % 4; t++) {
                    tags.addGroup("list").append("element", "t" + t);
                }
                writer.write(g);
                expected.add(i + "|n" + i + "|" + (i % 3 != 0 ? i / 4.0 : null) + "|" + tagList(i % 4));
            }
        }
        MemoryObjectStore store = new MemoryObjectStore();
        ObjectInfo object = store.put("b", "plain.parquet", file.bytes());
        List<String> actual = new ArrayList<>();
        for (GenericRecord r : ParquetFiles.decode(readAll(store, object, 1))) {
            actual.add(r.get("id") + "|" + r.get("name") + "|" + r.get("ratio") + "|" + r.get("tags"));
        }
        assertThat(actual).isEqualTo(expected);
    }

    private static String tagList(int n) {
        List<String> tags = new ArrayList<>();
        for (int t = 0; t < n; t++) {
            tags.add("t" + t);
        }
        return tags.toString();
    }

    @Test
    void aFileWithoutRowGroupsPlansNoItems() throws Exception {
        byte[] bytes =
                ParquetFiles.write(ParquetFiles.EVENT, List.of(), Settings.plain(CompressionCodecName.SNAPPY, 10));
        MemoryObjectStore store = new MemoryObjectStore();
        ObjectInfo object = store.put("b", "empty.parquet", bytes);
        assertThat(FORMAT.plan(store, object, 1)).isEmpty();
        CollectedRows out = new CollectedRows();
        FORMAT.read(store, new WorkItem("parquet", "b", "empty.parquet", 0, -1, bytes.length, ""), 0, out);
        assertThat(out.rows).isEmpty();
    }

    @Test
    void anItemWithoutItsSizeHeadsTheObject() throws Exception {
        List<GenericRecord> records = ParquetFiles.events(new Random(5), 30);
        byte[] bytes = ParquetFiles.write(ParquetFiles.EVENT, records, Settings.plain(CompressionCodecName.GZIP, 10));
        MemoryObjectStore store = new MemoryObjectStore();
        store.put("b", "k.parquet", bytes);
        byte[] value =
                "etl-backfill/1 format=parquet bucket=b key=k.parquet start=0 end=-1".getBytes(StandardCharsets.UTF_8);
        CollectedRows out = new CollectedRows();
        FORMAT.read(store, WorkItem.decode(value, 0, value.length), 0, out);
        assertThat(ParquetFiles.canonical(ParquetFiles.decode(out.rows))).isEqualTo(ParquetFiles.canonical(records));
    }

    @Test
    void aCancelledReadStopsAtOnce() throws Exception {
        List<GenericRecord> records = ParquetFiles.events(new Random(6), 50);
        byte[] bytes = ParquetFiles.write(ParquetFiles.EVENT, records, Settings.plain(CompressionCodecName.SNAPPY, 10));
        MemoryObjectStore store = new MemoryObjectStore();
        ObjectInfo object = store.put("b", "k.parquet", bytes);
        CollectedRows out = new CollectedRows(13);
        WorkItem item = FORMAT.plan(store, object, Long.MAX_VALUE).get(0);
        assertThatThrownBy(() -> FORMAT.read(store, item, 0, out)).isInstanceOf(RowOutput.ReadCancelledException.class);
        assertThat(out.rows).hasSize(13);
    }

    static List<byte[]> readAll(MemoryObjectStore store, ObjectInfo object, long splitBytes) throws Exception {
        List<byte[]> rows = new ArrayList<>();
        for (WorkItem item : FORMAT.plan(store, object, splitBytes)) {
            CollectedRows out = new CollectedRows();
            FORMAT.read(store, item, 0, out);
            rows.addAll(out.rows);
        }
        return rows;
    }

    static String describe(List<long[]> ranges) {
        List<String> out = new ArrayList<>();
        for (long[] r : ranges) {
            out.add("[" + r[0] + "," + r[1] + ")");
        }
        return out.toString();
    }
}
