package dev.etl.fuzz;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.SplittableRandom;
import org.apache.avro.Schema;
import org.apache.avro.generic.GenericData;
import org.apache.avro.generic.GenericDatumWriter;
import org.apache.avro.generic.GenericRecord;
import org.apache.avro.io.BinaryEncoder;
import org.apache.avro.io.EncoderFactory;
import org.apache.avro.util.Utf8;

/**
 * Valid generic values of a schema for seed inputs, reproducible by seed, with edge values mixed in;
 * recursion stops after a few levels (a recursive union takes its first non-recursive branch).
 */
public final class RandomDatum {
    private final SplittableRandom random;
    private int depth;

    public RandomDatum(long seed) {
        this.random = new SplittableRandom(seed);
    }

    public GenericRecord record(Schema schema) {
        return (GenericRecord) value(schema);
    }

    /** The Avro binary body of {@code datum}. */
    public static byte[] encode(Schema schema, Object datum) {
        ByteArrayOutputStream bytes = new ByteArrayOutputStream();
        BinaryEncoder encoder = EncoderFactory.get().directBinaryEncoder(bytes, null);
        try {
            new GenericDatumWriter<Object>(schema).write(datum, encoder);
            encoder.flush();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        return bytes.toByteArray();
    }

    public Object value(Schema schema) {
        switch (schema.getType()) {
            case NULL:
                return null;
            case BOOLEAN:
                return random.nextBoolean();
            case INT: {
                int[] edges = {0, -1, 1, 63, -64, 64, Integer.MAX_VALUE, Integer.MIN_VALUE};
                return random.nextInt(3) == 0 ? edges[random.nextInt(edges.length)] : random.nextInt(-300, 300);
            }
            case LONG: {
                long[] edges = {0, -1, 1, Long.MAX_VALUE, Long.MIN_VALUE, 1L << 35};
                return random.nextInt(3) == 0 ? edges[random.nextInt(edges.length)] : random.nextLong();
            }
            case FLOAT:
                return random.nextInt(6) == 0 ? Float.NaN : (float) random.nextDouble(-1e6, 1e6);
            case DOUBLE:
                return random.nextInt(6) == 0 ? Double.NEGATIVE_INFINITY : random.nextDouble(-1e9, 1e9);
            case STRING:
                return new Utf8(text());
            case BYTES: {
                byte[] b = new byte[random.nextInt(12)];
                random.nextBytes(b);
                return ByteBuffer.wrap(b);
            }
            case FIXED: {
                byte[] b = new byte[schema.getFixedSize()];
                random.nextBytes(b);
                return new GenericData.Fixed(schema, b);
            }
            case ENUM: {
                List<String> symbols = schema.getEnumSymbols();
                return new GenericData.EnumSymbol(schema, symbols.get(random.nextInt(symbols.size())));
            }
            case UNION: {
                List<Schema> branches = schema.getTypes();
                Schema branch = branches.get(random.nextInt(branches.size()));
                if (depth > 3 && branch.getType() == Schema.Type.RECORD) {
                    branch = branches.get(0);
                }
                return value(branch);
            }
            case ARRAY: {
                int n = depth > 3 ? 0 : random.nextInt(5);
                List<Object> list = new GenericData.Array<>(n, schema);
                depth++;
                for (int i = 0; i < n; i++) {
                    list.add(value(schema.getElementType()));
                }
                depth--;
                return list;
            }
            case MAP: {
                int n = depth > 3 ? 0 : random.nextInt(4);
                Map<Utf8, Object> map = new LinkedHashMap<>();
                depth++;
                for (int i = 0; i < n; i++) {
                    map.put(new Utf8(text() + i), value(schema.getValueType()));
                }
                depth--;
                return map;
            }
            case RECORD: {
                GenericData.Record record = new GenericData.Record(schema);
                depth++;
                for (Schema.Field field : schema.getFields()) {
                    record.put(field.pos(), value(field.schema()));
                }
                depth--;
                return record;
            }
            default:
                throw new IllegalArgumentException(schema.toString());
        }
    }

    private String text() {
        String[] pieces = {"", "a", "zürich", "東京", "🎉", "x".repeat(70)};
        StringBuilder sb = new StringBuilder();
        for (int i = random.nextInt(3); i > 0; i--) {
            sb.append(pieces[random.nextInt(pieces.length)]);
        }
        return sb.toString();
    }

    /** {@code n} records' bodies. */
    public List<byte[]> bodies(Schema schema, int n) {
        List<byte[]> out = new ArrayList<>();
        for (int i = 0; i < n; i++) {
            out.add(encode(schema, record(schema)));
        }
        return out;
    }
}
