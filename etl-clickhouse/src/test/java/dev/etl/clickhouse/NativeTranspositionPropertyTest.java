package dev.etl.clickhouse;

import dev.etl.sink.RowBuffer;
import java.io.ByteArrayOutputStream;
import java.math.BigDecimal;
import java.math.BigInteger;
import java.nio.charset.StandardCharsets;
import java.time.LocalDate;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HexFormat;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.UUID;
import java.util.function.Function;
import org.junit.jupiter.api.Test;

/**
 * Seeded randomized check of the RowBinary → Native transposition against a reference model: random
 * schemas (scalars, Nullable, LowCardinality, Array, Map, Tuple, nested up to three levels), random
 * rows (defaults, NULLs, empty arrays and repeated LowCardinality values on purpose), encoded to
 * RowBinary by {@link RowBinaryEncoder} and transposed by one reused {@link NativeBlockEncoder} per
 * schema (several batches each); the model builds the expected block column by column straight from
 * the Java values, with none of the encoder's code. A failure prints its seed; replay with
 * {@code -Dnative.transpose.seed=<seed>}.
 */
class NativeTranspositionPropertyTest {
    private static final int SCHEMAS = 400;

    @Test
    void transposedBlocksMatchTheReferenceModel() {
        Long fixed = Long.getLong("native.transpose.seed");
        long base = fixed != null ? fixed : 0x5EED_0016_0003L;
        int schemas = fixed != null ? 1 : SCHEMAS;
        for (int i = 0; i < schemas; i++) {
            long seed = base + i;
            try {
                check(new Random(seed));
            } catch (AssertionError | RuntimeException e) {
                throw new AssertionError(
                        "seed " + seed + " (replay with -Dnative.transpose.seed=" + seed + "): " + e.getMessage(), e);
            }
        }
    }

    private static void check(Random random) {
        int columnCount = 1 + random.nextInt(6);
        List<Spec> specs = new ArrayList<>();
        RowBinaryEncoder.Builder<Object[]> builder = RowBinaryEncoder.builder();
        for (int c = 0; c < columnCount; c++) {
            Spec spec = randomSpec(random, 0);
            specs.add(spec);
            int index = c;
            builder.column("c" + c, spec.type(), row -> row[index]);
        }
        RowBinaryEncoder<Object[]> encoder = builder.build();
        NativeBlockEncoder nat = NativeBlockEncoder.of(encoder.columns());
        for (int batch = 0; batch < 3; batch++) {
            int rows = random.nextInt(10) == 0 ? 200 + random.nextInt(400) : random.nextInt(40);
            List<Object[]> values = new ArrayList<>();
            for (int r = 0; r < rows; r++) {
                Object[] row = new Object[columnCount];
                for (int c = 0; c < columnCount; c++) {
                    row[c] = specs.get(c).random(random);
                }
                values.add(row);
            }
            RowBuffer rb = new RowBuffer(256);
            for (Object[] row : values) {
                encoder.encode(row, rb);
            }
            int length = nat.encode(rb.array(), rb.length(), rows);
            byte[] actual = Arrays.copyOf(nat.block(), length);
            byte[] expected = reference(encoder.columns(), specs, values);
            if (!Arrays.equals(actual, expected)) {
                throw new AssertionError("columns " + encoder.columns() + ", " + rows + " rows, batch " + batch
                        + ":\n expected " + HexFormat.of().formatHex(expected) + "\n actual   "
                        + HexFormat.of().formatHex(actual));
            }
        }
    }

    // ---------------------------------------------------------------- the reference model

    private static byte[] reference(List<ClickHouseColumn> columns, List<Spec> specs, List<Object[]> rows) {
        Out out = new Out();
        out.varUInt(columns.size());
        out.varUInt(rows.size());
        for (int c = 0; c < columns.size(); c++) {
            out.string(columns.get(c).name());
            out.string(columns.get(c).type());
            if (!rows.isEmpty()) {
                List<Object> column = new ArrayList<>();
                for (Object[] row : rows) {
                    column.add(row[c]);
                }
                specs.get(c).prefix(out);
                specs.get(c).data(column, out);
            }
        }
        return out.toByteArray();
    }

    static final class Out extends ByteArrayOutputStream {
        void varUInt(long v) {
            while ((v & ~0x7FL) != 0) {
                write((int) ((v & 0x7F) | 0x80));
                v >>>= 7;
            }
            write((int) v);
        }

        void string(String s) {
            byte[] b = s.getBytes(StandardCharsets.UTF_8);
            varUInt(b.length);
            writeBytes(b);
        }

        void uint64(long v) {
            for (int i = 0; i < 8; i++) {
                write((int) (v >>> (8 * i)));
            }
        }

        void uintOfWidth(long v, int width) {
            for (int i = 0; i < width; i++) {
                write((int) (v >>> (8 * i)));
            }
        }
    }

    /** A type of the model: its ClickHouseType, a value generator and its Native bytes for a column of values. */
    interface Spec {
        ClickHouseType<Object> type();

        Object random(Random random);

