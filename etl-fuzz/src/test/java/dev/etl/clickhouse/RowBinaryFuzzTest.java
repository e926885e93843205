package dev.etl.clickhouse;

import com.code_intelligence.jazzer.junit.FuzzTest;
import dev.etl.fuzz.Budget;
import dev.etl.fuzz.Budget.Outcome;
import dev.etl.fuzz.Corpus;
import dev.etl.sink.RowBuffer;
import java.math.BigDecimal;
import java.math.BigInteger;
import java.time.LocalDate;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HexFormat;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.SplittableRandom;
import java.util.UUID;
import java.util.function.Function;
import org.junit.jupiter.api.Test;

/**
 * The RowBinary cursor ({@link RowBinaryCursor}) and the Native transposition that reads batches with it
 * ({@link NativeBlockEncoder}, behind {@code NativeBatchTransposer}) on arbitrary batch bytes.
 *
 * <p>Input: byte 0 picks a column set of {@link #SETS}, byte 1 is the batch's row count, the rest the
 * batch's RowBinary rows. Per input, within {@link Budget}'s bounds:
 * <ul>
 * <li>the transposition returns a block or throws {@link RowBinaryMismatchException}, nothing else
 *     (the cursor's own {@code Mismatch} must not escape either);</li>
 * <li>it accepts exactly the batches that {@link Reference}, a RowBinary parser written here from the
 *     format (lengths and counts are unsigned LEB128 that must fit the bytes left, a Nullable flag is 0
 *     or 1), reads as that many rows of the columns with no byte left;</li>
 * <li>round trip: the values {@link Reference} read, written again by {@link RowBinaryEncoder} with the
 *     same column types, are accepted; when they are the same bytes (the input was canonical: shortest
 *     LEB128, values the typed API takes), the blocks are the same; the same encoder transposing the
 *     same batch again, after a failed batch, writes the same block.</li>
 * </ul>
 */
class RowBinaryFuzzTest {
    /** Column sets: scalars, Nullable, LowCardinality, Array, Map, Tuple, nested. */
    static final List<List<Column<?>>> SETS = List.of(
            List.of(
                    col("Int32", ClickHouseTypes.int32()),
                    col("String", ClickHouseTypes.stringBytes()),
                    col("Nullable(UInt8)", ClickHouseTypes.nullable(ClickHouseTypes.uint8()))),
            List.of(
                    col("Array(String)", ClickHouseTypes.array(ClickHouseTypes.stringBytes())),
                    col("LowCardinality(String)", ClickHouseTypes.lowCardinality(ClickHouseTypes.stringBytes())),
                    col("Int64", ClickHouseTypes.int64())),
            List.of(
                    col(
                            "Map(String, Int64)",
                            ClickHouseTypes.map(ClickHouseTypes.stringBytes(), ClickHouseTypes.int64())),
                    col(
                            "Tuple(UInt8, Nullable(String))",
                            ClickHouseTypes.<Object[]>tuple()
                                    .element(ClickHouseTypes.uint8(), t -> (Integer) t[0])
                                    .element(
                                            ClickHouseTypes.nullable(ClickHouseTypes.stringBytes()), t -> (byte[]) t[1])
                                    .build()),
                    col("Float64", ClickHouseTypes.float64())),
            List.of(
                    col(
                            "Array(Array(Nullable(Int16)))",
                            ClickHouseTypes.array(
                                    ClickHouseTypes.array(ClickHouseTypes.nullable(ClickHouseTypes.int16())))),
                    col(
                            "LowCardinality(Nullable(String))",
                            ClickHouseTypes.lowCardinality(ClickHouseTypes.nullable(ClickHouseTypes.stringBytes())))),
            List.of(
                    col("UUID", ClickHouseTypes.uuid()),
                    col("FixedString(3)", ClickHouseTypes.fixedString(3)),
                    col("Decimal(18, 4)", ClickHouseTypes.decimal(18, 4)),
                    col("Array(UInt256)", ClickHouseTypes.array(ClickHouseTypes.uint256())),
                    col("Date", ClickHouseTypes.date())),
            List.of(
                    col(
                            "Array(Map(String, Array(UInt8)))",
                            ClickHouseTypes.array(ClickHouseTypes.map(
                                    ClickHouseTypes.stringBytes(), ClickHouseTypes.array(ClickHouseTypes.uint8())))),
                    col("Nullable(Float32)", ClickHouseTypes.nullable(ClickHouseTypes.float32()))));

