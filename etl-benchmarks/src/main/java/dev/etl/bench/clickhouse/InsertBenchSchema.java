package dev.etl.bench.clickhouse;

import dev.etl.clickhouse.ClickHouseTypes;
import dev.etl.clickhouse.RowBinaryEncoder;
import dev.etl.sink.RowBuffer;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.UUID;

/**
 * The tables the insert-format measurements write ({@link NativeTranspositionBenchmark} on the client,
 * {@link InsertFormatBench} against the servers): the same encoder, DDL and seeded rows for both.
 *
 * <ul>
 * <li>{@link #ORDERS}: the sample-service's order lines (UInt64, UInt16, String, Enum8, String, UInt32,
 * Decimal(18, 2), Nullable(String), Int64), about 60 bytes a row;
 * <li>{@link #NUMERIC}: ten fixed-width columns (integers, floats, DateTime, Decimal), 53 bytes a row;
 * <li>{@link #TEXT}: strings, two LowCardinality(String), a Nullable(String), an Array(String), a UUID
 * and an Enum8, about 110 bytes a row.
 * </ul>
 */
public enum InsertBenchSchema {
    ORDERS(
            "order_id UInt64, line_no UInt16, customer String, status Enum8('NEW' = 0, 'PAID' = 1, 'SHIPPED' = 2, "
                    + "'CANCELLED' = 3), sku String, quantity UInt32, price Decimal(18, 2), coupon Nullable(String), "
                    + "updated_ms Int64",
            "order_id, line_no"),
    NUMERIC(
            "id UInt64, ts DateTime, user_id UInt32, amount Decimal(18, 2), price Float64, qty Int32, score Float32, "
                    + "flags UInt8, lat Float64, lon Float64",
            "id"),
    TEXT(
            "id UInt64, country LowCardinality(String), device LowCardinality(String), url String, "
                    + "referrer Nullable(String), tags Array(String), session UUID, kind Enum8('view' = 1, 'click' = 2)",
            "id");

    /** One row of any schema: the generator fills what the schema's encoder reads. */
    public record Row(
            long id,
            int small,
            long medium,
            String s1,
            String s2,
            String s3,
            String nullable,
            List<String> tags,
            UUID uuid,
            int code,
            double d1,
            double d2,
            double d3) {}

    private final String columns;
    private final String orderBy;

    InsertBenchSchema(String columns, String orderBy) {
        this.columns = columns;
        this.orderBy = orderBy;
    }

    /** {@code (column type, …)} as in a CREATE TABLE. */
    public String columns() {
        return "(" + columns + ")";
    }

    public String orderBy() {
        return orderBy;
    }

    public RowBinaryEncoder<Row> encoder() {
        return switch (this) {
            case ORDERS ->
                RowBinaryEncoder.<Row>builder()
                        .uint64("order_id", Row::id)
                        .uint16("line_no", Row::small)
                        .string("customer", Row::s1)
                        .enum8("status", enumValues("NEW", 0, "PAID", 1, "SHIPPED", 2, "CANCELLED", 3), Row::code)
                        .string("sku", Row::s2)
                        .uint32("quantity", Row::medium)
                        .decimal64("price", 2, r -> r.medium() * 7 + r.small())
                        .nullableString("coupon", Row::nullable)
                        .int64("updated_ms", r -> 1_700_000_000_000L + r.id())
                        .build();
            case NUMERIC ->
                RowBinaryEncoder.<Row>builder()
                        .uint64("id", Row::id)
                        .dateTime("ts", r -> 1_700_000_000L + r.medium())
                        .uint32("user_id", Row::medium)
                        .decimal64("amount", 2, r -> r.id() % 1_000_000)
                        .float64("price", Row::d1)
                        .int32("qty", Row::small)
                        .float32("score", Row::d2)
                        .uint8("flags", r -> r.code() & 0xFF)
                        .float64("lat", Row::d2)
                        .float64("lon", Row::d3)
                        .build();
            case TEXT ->
                RowBinaryEncoder.<Row>builder()
                        .uint64("id", Row::id)
                        .lowCardinalityString("country", Row::s1)
                        .lowCardinalityString("device", Row::s2)
                        .string("url", Row::s3)
                        .nullableString("referrer", Row::nullable)
                        .array("tags", ClickHouseTypes.string(), Row::tags)
                        .uuid("session", Row::uuid)
                        .enum8("kind", enumValues("view", 1, "click", 2), r -> 1 + (r.code() & 1))
                        .build();
        };
    }

    private static Map<String, Integer> enumValues(Object... nameValue) {
        Map<String, Integer> m = new LinkedHashMap<>();
        for (int i = 0; i < nameValue.length; i += 2) {
            m.put((String) nameValue[i], (Integer) nameValue[i + 1]);
        }
        return m;
    }

    private static final String[] COUNTRIES = {"DE", "FR", "US", "GB", "IT", "ES", "NL", "PL", "SE", "JP", "BR", "IN"};
    private static final String[] DEVICES = {"desktop", "mobile", "tablet", "tv"};

    /** {@code count} seeded rows with ids from {@code fromId}. */
    public List<Row> rows(long fromId, int count, long seed) {
        Random r = new Random(seed);
        List<Row> rows = new ArrayList<>(count);
        for (long id = fromId; id < fromId + count; id++) {
            List<String> tags = new ArrayList<>();
            for (int t = r.nextInt(4); t > 0; t--) {
                tags.add("tag-" + r.nextInt(50));
            }
            boolean text = this == TEXT;
            rows.add(new Row(
                    id,
                    1 + r.nextInt(20),
                    r.nextInt(1_000_000),
                    text ? COUNTRIES[r.nextInt(COUNTRIES.length)] : "customer-" + r.nextInt(100_000),
                    text ? DEVICES[r.nextInt(DEVICES.length)] : "sku-" + r.nextInt(5_000),
                    "https://shop.example/p/" + r.nextInt(1_000_000) + "?ref=" + Long.toHexString(r.nextLong()),
                    r.nextInt(4) == 0 ? "C" + r.nextInt(1000) : null,
                    tags,
                    new UUID(r.nextLong(), r.nextLong()),
                    r.nextInt(4),
                    r.nextDouble() * 1000,
                    r.nextGaussian(),
                    r.nextDouble() * 180 - 90));
        }
        return rows;
    }

    /** The rows' RowBinary bytes, as a sink's batch holds them. */
    public byte[] rowBinary(List<Row> rows) {
        RowBinaryEncoder<Row> encoder = encoder();
        RowBuffer out = new RowBuffer(rows.size() * 64);
        for (Row row : rows) {
            encoder.encode(row, out);
        }
        return out.toByteArray();
    }
}
