package dev.etl.s3;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HexFormat;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.TreeMap;
import org.apache.avro.Schema;
import org.apache.avro.SchemaBuilder;
import org.apache.avro.generic.GenericData;
import org.apache.avro.generic.GenericDatumWriter;
import org.apache.avro.generic.GenericFixed;
import org.apache.avro.generic.GenericRecord;
import org.apache.avro.io.BinaryEncoder;
import org.apache.avro.io.EncoderFactory;

/** Random Avro schemas (nested records, arrays, maps, unions, enums, fixed, recursion) and values for tests. */
final class RandomAvro {
    private final Random random;
    private int names;

    RandomAvro(Random random) {
        this.random = random;
    }

    /** A few hand-written schemas with the tricky cases, then random ones. */
    Schema schema() {
        switch (random.nextInt(8)) {
            case 0:
                return linkedList();
            case 1:
                return SchemaBuilder.record("Empty" + names++).fields().endRecord();
            case 2:
                return Schema.create(Schema.Type.STRING); // a top-level non-record schema is allowed
            case 3:
                return SchemaBuilder.record("Nulls" + names++)
                        .fields()
                        .name("a")
                        .type()
                        .nullType()
                        .noDefault()
                        .endRecord();
            default:
                return record(0);
        }
    }

    private Schema linkedList() {
        return new Schema.Parser()
                .parse("{\"type\":\"record\",\"name\":\"Node" + names++ + "\",\"fields\":["
                        + "{\"name\":\"value\",\"type\":\"long\"},"
                        + "{\"name\":\"tags\",\"type\":{\"type\":\"map\",\"values\":\"string\"}},"
                        + "{\"name\":\"next\",\"type\":[\"null\",\"Node" + (names - 1) + "\"]}]}");
    }

    private Schema record(int depth) {
        int fields = random.nextInt(depth == 0 ? 8 : 4) + (depth == 0 ? 1 : 0);
        SchemaBuilder.FieldAssembler<Schema> f =
                SchemaBuilder.record("R" + names++).namespace("test.n" + depth).fields();
        for (int i = 0; i < fields; i++) {
            f = f.name("f" + i).type(type(depth + 1)).noDefault();
        }
        return f.endRecord();
    }

    private Schema type(int depth) {
        int pick = random.nextInt(depth > 3 ? 9 : 14);
        switch (pick) {
            case 0:
                return Schema.create(Schema.Type.NULL);
            case 1:
                return Schema.create(Schema.Type.BOOLEAN);
            case 2:
                return Schema.create(Schema.Type.INT);
            case 3:
                return Schema.create(Schema.Type.LONG);
            case 4:
                return Schema.create(Schema.Type.FLOAT);
            case 5:
                return Schema.create(Schema.Type.DOUBLE);
            case 6:
                return Schema.create(Schema.Type.STRING);
            case 7:
                return Schema.create(Schema.Type.BYTES);
            case 8:
                return random.nextBoolean()
                        ? Schema.createEnum("E" + names++, null, "test", List.of("A", "B", "C"))
                        : Schema.createFixed("X" + names++, null, "test", random.nextInt(5));
            case 9:
                return Schema.createArray(type(depth + 1));
            case 10:
                return Schema.createMap(type(depth + 1));
            case 11:
                return record(depth);
            default: {
                List<Schema> branches = new ArrayList<>();
                branches.add(Schema.create(Schema.Type.NULL));
                branches.add(random.nextBoolean() ? Schema.create(Schema.Type.STRING) : record(depth));
                if (random.nextBoolean()) {
                    branches.add(Schema.createArray(Schema.create(Schema.Type.INT)));
                }
                return Schema.createUnion(branches);
            }
        }
    }

    /** A random value of {@code schema}. */
    Object value(Schema schema) {
        return value(schema, 0);
    }