    /** A column: its type as text (what the reference parses) and as the typed API writes it. */
    record Column<V>(String type, ClickHouseType<V> typed) {}

    private static <V> Column<V> col(String type, ClickHouseType<V> typed) {
        if (!typed.name().equals(type)) {
            throw new IllegalStateException(typed.name() + " is not " + type);
        }
        return new Column<>(type, typed);
    }

    private static final List<RowBinaryEncoder<Object[]>> ENCODERS = new ArrayList<>();
    private static final List<NativeBlockEncoder> NATIVE = new ArrayList<>();

    static {
        for (List<Column<?>> set : SETS) {
            RowBinaryEncoder.Builder<Object[]> b = RowBinaryEncoder.builder();
            for (int i = 0; i < set.size(); i++) {
                add(b, i, set.get(i));
            }
            RowBinaryEncoder<Object[]> encoder = b.build();
            ENCODERS.add(encoder);
            NATIVE.add(NativeBlockEncoder.of(encoder.columns()));
        }
    }

    @SuppressWarnings("unchecked")
    private static <V> void add(RowBinaryEncoder.Builder<Object[]> b, int i, Column<V> c) {
        b.column("c" + i, c.typed(), row -> (V) row[i]);
    }

    @FuzzTest
    void transpositionMatchesTheReferenceParser(byte[] input) {
        if (input.length < 2) {
            return;
        }
        int set = (input[0] & 0xff) % SETS.size();
        int rowCount = input[1] & 0xff;
        byte[] rows = Arrays.copyOfRange(input, 2, input.length + 5); // junk after the batch's bytes
        Arrays.fill(rows, input.length - 2, rows.length, (byte) 0x80);
        int byteCount = input.length - 2;
        NativeBlockEncoder nat = NATIVE.get(set);
        String what = "the Native transposition of " + types(set);

        Outcome<byte[]> block = Budget.run(what, byteCount, 1 << 20, 64, () -> {
            int length = nat.encode(rows, byteCount, rowCount);
            return Arrays.copyOf(nat.block(), length);
        });
        if (!block.ok()) {
            Budget.expectDeclared(what, block.failure(), RowBinaryMismatchException.class);
        }
        Outcome<List<Object[]>> parsed = Budget.run(
                "the reference parser",
                byteCount,
                Long.MAX_VALUE / 2,
                0,
                () -> new Reference(rows, byteCount).rows(SETS.get(set), rowCount));
        String batch = "\n" + rowCount + " rows: " + HexFormat.of().formatHex(rows, 0, byteCount);
        if (block.ok() != parsed.ok()) {
            throw new AssertionError(what + (block.ok() ? " accepted" : " rejected (" + block.failure() + ")")
                    + " a batch the reference parser " + (parsed.ok() ? "reads" : "rejects (" + parsed.failure() + ")")
                    + batch);
        }
        if (!block.ok()) {
            return;
        }
        // The same batch again, after a batch that fails, through the same encoder: the same block.
        try {
            nat.encode(new byte[] {(byte) 0xff}, 1, 3);
        } catch (RowBinaryMismatchException expected) {
            // as it should
        }
        byte[] again = Arrays.copyOf(nat.block(), nat.encode(rows, byteCount, rowCount));
        if (!Arrays.equals(again, block.value())) {
            throw new AssertionError(what + " wrote another block for the same batch after a failed one" + batch);
        }
        // Round trip through the typed RowBinaryEncoder.
        RowBuffer out = new RowBuffer(64);
        try {
            for (Object[] row : parsed.value()) {
                ENCODERS.get(set).encode(row, out);
            }
        } catch (ColumnEncodeException e) {
            return; // a value the typed API does not take (e.g. more digits than the Decimal): not canonical
        }
        byte[] reencoded = out.toByteArray();
        byte[] reblock = Arrays.copyOf(nat.block(), nat.encode(reencoded, reencoded.length, rowCount));
        if (Arrays.equals(reencoded, 0, reencoded.length, rows, 0, byteCount)
                && !Arrays.equals(reblock, block.value())) {
            throw new AssertionError(what + " wrote another block for the same rows" + batch);
        }
    }

    private static String types(int set) {
        List<String> t = new ArrayList<>();
        for (Column<?> c : SETS.get(set)) {
            t.add(c.type());
        }
        return t.toString();
    }

    /** A RowBinary parser from the format, into the values the typed API writes. */
    static final class Reference {
        private final byte[] b;
        private final int end;
        private int p;