        void prefix(Out out);

        void data(List<Object> values, Out out);
    }

    /** A scalar: its values' bytes are their RowBinary bytes; {@code width} -1 for String. */
    record Scalar(ClickHouseType<Object> type, int width, Function<Random, Object> generator) implements Spec {
        @Override
        public Object random(Random random) {
            return generator.apply(random);
        }

        byte[] bytes(Object value) {
            RowBuffer b = new RowBuffer(16);
            type.write(value, b);
            return b.toByteArray();
        }

        byte[] defaultBytes() {
            return new byte[width < 0 ? 1 : width];
        }

        @Override
        public void prefix(Out out) {}

        @Override
        public void data(List<Object> values, Out out) {
            for (Object v : values) {
                out.writeBytes(v == null ? defaultBytes() : bytes(v));
            }
        }
    }

    record NullableSpec(Scalar inner) implements Spec {
        @Override
        public ClickHouseType<Object> type() {
            return ClickHouseTypes.nullable(inner.type());
        }

        @Override
        public Object random(Random random) {
            return random.nextInt(3) == 0 ? null : inner.random(random);
        }

        @Override
        public void prefix(Out out) {}

        @Override
        public void data(List<Object> values, Out out) {
            for (Object v : values) {
                out.write(v == null ? 1 : 0);
            }
            inner.data(values, out); // a null becomes the default
        }
    }

    record LowCardinalitySpec(Scalar inner, boolean nullable, int pool) implements Spec {
        @Override
        public ClickHouseType<Object> type() {
            return ClickHouseTypes.lowCardinality(nullable ? ClickHouseTypes.nullable(inner.type()) : inner.type());
        }

        @Override
        public Object random(Random random) {
            if (nullable && random.nextInt(4) == 0) {
                return null;
            }
            // a bounded pool of values, so they repeat: seed a generator with the pool index
            return inner.random(new Random(random.nextInt(pool) * 7919L));
        }

        @Override
        public void prefix(Out out) {
            out.uint64(1);
        }

        @Override
        public void data(List<Object> values, Out out) {
            if (values.isEmpty()) {
                return;
            }
            byte[] def = inner.defaultBytes();
            List<byte[]> keys = new ArrayList<>();
            Map<String, Integer> index = new LinkedHashMap<>();
            if (nullable) {
                keys.add(def);
            }
            keys.add(def);
            index.put(HexFormat.of().formatHex(def), keys.size() - 1);
            int[] positions = new int[values.size()];
            for (int i = 0; i < values.size(); i++) {
                Object v = values.get(i);
                if (v == null) {
                    positions[i] = 0;
                    continue;
                }
                byte[] b = inner.bytes(v);
                Integer k = index.get(HexFormat.of().formatHex(b));
                if (k == null) {
                    keys.add(b);
                    k = keys.size() - 1;
                    index.put(HexFormat.of().formatHex(b), k);
                }
                positions[i] = k;
            }
            int width = keys.size() <= 255 ? 1 : keys.size() <= 65535 ? 2 : 4;
            out.uint64((width == 1 ? 0 : width == 2 ? 1 : 2) | (1L << 9) | (1L << 10));
            out.uint64(keys.size());
            for (byte[] k : keys) {
                out.writeBytes(k);
            }
            out.uint64(values.size());
            for (int p : positions) {
                out.uintOfWidth(p, width);
            }
        }
    }

    record ArraySpec(Spec element) implements Spec {
        @Override
        @SuppressWarnings({"unchecked", "rawtypes"})
        public ClickHouseType<Object> type() {
            return (ClickHouseType) ClickHouseTypes.array(element.type());
        }

        @Override
        public Object random(Random random) {
            int n = random.nextInt(4) == 0 ? 0 : random.nextInt(5);
            List<Object> list = new ArrayList<>();
            for (int i = 0; i < n; i++) {
                list.add(element.random(random));
            }
            return list;
        }

        @Override
        public void prefix(Out out) {
            element.prefix(out);
        }

        @Override
        public void data(List<Object> values, Out out) {
            List<Object> all = new ArrayList<>();
            long total = 0;
            for (Object v : values) {
                List<?> list = (List<?>) v;
                total += list.size();
                out.uint64(total);
                all.addAll(list);
            }
            element.data(all, out);
        }
    }

    record MapSpec(Scalar key, Spec value) implements Spec {
        @Override
        @SuppressWarnings({"unchecked", "rawtypes"})
        public ClickHouseType<Object> type() {
            return (ClickHouseType) ClickHouseTypes.map(key.type(), value.type());
        }

        @Override
        public Object random(Random random) {
            Map<Object, Object> map = new LinkedHashMap<>();
            int n = random.nextInt(4);
            for (int i = 0; i < n; i++) {
                map.put(key.random(random), value.random(random));
            }
            return map;
        }

        @Override
        public void prefix(Out out) {
            key.prefix(out);
            value.prefix(out);
        }