    private Object value(Schema s, int depth) {
        switch (s.getType()) {
            case NULL:
                return null;
            case BOOLEAN:
                return random.nextBoolean();
            case INT:
                return random.nextInt(4) == 0 ? random.nextInt() : random.nextInt(200) - 100;
            case LONG:
                return random.nextInt(4) == 0 ? random.nextLong() : (long) random.nextInt(1000);
            case FLOAT:
                return random.nextFloat();
            case DOUBLE:
                return random.nextDouble();
            case STRING:
                return string(random.nextInt(4) == 0 ? 300 : 12);
            case BYTES: {
                byte[] b = new byte[random.nextInt(20)];
                random.nextBytes(b);
                return ByteBuffer.wrap(b);
            }
            case ENUM:
                return new GenericData.EnumSymbol(s, s.getEnumSymbols().get(random.nextInt(3)));
            case FIXED: {
                byte[] b = new byte[s.getFixedSize()];
                random.nextBytes(b);
                return new GenericData.Fixed(s, b);
            }
            case ARRAY: {
                int n = depth > 4 ? 0 : random.nextInt(4);
                List<Object> list = new ArrayList<>();
                for (int i = 0; i < n; i++) {
                    list.add(value(s.getElementType(), depth + 1));
                }
                return list;
            }
            case MAP: {
                int n = depth > 4 ? 0 : random.nextInt(3);
                Map<String, Object> map = new HashMap<>();
                for (int i = 0; i < n; i++) {
                    map.put("k" + i, value(s.getValueType(), depth + 1));
                }
                return map;
            }
            case UNION: {
                List<Schema> branches = s.getTypes();
                // Deep down, prefer the null branch: recursive schemas end.
                Schema branch = depth > 4 && branches.get(0).getType() == Schema.Type.NULL
                        ? branches.get(0)
                        : branches.get(random.nextInt(branches.size()));
                return value(branch, depth + 1);
            }
            case RECORD: {
                GenericData.Record r = new GenericData.Record(s);
                for (Schema.Field f : s.getFields()) {
                    r.put(f.pos(), value(f.schema(), depth + 1));
                }
                return r;
            }
            default:
                throw new IllegalArgumentException(s.toString());
        }
    }

    private String string(int max) {
        int n = random.nextInt(max + 1);
        StringBuilder sb = new StringBuilder(n);
        for (int i = 0; i < n; i++) {
            sb.append(
                    random.nextInt(10) == 0
                            ? (char) ('\u00e0' + random.nextInt(20))
                            : (char) ('a' + random.nextInt(26)));
        }
        return sb.toString();
    }

    /**
     * The value in plain Java terms, for comparing what Avro's reader gives (Utf8 strings, its own map
     * and array types) with what was written: strings, sorted maps, lists, records as field maps, bytes
     * and fixed as hex.
     */
    static Object normalize(Object value) {
        if (value instanceof CharSequence || value instanceof GenericData.EnumSymbol) {
            return value.toString();
        }
        if (value instanceof ByteBuffer) {
            ByteBuffer b = ((ByteBuffer) value).duplicate();
            byte[] bytes = new byte[b.remaining()];
            b.get(bytes);
            return HexFormat.of().formatHex(bytes);
        }
        if (value instanceof GenericFixed) {
            return "fixed:" + HexFormat.of().formatHex(((GenericFixed) value).bytes());
        }
        if (value instanceof Map) {
            Map<String, Object> sorted = new TreeMap<>();
            ((Map<?, ?>) value).forEach((k, v) -> sorted.put(k.toString(), normalize(v)));
            return sorted;
        }
        if (value instanceof List) {
            List<Object> list = new ArrayList<>();
            for (Object item : (List<?>) value) {
                list.add(normalize(item));
            }
            return list;
        }
        if (value instanceof GenericRecord) {
            GenericRecord r = (GenericRecord) value;
            Map<String, Object> fields = new LinkedHashMap<>();
            fields.put("@schema", r.getSchema().getFullName());
            for (Schema.Field f : r.getSchema().getFields()) {
                fields.put(f.name(), normalize(r.get(f.pos())));
            }
            return fields;
        }
        return value;
    }

    /** The value's binary body, as Avro's writer encodes it. */
    static byte[] body(Schema schema, Object value) {
        try {
            ByteArrayOutputStream out = new ByteArrayOutputStream();
            BinaryEncoder encoder = EncoderFactory.get().directBinaryEncoder(out, null);
            new GenericDatumWriter<Object>(schema).write(value, encoder);
            encoder.flush();
            return out.toByteArray();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }
}