        Reference(byte[] b, int end) {
            this.b = b;
            this.end = end;
        }

        List<Object[]> rows(List<Column<?>> columns, int count) {
            List<Object[]> rows = new ArrayList<>();
            for (int r = 0; r < count; r++) {
                Object[] row = new Object[columns.size()];
                for (int c = 0; c < row.length; c++) {
                    row[c] = value(columns.get(c).type());
                }
                rows.add(row);
            }
            if (p != end) {
                throw new IllegalArgumentException((end - p) + " bytes after the rows");
            }
            return rows;
        }

        private Object value(String type) {
            String name = type.contains("(") ? type.substring(0, type.indexOf('(')) : type;
            List<String> args =
                    type.contains("(") ? args(type.substring(type.indexOf('(') + 1, type.length() - 1)) : List.of();
            switch (name) {
                case "UInt8":
                    return bytes(1)[0] & 0xff;
                case "Int16":
                    return (int) (short) le(2);
                case "Int32":
                    return (int) le(4);
                case "Int64":
                    return le(8);
                case "Float32":
                    return Float.intBitsToFloat((int) le(4));
                case "Float64":
                    return Double.longBitsToDouble(le(8));
                case "Date":
                    return LocalDate.ofEpochDay(le(2) & 0xffff);
                case "UUID": {
                    long high = le(8);
                    return new UUID(high, le(8));
                }
                case "FixedString":
                    return bytes(Integer.parseInt(args.get(0)));
                case "Decimal":
                    return BigDecimal.valueOf(le(8), Integer.parseInt(args.get(1)));
                case "UInt256": {
                    byte[] le = bytes(32);
                    byte[] be = new byte[33];
                    for (int i = 0; i < 32; i++) {
                        be[32 - i] = le[i];
                    }
                    return new BigInteger(be);
                }
                case "String":
                    return bytes(length());
                case "Nullable": {
                    int flag = bytes(1)[0];
                    if (flag != 0 && flag != 1) {
                        throw new IllegalArgumentException("Nullable flag " + flag);
                    }
                    return flag == 1 ? null : value(args.get(0));
                }
                case "LowCardinality":
                    return value(args.get(0));
                case "Array": {
                    int n = length();
                    List<Object> list = new ArrayList<>();
                    for (int i = 0; i < n; i++) {
                        list.add(value(args.get(0)));
                    }
                    return list;
                }
                case "Map": {
                    int n = length();
                    Map<Object, Object> map = new LinkedHashMap<>(); // byte[] keys: duplicates stay
                    for (int i = 0; i < n; i++) {
                        map.put(value(args.get(0)), value(args.get(1)));
                    }
                    return map;
                }
                case "Tuple": {
                    Object[] t = new Object[args.size()];
                    for (int i = 0; i < t.length; i++) {
                        t[i] = value(args.get(i));
                    }
                    return t;
                }
                default:
                    throw new IllegalStateException(type);
            }
        }

        /** An unsigned LEB128 count or length, which must fit the bytes left (each item takes one at least). */
        private int length() {
            long value = 0;
            for (int shift = 0; ; shift += 7) {
                if (shift >= 70) {
                    throw new IllegalArgumentException("LEB128 longer than 10 bytes");
                }
                int v = bytes(1)[0];
                value |= (long) (v & 0x7f) << shift;
                if (v >= 0) {
                    break;
                }
            }
            if (Long.compareUnsigned(value, end - p) > 0) {
                throw new IllegalArgumentException("length " + Long.toUnsignedString(value) + " past the end");
            }
            return (int) value;
        }

        private long le(int n) {
            byte[] v = bytes(n);
            long x = 0;
            for (int i = n - 1; i >= 0; i--) {
                x = x << 8 | (v[i] & 0xff);
            }
            return x;
        }

        private byte[] bytes(int n) {
            if (n > end - p) {
                throw new IllegalArgumentException("the batch ends");
            }
            byte[] v = Arrays.copyOfRange(b, p, p + n);
            p += n;
            return v;
        }

        private static List<String> args(String s) {
            List<String> out = new ArrayList<>();
            int depth = 0;
            int start = 0;
            for (int i = 0; i < s.length(); i++) {
                char c = s.charAt(i);
                depth += c == '(' ? 1 : c == ')' ? -1 : 0;
                if (c == ',' && depth == 0) {
                    out.add(s.substring(start, i).trim());
                    start = i + 1;
                }
            }
            out.add(s.substring(start).trim());
            return out;
        }
    }

