package dev.etl.s3.parquet;

import static org.assertj.core.api.Assertions.assertThat;

import dev.etl.avro.WriterSchemas;
import dev.etl.s3.AvroRows;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.math.BigInteger;
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
import org.apache.avro.generic.GenericData;
import org.apache.avro.generic.GenericDatumReader;
import org.apache.avro.generic.GenericFixed;
import org.apache.avro.generic.GenericRecord;
import org.apache.avro.io.DecoderFactory;
import org.apache.parquet.avro.AvroParquetWriter;
import org.apache.parquet.avro.AvroWriteSupport;
import org.apache.parquet.column.ParquetProperties.WriterVersion;
import org.apache.parquet.conf.PlainParquetConfiguration;
import org.apache.parquet.hadoop.ParquetWriter;
import org.apache.parquet.hadoop.metadata.CompressionCodecName;
import org.apache.parquet.io.OutputFile;
import org.apache.parquet.io.PositionOutputStream;

/** Parquet files written in memory with parquet-avro, random records, and how rows are compared. */
final class ParquetFiles {
    static final Schema EVENT = new Schema.Parser().parse("""
            {"type": "record", "name": "Event", "namespace": "dev.etl.s3.parquet.test", "fields": [
              {"name": "id", "type": "long"},
              {"name": "name", "type": "string"},
              {"name": "score", "type": ["null", "int"], "default": null},
              {"name": "ratio", "type": "double"},
              {"name": "flag", "type": "boolean"},
              {"name": "address", "type": {"type": "record", "name": "Address", "fields": [
                {"name": "city", "type": "string"},
                {"name": "zip", "type": "int"}]}},
              {"name": "previous", "type": ["null", "Address"], "default": null},
              {"name": "tags", "type": {"type": "array", "items": "string"}},
              {"name": "counts", "type": {"type": "map", "values": "long"}},
              {"name": "items", "type": {"type": "array", "items": {"type": "record", "name": "Item", "fields": [
                {"name": "sku", "type": "string"},
                {"name": "price", "type": ["null", "double"], "default": null}]}}},
              {"name": "amount", "type": {"type": "bytes", "logicalType": "decimal", "precision": 20, "scale": 2}},
              {"name": "at", "type": {"type": "long", "logicalType": "timestamp-millis"}},
              {"name": "day", "type": {"type": "int", "logicalType": "date"}},
              {"name": "color", "type": {"type": "enum", "name": "Color", "symbols": ["RED", "GREEN", "BLUE"]}},
              {"name": "code", "type": {"type": "fixed", "name": "Code", "size": 4}},
              {"name": "payload", "type": ["null", "bytes"], "default": null}
            ]}
            """);

    static final CompressionCodecName[] CODECS = {
        CompressionCodecName.UNCOMPRESSED,
        CompressionCodecName.SNAPPY,
        CompressionCodecName.GZIP,
        CompressionCodecName.ZSTD,
        CompressionCodecName.LZ4_RAW,
        CompressionCodecName.LZ4
    };

    private ParquetFiles() {}

    /** How a file is written. */
    record Settings(
            CompressionCodecName codec,
            boolean dictionary,
            int rowGroupRows,
            int pageRows,
            WriterVersion version,
            boolean oldListStructure) {

        static Settings random(Random random) {
            return new Settings(
                    CODECS[random.nextInt(CODECS.length)],
                    random.nextBoolean(),
                    1 + random.nextInt(60),
                    1 + random.nextInt(40),
                    random.nextBoolean() ? WriterVersion.PARQUET_1_0 : WriterVersion.PARQUET_2_0,
                    random.nextBoolean());
        }

        static Settings plain(CompressionCodecName codec, int rowGroupRows) {
            return new Settings(codec, true, rowGroupRows, 20_000, WriterVersion.PARQUET_1_0, false);
        }
    }

