package dev.etl.avro.clickhouse;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.Set;
import org.apache.avro.Schema;
import org.apache.avro.generic.GenericData;
import org.apache.avro.generic.GenericDatumWriter;
import org.apache.avro.generic.GenericRecord;
import org.apache.avro.io.BinaryEncoder;
import org.apache.avro.io.EncoderFactory;

/**
 * Reader defaults of fields a writer schema lacks, resolved at compile time: the outermost reader
 * field on a path that the writer lacks must have a default; the value at the rest of the path inside
 * it is that default's.
 */
final class ReaderDefaults {
    private ReaderDefaults() {}

    /** A default value and the reader schema it is of. */
    record Default(Schema schema, Object value) {}

    /**
     * The default at {@code path} (dot-separated, relative to {@code root}) for mapping entry
     * {@code m} (named in errors), given the paths the writer has ({@code present}, relative too).
     */
    static Default of(Schema root, String path, Set<String> present, String writerName, AvroRowMapping.Mapped m) {
        return of(
                root,
                path,
                present,
                writerName,
                m.path(),
                m.column().name(),
                m.column().type());
    }

    /** Same as {@link #of(Schema, String, Set, String, AvroRowMapping.Mapped)}, naming {@code field} and {@code column} in errors. */
    static Default of(
            Schema root,
            String path,
            Set<String> present,
            String writerName,
            String field,
            String column,
            String columnType) {
        String[] segments = path.split("\\.", -1);
        Schema record = root;
        Object value = null;
        boolean defaulted = false;
        Schema leaf = null;
        String prefix = "";
        for (int i = 0; i < segments.length; i++) {
            String at = prefix + segments[i];
            Schema.Field f = record == null ? null : record.getField(segments[i]);
            if (f == null) {
                throw new AvroMappingException(
                        field,
                        column,
                        "missing",
                        columnType,
                        "the reader schema " + root.getFullName() + " has no field '" + at + "'"
                                + (record == null
                                        ? " ('" + prefix.substring(0, prefix.length() - 1) + "' is not a record)"
                                        : ""));
            }
            if (defaulted) {
                value = value instanceof GenericRecord r ? r.get(f.name()) : null;
            } else if (!present.contains(at)) {
                if (!f.hasDefaultValue()) {
                    throw new AvroMappingException(
                            field,
                            column,
                            AvroTypeNames.describe(f.schema()),
                            columnType,
                            "the writer schema " + writerName + " has no field '" + at
                                    + "' and the reader field has no default");
                }
                value = GenericData.get().getDefaultValue(f);
                defaulted = true;
            }
            leaf = f.schema();
            boolean last = i == segments.length - 1;
            if (!last && leaf.getType() != Schema.Type.RECORD) {
                if (leaf.getType() == Schema.Type.UNION) {
                    throw new AvroMappingException(
                            field,
                            column,
                            AvroTypeNames.describe(leaf),
                            columnType,
                            "the path goes through '" + at + "', a union: not transcoded");
                }
                record = null;
            } else {
                record = leaf;
            }
            prefix = at + ".";
        }
        return new Default(leaf, value);
    }

    /** The default as column {@code m}'s RowBinary bytes: Avro-encoded with its schema, converted like any value. */
    static byte[] rowBinary(Default d, AvroRowMapping.Mapped m) {
        Conversion conversion =
                new ConversionCompiler(m.path(), m.column().name()).compile(d.schema(), d.schema(), m.type());
        try {
            return Constants.converted(conversion, d.schema(), d.value());
        } catch (ValueRejected e) {
            throw new AvroMappingException(
                    m.path(),
                    m.column().name(),
                    AvroTypeNames.describe(d.schema()),
                    m.column().type(),
                    "the reader default does not fit the column: " + e.getMessage());
        }
    }

    /** The default's Avro binary encoding. */
    static byte[] avroBytes(Schema schema, Object value) {
        ByteArrayOutputStream bytes = new ByteArrayOutputStream();
        BinaryEncoder encoder = EncoderFactory.get().directBinaryEncoder(bytes, null);
        try {
            new GenericDatumWriter<Object>(schema).write(value, encoder);
            encoder.flush();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        return bytes.toByteArray();
    }
}