    // ---- seeds ----------------------------------------------------------------------------------

    /** Random rows of a column set, written by the typed encoder. */
    static byte[] seed(int set, int rowCount, long seed) {
        SplittableRandom random = new SplittableRandom(seed);
        RowBuffer out = new RowBuffer(64);
        for (int r = 0; r < rowCount; r++) {
            List<Column<?>> columns = SETS.get(set);
            Object[] row = new Object[columns.size()];
            for (int c = 0; c < row.length; c++) {
                row[c] = random(columns.get(c).type(), random);
            }
            ENCODERS.get(set).encode(row, out);
        }
        byte[] rows = out.toByteArray();
        byte[] input = new byte[rows.length + 2];
        input[0] = (byte) set;
        input[1] = (byte) rowCount;
        System.arraycopy(rows, 0, input, 2, rows.length);
        return input;
    }

    private static Object random(String type, SplittableRandom random) {
        Function<String, Object> inner = t -> random(t, random);
        String name = type.contains("(") ? type.substring(0, type.indexOf('(')) : type;
        List<String> args = type.contains("(")
                ? Reference.args(type.substring(type.indexOf('(') + 1, type.length() - 1))
                : List.of();
        switch (name) {
            case "UInt8":
                return random.nextInt(256);
            case "Int16":
                return random.nextInt(-300, 300);
            case "Int32":
                return random.nextInt();
            case "Int64":
                return random.nextLong();
            case "Float32":
                return (float) random.nextDouble(-1e3, 1e3);
            case "Float64":
                return random.nextDouble();
            case "Date":
                return LocalDate.ofEpochDay(random.nextInt(30_000));
            case "UUID":
                return new UUID(random.nextLong(), random.nextLong());
            case "FixedString":
                return new byte[] {'a', (byte) random.nextInt(), 'c'};
            case "Decimal":
                return BigDecimal.valueOf(random.nextLong(-1_000_000_000L, 1_000_000_000L), 4);
            case "UInt256":
                return new BigInteger(200, new java.util.Random(random.nextLong()));
            case "String":
                return ("s" + "é".repeat(random.nextInt(4)) + random.nextInt(5))
                        .getBytes(java.nio.charset.StandardCharsets.UTF_8);
            case "Nullable":
                return random.nextInt(3) == 0 ? null : inner.apply(args.get(0));
            case "LowCardinality":
                return inner.apply(args.get(0));
            case "Array": {
                List<Object> list = new ArrayList<>();
                for (int i = random.nextInt(4); i > 0; i--) {
                    list.add(inner.apply(args.get(0)));
                }
                return list;
            }
            case "Map": {
                Map<Object, Object> map = new LinkedHashMap<>();
                for (int i = random.nextInt(3); i > 0; i--) {
                    map.put(inner.apply(args.get(0)), inner.apply(args.get(1)));
                }
                return map;
            }
            case "Tuple": {
                Object[] t = new Object[args.size()];
                for (int i = 0; i < t.length; i++) {
                    t[i] = inner.apply(args.get(i));
                }
                return t;
            }
            default:
                throw new IllegalStateException(type);
        }
    }

    static Map<String, byte[]> seeds() {
        Map<String, byte[]> seeds = new LinkedHashMap<>();
        for (int set = 0; set < SETS.size(); set++) {
            seeds.put("set-" + set + "-rows-3", seed(set, 3, 31L * set));
            seeds.put("set-" + set + "-rows-9", seed(set, 9, 31L * set + 1));
        }
        return seeds;
    }

    @Test
    void seedCorpusIsCurrent() {
        Map<String, byte[]> seeds = seeds();
        for (Map.Entry<String, byte[]> s : seeds.entrySet()) {
            // the reference parser reads what the typed encoder writes, and the round trip is exact
            byte[] input = s.getValue();
            int set = input[0];
            byte[] rows = Arrays.copyOfRange(input, 2, input.length);
            List<Object[]> parsed = new Reference(rows, rows.length).rows(SETS.get(set), input[1]);
            RowBuffer out = new RowBuffer(64);
            for (Object[] row : parsed) {
                ENCODERS.get(set).encode(row, out);
            }
            if (!Arrays.equals(out.toByteArray(), rows)) {
                throw new AssertionError("the reference parser does not read seed " + s.getKey() + " as written");
            }
        }
        Corpus.check(RowBinaryFuzzTest.class, "transpositionMatchesTheReferenceParser", seeds);
    }
}