    static List<GenericRecord> events(Random random, int count) {
        List<GenericRecord> out = new ArrayList<>(count);
        for (int i = 0; i < count; i++) {
            out.add(event(random, i));
        }
        return out;
    }

    static GenericRecord event(Random random, long id) {
        Schema address = EVENT.getField("address").schema();
        Schema item = EVENT.getField("items").schema().getElementType();
        GenericRecord r = new GenericData.Record(EVENT);
        r.put("id", id);
        r.put("name", "name-" + Long.toString(random.nextLong(), 36) + (random.nextInt(10) == 0 ? "é✓" : ""));
        r.put("score", random.nextBoolean() ? null : random.nextInt());
        r.put("ratio", random.nextDouble());
        r.put("flag", random.nextBoolean());
        r.put("address", address(address, random));
        r.put("previous", random.nextBoolean() ? null : address(address, random));
        List<String> tags = new ArrayList<>();
        for (int i = random.nextInt(4); i > 0; i--) {
            tags.add("t" + random.nextInt(20));
        }
        r.put("tags", tags);
        Map<String, Long> counts = new HashMap<>();
        for (int i = random.nextInt(4); i > 0; i--) {
            counts.put("k" + random.nextInt(50), random.nextLong());
        }
        r.put("counts", counts);
        List<GenericRecord> items = new ArrayList<>();
        for (int i = random.nextInt(3); i > 0; i--) {
            GenericRecord it = new GenericData.Record(item);
            it.put("sku", "sku-" + random.nextInt(1000));
            it.put("price", random.nextBoolean() ? null : random.nextDouble() * 100);
            items.add(it);
        }
        r.put("items", items);
        r.put("amount", ByteBuffer.wrap(BigInteger.valueOf(random.nextLong()).toByteArray()));
        r.put("at", random.nextLong() >>> 20);
        r.put("day", random.nextInt(40_000));
        Schema color = EVENT.getField("color").schema();
        r.put("color", new GenericData.EnumSymbol(color, color.getEnumSymbols().get(random.nextInt(3))));
        byte[] code = new byte[4];
        random.nextBytes(code);
        r.put("code", new GenericData.Fixed(EVENT.getField("code").schema(), code));
        if (random.nextInt(3) == 0) {
            byte[] payload = new byte[random.nextInt(64)];
            random.nextBytes(payload);
            r.put("payload", ByteBuffer.wrap(payload));
        }
        return r;
    }

    private static GenericRecord address(Schema schema, Random random) {
        GenericRecord a = new GenericData.Record(schema);
        a.put("city", "city-" + random.nextInt(100));
        a.put("zip", random.nextInt(100_000));
        return a;
    }

