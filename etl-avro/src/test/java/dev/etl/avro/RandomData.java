package dev.etl.avro;

import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import org.apache.avro.Schema;
import org.apache.avro.generic.GenericData;
import org.apache.avro.generic.GenericRecord;
import org.apache.avro.util.Utf8;

/** Random generic values of any (non-recursive) schema, with edge values mixed in. */
final class RandomData {
    private final Random random;

    RandomData(long seed) {
        this.random = new Random(seed);
    }

    GenericRecord record(Schema schema) {
        return (GenericRecord) value(schema);
    }

    Object value(Schema schema) {
        switch (schema.getType()) {
            case NULL:
                return null;
            case BOOLEAN:
                return random.nextBoolean();
            case INT:
                return pick(new int[] {0, -1, 1, 63, -64, 64, Integer.MAX_VALUE, Integer.MIN_VALUE}, random.nextInt());
            case LONG:
                return pickLong(new long[] {0, -1, 1, Long.MAX_VALUE, Long.MIN_VALUE, 1L << 35}, random.nextLong());
            case FLOAT:
                return random.nextInt(8) == 0 ? Float.NaN : random.nextFloat() * 1e6f - 5e5f;
            case DOUBLE:
                return random.nextInt(8) == 0 ? Double.NEGATIVE_INFINITY : random.nextGaussian() * 1e9;
            case STRING:
                return new Utf8(string());
            case BYTES: {
                byte[] bytes = new byte[random.nextInt(20)];
                random.nextBytes(bytes);
                return ByteBuffer.wrap(bytes);
            }
            case FIXED: {
                byte[] bytes = new byte[schema.getFixedSize()];
                random.nextBytes(bytes);
                return new GenericData.Fixed(schema, bytes);
            }
            case ENUM:
                return new GenericData.EnumSymbol(
                        schema,
                        schema.getEnumSymbols()
                                .get(random.nextInt(schema.getEnumSymbols().size())));
            case UNION:
                return value(
                        schema.getTypes().get(random.nextInt(schema.getTypes().size())));
            case ARRAY: {
                int n = random.nextInt(6);
                List<Object> list = new GenericData.Array<>(n, schema);
                for (int i = 0; i < n; i++) {
                    list.add(value(schema.getElementType()));
                }
                return list;
            }
            case MAP: {
                int n = random.nextInt(5);
                Map<Utf8, Object> map = new HashMap<>();
                for (int i = 0; i < n; i++) {
                    map.put(new Utf8(string()), value(schema.getValueType()));
                }
                return map;
            }
            case RECORD: {
                GenericData.Record record = new GenericData.Record(schema);
                for (Schema.Field field : schema.getFields()) {
                    record.put(field.pos(), value(field.schema()));
                }
                return record;
            }
            default:
                throw new IllegalArgumentException(schema.toString());
        }
    }

    private String string() {
        int n = random.nextInt(12);
        StringBuilder sb = new StringBuilder();
        for (int i = 0; i < n; i++) {
            int kind = random.nextInt(10);
            sb.append(kind == 0 ? 'é' : kind == 1 ? '€' : (char) ('a' + random.nextInt(26)));
        }
        if (random.nextInt(10) == 0) {
            sb.appendCodePoint(0x1F600);
        }
        return sb.toString();
    }

    private int pick(int[] edges, int otherwise) {
        int r = random.nextInt(4);
        return r == 0 ? edges[random.nextInt(edges.length)] : r == 1 ? random.nextInt(200) - 100 : otherwise;
    }

    private long pickLong(long[] edges, long otherwise) {
        int r = random.nextInt(4);
        return r == 0 ? edges[random.nextInt(edges.length)] : r == 1 ? random.nextInt(200) - 100 : otherwise;
    }

    /** Random values in a fresh list (for tests that need several records). */
    List<GenericRecord> records(Schema schema, int n) {
        List<GenericRecord> out = new ArrayList<>(n);
        for (int i = 0; i < n; i++) {
            out.add(record(schema));
        }
        return out;
    }
}
