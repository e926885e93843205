package dev.etl.it.clickhouse;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowableOfType;

import dev.etl.clickhouse.ClickHouseSink;
import dev.etl.clickhouse.ClickHouseSinkConfig;
import dev.etl.clickhouse.ClickHouseSinkConfig.Transport;
import dev.etl.clickhouse.ClickHouseTypes;
import dev.etl.clickhouse.InsertFormat;
import dev.etl.clickhouse.RowBinaryEncoder;
import dev.etl.clickhouse.ValidationMode;
import dev.etl.error.SinkWriteException;
import dev.etl.sink.RowBuffer;
import dev.etl.sink.SealedBatch;
import dev.etl.sink.ShardWriter;
import dev.etl.test.infra.ClickHouseHttp;
import dev.etl.test.infra.ClickHouseTestDatabase;
import dev.etl.test.infra.InfraEndpoints;
import dev.etl.test.infra.InfraServer;
import dev.etl.test.infra.LocalInfra;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.io.IOException;
import java.math.BigDecimal;
import java.net.URI;
import java.net.URLEncoder;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.UUID;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * {@link InsertFormat#NATIVE} against the local ClickHouse 18.16 cluster: the same rows written as
 * RowBinary and as Native blocks (through client-v2 and raw HTTP, plain and compressed) read back
 * identical, every type 18.16 has; the server's own {@code FORMAT RowBinary} of the Native-written
 * table is byte for byte the RowBinary we encoded, and its own {@code FORMAT Native} is byte for byte
 * the block we sent; a Native block of the same rows as a RowBinary insert is the same block to
 * ReplicatedMergeTree's deduplication (a replay may switch formats); a column whose type differs from
 * the table's is a permanent failure.
 */
@LocalInfra(InfraServer.CLICKHOUSE)
class ClickHouseNativeFormatIT {
    private static final Map<String, String> LOW_CARDINALITY = Map.of("allow_experimental_low_cardinality_type", "1");

    record Row(
            long id,
            int u8,
            int i16,
            long u32,
            long i64,
            double f32,
            double f64,
            String s,
            byte[] fs,
            int date,
            long dt,
            UUID uuid,
            long d32,
            long d64,
            BigDecimal d128,
            int e8,
            int e16,
            String ns,
            Integer ni,
            List<Long> arr,
            List<String> arrNs,
            List<List<Integer>> nested,
            Object[] tuple,
            String lc,
            String lcn,
            List<String> arrLc) {}

    static final RowBinaryEncoder<Row> ENCODER = RowBinaryEncoder.<Row>builder()
            .uint64("id", Row::id)
            .uint8("u8", Row::u8)
            .int16("i16", Row::i16)
            .uint32("u32", Row::u32)
            .int64("i64", Row::i64)
            .float32("f32", Row::f32)
            .float64("f64", Row::f64)
            .string("s", Row::s)
            .fixedString("fs", 3, Row::fs)
            .date("d", Row::date)
            .dateTime("dt", Row::dt)
            .uuid("u", Row::uuid)
            .decimal32("d32", 2, Row::d32)
            .decimal64("d64", 4, Row::d64)
            .decimal("d128", 38, 10, Row::d128)
            .enum8("e8", ordered("a", 1, "b", 2), Row::e8)
            .enum16("e16", ordered("y", -1000, "x", 1000), Row::e16)
            .nullableString("ns", Row::ns)
            .nullable("ni", ClickHouseTypes.int32(), Row::ni)
            .array("arr", ClickHouseTypes.uint32(), Row::arr)
            .array("arr_ns", ClickHouseTypes.nullable(ClickHouseTypes.string()), Row::arrNs)
            .array("nested", ClickHouseTypes.array(ClickHouseTypes.uint8()), Row::nested)
            .column(
                    "t",
                    ClickHouseTypes.<Object[]>tuple()
                            .element(ClickHouseTypes.uint8(), v -> (Integer) v[0])
                            .element(ClickHouseTypes.string(), v -> (String) v[1])
                            .build(),
                    Row::tuple)
            .lowCardinalityString("lc", Row::lc)
            .column("lcn", ClickHouseTypes.lowCardinality(ClickHouseTypes.nullable(ClickHouseTypes.string())), Row::lcn)
            .array("arr_lc", ClickHouseTypes.lowCardinality(ClickHouseTypes.string()), Row::arrLc)
            .build();

    /** Enum values in the server's spelling order (by value), so the block's type names are the server's. */
    private static Map<String, Integer> ordered(String k1, int v1, String k2, int v2) {
        Map<String, Integer> m = new java.util.LinkedHashMap<>();
        m.put(k1, v1);
        m.put(k2, v2);
        return m;
    }

    private static final String COLUMNS = "(id UInt64, u8 UInt8, i16 Int16, u32 UInt32, i64 Int64, f32 Float32, "
            + "f64 Float64, s String, fs FixedString(3), d Date, dt DateTime, u UUID, d32 Decimal(9, 2), "
            + "d64 Decimal(18, 4), d128 Decimal(38, 10), e8 Enum8('a' = 1, 'b' = 2), e16 Enum16('y' = -1000, 'x' = 1000), "
            + "ns Nullable(String), ni Nullable(Int32), arr Array(UInt32), arr_ns Array(Nullable(String)), "
            + "nested Array(Array(UInt8)), t Tuple(UInt8, String), lc LowCardinality(String), "
            + "lcn LowCardinality(Nullable(String)), arr_lc Array(LowCardinality(String)))";

    private static final String[] TABLES = {
        "rows_rowbinary", "rows_native_client", "rows_native_http", "rows_native_gzip"
    };

    private static ClickHouseTestDatabase db;
    private static InfraEndpoints infra;
    private static String replica;

    @BeforeAll
    static void createTables(ClickHouseTestDatabase database) {
        db = database;
        infra = database.endpoints();
        replica = infra.clickhouseShard(1).replicaUrl(1);
        // LowCardinality needs the setting on the host that creates the table: plain MergeTree on one replica
        ClickHouseHttp http = new ClickHouseHttp(Duration.ofSeconds(2), Duration.ofMinutes(1));
        for (String table : TABLES) {
            http.execute(
                    replica,
                    "CREATE TABLE " + db.table(table) + " " + COLUMNS + " ENGINE = MergeTree ORDER BY id",
                    LOW_CARDINALITY);
        }
    }

    private static ClickHouseSinkConfig.Builder config(String table, InsertFormat format, Transport transport) {
        return ClickHouseSinkConfig.builder()
                .table(db.name(), table)
                .shard(replica)
                .format(format)
                .transport(transport)
                .validation(ValidationMode.FULL)
                .socketTimeout(Duration.ofSeconds(30));
    }

    private static ShardWriter writer(ClickHouseSinkConfig config) {
        return ClickHouseSink.definition("rows", "it", config, ENCODER, new SimpleMeterRegistry())
                .writers()
                .apply(0);
    }

    private static List<Row> rows(long fromId, int count, boolean emptyLowCardinalityArrays, long seed) {
        Random r = new Random(seed);
        List<Row> rows = new ArrayList<>();
        for (long id = fromId; id < fromId + count; id++) {
            List<String> arrNs = new ArrayList<>();
            for (int i = r.nextInt(3); i > 0; i--) {
                arrNs.add(r.nextInt(3) == 0 ? null : "n" + r.nextInt(50));
            }
            List<List<Integer>> nested = new ArrayList<>();
            for (int i = r.nextInt(3); i > 0; i--) {
                List<Integer> inner = new ArrayList<>();
                for (int j = r.nextInt(3); j > 0; j--) {
                    inner.add(r.nextInt(256));
                }
                nested.add(inner);
            }
            List<String> arrLc = new ArrayList<>();
            for (int i = emptyLowCardinalityArrays ? 0 : r.nextInt(4); i > 0; i--) {
                arrLc.add("tag-" + r.nextInt(7));
            }
            List<Long> arr = new ArrayList<>();
            for (int i = r.nextInt(4); i > 0; i--) {
                arr.add(r.nextLong() >>> 32);
            }
            byte[] fs = new byte[r.nextInt(4)];
            r.nextBytes(fs);
            rows.add(new Row(
                    id,
                    r.nextInt(256),
                    r.nextInt(65536) - 32768,
                    r.nextLong() >>> 32,
                    r.nextLong(),
                    (float) r.nextGaussian(),
                    r.nextGaussian() * 1e9,
                    r.nextInt(10) == 0 ? "" : "s-" + r.nextInt(1000) + "-ü",
                    fs,
                    r.nextInt(40_000),
                    1_700_000_000L + r.nextInt(1_000_000),
                    new UUID(r.nextLong(), r.nextLong()),
                    r.nextInt(2_000_000) - 1_000_000,
                    r.nextLong() % 1_000_000_000_000L,
                    BigDecimal.valueOf(r.nextLong(), 10),
                    1 + r.nextInt(2),
                    r.nextBoolean() ? 1000 : -1000,
                    r.nextInt(3) == 0 ? null : "ns" + r.nextInt(100),
                    r.nextInt(3) == 0 ? null : r.nextInt(),
                    arr,
                    arrNs,
                    nested,
                    new Object[] {r.nextInt(256), "t" + r.nextInt(9)},
                    r.nextInt(5) == 0 ? "" : "lc-" + r.nextInt(20),
                    r.nextInt(4) == 0 ? null : "lcn-" + r.nextInt(20),
                    arrLc));
        }
        return rows;
    }

    private static ItBatch batch(long sequence, List<Row> rows) {
        RowBuffer out = new RowBuffer(1 << 16);
        for (Row row : rows) {
            ENCODER.encode(row, out);
        }
        return ItBatch.of(0, sequence, out, rows.size());
    }

    /** The raw bytes of a SELECT (ClickHouseHttp answers text). */
    private static byte[] select(String sql) throws IOException, InterruptedException {
        HttpRequest request = HttpRequest.newBuilder(
                        URI.create(replica + "/?query=" + URLEncoder.encode(sql, StandardCharsets.UTF_8)))
                .timeout(Duration.ofSeconds(30))
                .GET()
                .build();
        HttpResponse<byte[]> response =
                HttpClient.newHttpClient().send(request, HttpResponse.BodyHandlers.ofByteArray());
        assertThat(response.statusCode())
                .as(new String(response.body(), StandardCharsets.UTF_8))
                .isEqualTo(200);
        return response.body();
    }

    @Test
    void theSameRowsInEitherFormatReadBackIdenticalAndAsTheBytesWeSent() throws Exception {
        ItBatch first = batch(1, rows(1, 3000, false, 16_003));
        try (ShardWriter rowBinary = writer(config(TABLES[0], InsertFormat.ROW_BINARY, Transport.CLIENT_V2)
                        .build());
                ShardWriter client = writer(config(TABLES[1], InsertFormat.NATIVE, Transport.CLIENT_V2)
                        .build());
                ShardWriter http = writer(
                        config(TABLES[2], InsertFormat.NATIVE, Transport.HTTP).build());
                ShardWriter gzip = writer(config(TABLES[3], InsertFormat.NATIVE, Transport.HTTP)
                        .compression(true)
                        .build())) {
            for (ShardWriter w : List.of(rowBinary, client, http, gzip)) {
                w.write(first);
            }
            // the server's own Native block of what it stored is the block the writer sent
            byte[] sent = CapturingBlock.of(first);
            byte[] stored = select("SELECT * FROM " + db.table(TABLES[1]) + " ORDER BY id FORMAT Native");
            assertThat(HexFormat.of().formatHex(stored))
                    .isEqualTo(HexFormat.of().formatHex(sent));

            // every array of LowCardinality empty: its data is left out, as the server leaves it out
            ItBatch second = batch(2, rows(10_001, 500, true, 16_004));
            for (ShardWriter w : List.of(rowBinary, client, http, gzip)) {
                w.write(second);
            }
        }
        String expected = new String(
                select("SELECT * FROM " + db.table(TABLES[0]) + " ORDER BY id FORMAT TabSeparated"),
                StandardCharsets.UTF_8);
        assertThat(expected.lines()).hasSize(3500);
        for (int i = 1; i < TABLES.length; i++) {
            assertThat(new String(
                            select("SELECT * FROM " + db.table(TABLES[i]) + " ORDER BY id FORMAT TabSeparated"),
                            StandardCharsets.UTF_8))
                    .as(TABLES[i])
                    .isEqualTo(expected);
        }
        // what the server reads back from the Native-written table is, byte for byte, the RowBinary we encoded
        RowBuffer all = new RowBuffer(1 << 20);
        for (Row row : rows(1, 3000, false, 16_003)) {
            ENCODER.encode(row, all);
        }
        for (Row row : rows(10_001, 500, true, 16_004)) {
            ENCODER.encode(row, all);
        }
        assertThat(select("SELECT * FROM " + db.table(TABLES[1]) + " ORDER BY id FORMAT RowBinary"))
                .isEqualTo(all.toByteArray());
        assertThat(ClickHouseHttp.query(
                        replica,
                        "SELECT countIf(empty(arr_lc)), countIf(lcn IS NULL) > 0 FROM " + db.table(TABLES[2])
                                + " WHERE id > 10000"))
                .isEqualTo("500\t1\n");
    }

    @Test
    void aNativeBlockOfRowsAlreadyInsertedAsRowBinaryIsDroppedByReplicatedDeduplication() {
        String table = "dedup";
        db.execute("CREATE TABLE " + db.table(table) + " ON CLUSTER " + db.cluster() + " (id UInt64, s String, "
                + "n Nullable(Int32), a Array(String)) ENGINE = ReplicatedMergeTree('/clickhouse/tables/{shard}/"
                + db.name() + "/" + table + "', '{replica}') ORDER BY id");
        RowBinaryEncoder<Long> encoder = RowBinaryEncoder.<Long>builder()
                .uint64("id", id -> id)
                .string("s", id -> "s" + id)
                .nullable("n", ClickHouseTypes.int32(), id -> id % 3 == 0 ? null : (int) (id * 7))
                .array("a", ClickHouseTypes.string(), id -> List.of("x" + (id % 5)))
                .build();
        RowBuffer rows = new RowBuffer(4096);
        for (long id = 0; id < 1000; id++) {
            encoder.encode(id, rows);
        }
        ItBatch batch = ItBatch.of(0, 1, rows, 1000);
        RowBuffer others = new RowBuffer(4096);
        for (long id = 1000; id < 1500; id++) {
            encoder.encode(id, others);
        }
        ClickHouseSinkConfig.Builder config = ClickHouseSinkConfig.builder()
                .table(db.name(), table)
                .shard(infra.clickhouseShard(1).replicaUrls().toArray(String[]::new));
        try (ShardWriter rowBinary = ClickHouseSink.definition(
                                "d",
                                "it",
                                config.format(InsertFormat.ROW_BINARY).build(),
                                encoder,
                                new SimpleMeterRegistry())
                        .writers()
                        .apply(0);
                ShardWriter nat = ClickHouseSink.definition(
                                "d",
                                "it",
                                config.format(InsertFormat.NATIVE).build(),
                                encoder,
                                new SimpleMeterRegistry())
                        .writers()
                        .apply(0)) {
            rowBinary.write(batch);
            nat.write(batch.retry()); // a replay after a restart that switched the format
            nat.write(batch.retry().retry()); // and the other replica (round-robin)
            nat.write(ItBatch.of(0, 2, others, 500));
        }
        for (String url : infra.clickhouseShard(1).replicaUrls()) {
            ClickHouseHttp.query(url, "SYSTEM SYNC REPLICA " + db.table(table));
            assertThat(ClickHouseHttp.query(url, "SELECT count(), uniqExact(id), sum(id) FROM " + db.table(table)))
                    .isEqualTo("1500\t1500\t" + (1499L * 1500 / 2) + "\n");
        }
    }

    @Test
    void aColumnWhoseTypeDiffersFromTheTablesIsAPermanentFailure() {
        String table = "mismatch";
        ClickHouseHttp.query(replica, "CREATE TABLE " + db.table(table) + " (id Int64) ENGINE = MergeTree ORDER BY id");
        RowBinaryEncoder<Integer> narrow =
                RowBinaryEncoder.<Integer>builder().int32("id", v -> v).build();
        RowBuffer rows = new RowBuffer(16);
        narrow.encode(7, rows);
        ClickHouseSinkConfig config = ClickHouseSinkConfig.builder()
                .table(db.name(), table)
                .shard(replica)
                .format(InsertFormat.NATIVE)
                .validation(ValidationMode.OFF)
                .build();
        try (ShardWriter w = ClickHouseSink.definition("m", "it", config, narrow, new SimpleMeterRegistry())
                .writers()
                .apply(0)) {
            SinkWriteException e =
                    catchThrowableOfType(SinkWriteException.class, () -> w.write(ItBatch.of(0, 1, rows, 1)));
            assertThat(e.isTransient()).isFalse();
            assertThat(e).hasMessageContaining("Code: 368").hasMessageContaining("Bad cast");
        }
        assertThat(ClickHouseHttp.query(replica, "SELECT count() FROM " + db.table(table)))
                .isEqualTo("0\n");
    }

    /** The block the writer sends for a batch, as a transport sees it. */
    static final class CapturingBlock {
        static byte[] of(SealedBatch batch) {
            List<byte[]> bodies = new ArrayList<>();
            dev.etl.clickhouse.ClickHouseTransport capture = new dev.etl.clickhouse.ClickHouseTransport() {
                @Override
                public long insert(URI r, dev.etl.clickhouse.ClickHouseInsert insert, byte[] body, int length) {
                    bodies.add(java.util.Arrays.copyOf(body, length));
                    return WRITTEN_UNKNOWN;
                }

                @Override
                public String query(URI r, String sql) {
                    throw new UnsupportedOperationException(sql);
                }
            };
            ClickHouseSinkConfig config = ClickHouseSinkConfig.builder()
                    .table(db.name(), "x")
                    .shard(replica)
                    .format(InsertFormat.NATIVE)
                    .build();
            try (dev.etl.clickhouse.ClickHouseShardWriter w = new dev.etl.clickhouse.ClickHouseShardWriter(
                    config,
                    ENCODER.columns(),
                    0,
                    "rows",
                    "it",
                    dev.etl.clickhouse.ClickHouseCapabilities.legacy("18.16.1"),
                    capture,
                    new SimpleMeterRegistry(),
                    System::nanoTime,
                    () -> {})) {
                w.write(batch);
            }
            return bodies.get(0);
        }
    }
}