        @Override
        public void data(List<Object> values, Out out) {
            List<Object> keys = new ArrayList<>();
            List<Object> vals = new ArrayList<>();
            long total = 0;
            for (Object v : values) {
                Map<?, ?> map = (Map<?, ?>) v;
                total += map.size();
                out.uint64(total);
                keys.addAll(map.keySet());
                vals.addAll(map.values());
            }
            key.data(keys, out);
            value.data(vals, out);
        }
    }

    record TupleSpec(List<Spec> elements) implements Spec {
        @Override
        public ClickHouseType<Object> type() {
            ClickHouseTypes.TupleBuilder<Object> t = ClickHouseTypes.tuple();
            for (int i = 0; i < elements.size(); i++) {
                int index = i;
                t.element(elements.get(i).type(), v -> ((Object[]) v)[index]);
            }
            return t.build();
        }

        @Override
        public Object random(Random random) {
            Object[] v = new Object[elements.size()];
            for (int i = 0; i < v.length; i++) {
                v[i] = elements.get(i).random(random);
            }
            return v;
        }

        @Override
        public void prefix(Out out) {
            for (Spec e : elements) {
                e.prefix(out);
            }
        }

        @Override
        public void data(List<Object> values, Out out) {
            for (int i = 0; i < elements.size(); i++) {
                List<Object> column = new ArrayList<>();
                for (Object v : values) {
                    column.add(((Object[]) v)[i]);
                }
                elements.get(i).data(column, out);
            }
        }
    }

    // ---------------------------------------------------------------- generators

    @SuppressWarnings({"unchecked", "rawtypes"})
    private static Scalar scalar(ClickHouseType<?> type, int width, Function<Random, Object> generator) {
        return new Scalar((ClickHouseType) type, width, generator);
    }

    private static Scalar randomScalar(Random random) {
        return switch (random.nextInt(13)) {
            case 0 -> scalar(ClickHouseTypes.uint8(), 1, r -> r.nextInt(4) == 0 ? 0 : r.nextInt(256));
            case 1 -> scalar(ClickHouseTypes.int16(), 2, r -> r.nextInt(4) == 0 ? 0 : r.nextInt(65536) - 32768);
            case 2 -> scalar(ClickHouseTypes.uint32(), 4, r -> r.nextInt(4) == 0 ? 0L : r.nextLong() >>> 32);
            case 3 -> scalar(ClickHouseTypes.int64(), 8, r -> r.nextInt(4) == 0 ? 0L : r.nextLong());
            case 4 -> scalar(ClickHouseTypes.float64(), 8, r -> r.nextInt(4) == 0 ? 0.0 : r.nextGaussian() * 1e6);
            case 5 -> scalar(ClickHouseTypes.float32(), 4, r -> (float) r.nextGaussian());
            case 6, 7 -> scalar(ClickHouseTypes.string(), -1, NativeTranspositionPropertyTest::randomString);
            case 8 ->
                scalar(ClickHouseTypes.fixedString(4), 4, r -> {
                    byte[] b = new byte[r.nextInt(5)];
                    r.nextBytes(b);
                    return b;
                });
            case 9 ->
                scalar(
                        ClickHouseTypes.uuid(),
                        16,
                        r -> r.nextInt(4) == 0 ? new UUID(0, 0) : new UUID(r.nextLong(), r.nextLong()));
            case 10 ->
                scalar(ClickHouseTypes.decimal(18, 4), 8, r -> BigDecimal.valueOf(r.nextInt(2_000_000) - 1_000_000, 4));
            case 11 -> scalar(ClickHouseTypes.date(), 2, r -> LocalDate.ofEpochDay(r.nextInt(40_000)));
            default ->
                scalar(ClickHouseTypes.int128(), 16, r -> new BigInteger(120, r).subtract(BigInteger.TWO.pow(119)));
        };
    }

    private static String randomString(Random r) {
        if (r.nextInt(5) == 0) {
            return "";
        }
        int n = r.nextInt(12);
        StringBuilder sb = new StringBuilder();
        for (int i = 0; i < n; i++) {
            int k = r.nextInt(20);
            sb.append(k == 0 ? 'ß' : k == 1 ? '€' : (char) ('a' + r.nextInt(26)));
        }
        return sb.toString();
    }

    static Spec randomSpec(Random random, int depth) {
        int kind = depth >= 3 ? random.nextInt(3) : random.nextInt(7);
        return switch (kind) {
            case 0 -> randomScalar(random);
            case 1 -> new NullableSpec(randomScalar(random));
            case 2 ->
                new LowCardinalitySpec(
                        randomScalar(random),
                        random.nextBoolean(),
                        random.nextInt(4) == 0 ? 400 : 1 + random.nextInt(20));
            case 3, 4 -> new ArraySpec(randomSpec(random, depth + 1));
            case 5 -> new MapSpec(randomScalar(random), randomSpec(random, depth + 1));
            default -> {
                int n = 1 + random.nextInt(3);
                List<Spec> elements = new ArrayList<>();
                for (int i = 0; i < n; i++) {
                    elements.add(randomSpec(random, depth + 1));
                }
                yield new TupleSpec(elements);
            }
        };
    }
}