    static byte[] write(Schema schema, List<GenericRecord> records, Settings s) {
        MemoryOutputFile file = new MemoryOutputFile();
        PlainParquetConfiguration conf = new PlainParquetConfiguration();
        conf.setBoolean(AvroWriteSupport.WRITE_OLD_LIST_STRUCTURE, s.oldListStructure());
        try (ParquetWriter<GenericRecord> writer = AvroParquetWriter.<GenericRecord>builder(file)
                .withSchema(schema)
                .withDataModel(GenericData.get())
                .withConf(conf)
                .withCompressionCodec(s.codec())
                .withDictionaryEncoding(s.dictionary())
                .withRowGroupRowCountLimit(s.rowGroupRows())
                .withPageRowCountLimit(s.pageRows())
                .withWriterVersion(s.version())
                .withPageWriteChecksumEnabled(true)
                .build()) {
            for (GenericRecord r : records) {
                writer.write(r);
            }
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        return file.bytes();
    }

    /** Decodes single-object rows with the writer schema registered under their fingerprint. */
    static List<GenericRecord> decode(List<byte[]> rows) {
        List<GenericRecord> out = new ArrayList<>(rows.size());
        for (byte[] row : rows) {
            assertThat(row.length).isGreaterThanOrEqualTo(AvroRows.HEADER_LENGTH);
            assertThat(row[0]).isEqualTo((byte) 0xC3);
            assertThat(row[1]).isEqualTo((byte) 0x01);
            long fingerprint = 0;
            for (int i = 0; i < 8; i++) {
                fingerprint |= (row[2 + i] & 0xFFL) << (8 * i);
            }
            Schema writer = WriterSchemas.shared().byFingerprint(fingerprint);
            assertThat(writer)
                    .as("writer schema of fingerprint %x", fingerprint)
                    .isNotNull();
            try {
                GenericDatumReader<GenericRecord> reader = new GenericDatumReader<>(writer);
                var decoder = DecoderFactory.get()
                        .binaryDecoder(row, AvroRows.HEADER_LENGTH, row.length - AvroRows.HEADER_LENGTH, null);
                out.add(reader.read(null, decoder));
                assertThat(decoder.isEnd())
                        .as("the row's body is exactly one record")
                        .isTrue();
            } catch (IOException e) {
                throw new UncheckedIOException(e);
            }
        }
        return out;
    }

    /** Records as plain Java values (strings as String, maps sorted, bytes as hex) for comparison. */
    static List<Object> canonical(List<GenericRecord> records) {
        List<Object> out = new ArrayList<>(records.size());
        for (GenericRecord r : records) {
            out.add(canonical(r, r.getSchema()));
        }
        return out;
    }

    static Object canonical(Object value, Schema schema) {
        switch (schema.getType()) {
            case RECORD -> {
                GenericRecord record = (GenericRecord) value;
                Map<String, Object> out = new LinkedHashMap<>();
                for (Schema.Field f : schema.getFields()) {
                    out.put(f.name(), canonical(record.get(f.name()), f.schema()));
                }
                return out;
            }
            case UNION -> {
                int branch = GenericData.get().resolveUnion(schema, value);
                return value == null ? null : canonical(value, schema.getTypes().get(branch));
            }
            case ARRAY -> {
                List<Object> out = new ArrayList<>();
                for (Object element : (List<?>) value) {
                    out.add(canonical(element, schema.getElementType()));
                }
                return out;
            }
            case MAP -> {
                Map<String, Object> out = new TreeMap<>();
                for (Map.Entry<?, ?> e : ((Map<?, ?>) value).entrySet()) {
                    out.put(e.getKey().toString(), canonical(e.getValue(), schema.getValueType()));
                }
                return out;
            }
            case STRING, ENUM -> {
                return value.toString();
            }
            case BYTES -> {
                ByteBuffer b = ((ByteBuffer) value).duplicate();
                byte[] bytes = new byte[b.remaining()];
                b.get(bytes);
                return "bytes:" + HexFormat.of().formatHex(bytes);
            }
            case FIXED -> {
                return "fixed:" + HexFormat.of().formatHex(((GenericFixed) value).bytes());
            }
            default -> {
                return value;
            }
        }
    }

    /** An {@link OutputFile} into a byte array. */
    static final class MemoryOutputFile implements OutputFile {
        private final ByteArrayOutputStream bytes = new ByteArrayOutputStream();

        byte[] bytes() {
            return bytes.toByteArray();
        }

        @Override
        public PositionOutputStream create(long blockSizeHint) {
            return new PositionOutputStream() {
                @Override
                public long getPos() {
                    return bytes.size();
                }

                @Override
                public void write(int b) {
                    bytes.write(b);
                }

                @Override
                public void write(byte[] b, int off, int len) {
                    bytes.write(b, off, len);
                }
            };
        }

        @Override
        public PositionOutputStream createOrOverwrite(long blockSizeHint) {
            bytes.reset();
            return create(blockSizeHint);
        }

        @Override
        public boolean supportsBlockSize() {
            return false;
        }

        @Override
        public long defaultBlockSize() {
            return 0;
        }
    }
}
