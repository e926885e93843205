package dev.etl.avro.clickhouse;

import dev.etl.avro.binary.AvroCursor;
import dev.etl.clickhouse.ColumnType;
import dev.etl.sink.RowBuffer;
import java.math.BigDecimal;
import java.nio.ByteBuffer;
import org.apache.avro.LogicalTypes;
import org.apache.avro.Schema;

/**
 * The constant columns of a mapping ({@code 0}, {@code -1}, {@code 2.5}, {@code 'web'}) encoded once, at compile
 * time, into their column's RowBinary, as {@link ReaderDefaults#rowBinary} encodes a reader default: the literal as
 * an Avro value of the type that means it (an integer a {@code long}, so a Decimal takes it as the unscaled value; a
 * number with a fraction a {@code double}, a {@code float} for Float32, or the exact decimal at the column's scale;
 * a string a {@code string}, with {@code logicalType uuid} for a UUID column), converted like any value. A string
 * into Enum8/Enum16 is the symbol's value. And {@code now()}'s writer.
 */
final class Constants {
    private Constants() {}

    /** The RowBinary bytes of column {@code m}'s {@link ColumnSource.Number} or {@link ColumnSource.Text}. */
    static byte[] rowBinary(AvroRowMapping.Mapped m) {
        ColumnType type = m.type();
        boolean nullable = type.kind() == ColumnType.Kind.NULLABLE;
        ColumnType value = nullable ? type.inner() : type;
        ColumnSource source = m.source();
        Schema schema;
        Object datum;
        if (source instanceof ColumnSource.Text text) {
            if (value.kind() == ColumnType.Kind.ENUM8 || value.kind() == ColumnType.Kind.ENUM16) {
                Integer code = value.enumValues().get(text.value());
                if (code == null) {
                    throw error(m, "'" + text.value() + "' is not a value of the column's enum");
                }
                RowBuffer out = new RowBuffer(4);
                if (nullable) {
                    out.writeByte(0);
                }
                if (value.kind() == ColumnType.Kind.ENUM8) {
                    out.writeByte(code);
                } else {
                    out.writeShortLE(code);
                }
                return out.toByteArray();
            }
            schema = Schema.create(Schema.Type.STRING);
            if (value.kind() == ColumnType.Kind.UUID) {
                LogicalTypes.uuid().addToSchema(schema);
            }
            datum = text.value();
        } else {
            ColumnSource.Number number = (ColumnSource.Number) source;
            BigDecimal n = number.value();
            if (number.integral()) {
                schema = Schema.create(Schema.Type.LONG);
                try {
                    datum = n.longValueExact();
                } catch (ArithmeticException e) {
                    throw error(m, "the number " + number.text() + " does not fit a 64-bit integer");
                }
            } else if (value.kind() == ColumnType.Kind.DECIMAL) {
                schema = Schema.create(Schema.Type.BYTES);
                LogicalTypes.decimal(value.precision(), value.scale()).addToSchema(schema);
                try {
                    datum = ByteBuffer.wrap(
                            n.setScale(value.scale()).unscaledValue().toByteArray());
                } catch (ArithmeticException e) {
                    throw error(
                            m,
                            "the number " + number.text() + " has more digits after the point than the "
                                    + "column's scale " + value.scale());
                }
            } else if (value.kind() == ColumnType.Kind.FLOAT32) {
                schema = Schema.create(Schema.Type.FLOAT);
                datum = n.floatValue();
            } else {
                schema = Schema.create(Schema.Type.DOUBLE);
                datum = n.doubleValue();
            }
        }
        Conversion conversion = new ConversionCompiler(m.path(), m.column().name()).compile(schema, schema, type);
        try {
            return converted(conversion, schema, datum);
        } catch (ValueRejected e) {
            throw error(m, "the constant does not fit the column: " + e.getMessage());
        }
    }

    /**
     * {@code value} of Avro type {@code schema}, Avro-encoded and written by {@code conversion}: its RowBinary bytes.
     *
     * @throws ValueRejected when the value does not fit the conversion's column
     */
    static byte[] converted(Conversion conversion, Schema schema, Object value) {
        byte[] avro = ReaderDefaults.avroBytes(schema, value);
        AvroCursor in = new AvroCursor();
        in.wrap(avro, 0, avro.length);
        RowBuffer out = new RowBuffer(16);
        conversion.write(in, out);
        return out.toByteArray();
    }

    /** {@code now()} into a DateTime (seconds) or DateTime64(p), optionally Nullable. */
    static Computed now(AvroRowMapping.Mapped m) {
        ColumnType type = m.type();
        ColumnType value = type.kind() == ColumnType.Kind.NULLABLE ? type.inner() : type;
        if (value.kind() == ColumnType.Kind.DATE_TIME) {
            return Computed.now(1, 1000, NumberColumn.time(type, 4));
        }
        if (value.kind() == ColumnType.Kind.DATE_TIME64) {
            int p = value.precision();
            return p >= 3
                    ? Computed.now(Decimals.pow10(p - 3), 1, NumberColumn.time(type, 8))
                    : Computed.now(1, Decimals.pow10(3 - p), NumberColumn.time(type, 8));
        }
        throw error(m, "now() is written to DateTime or DateTime64(p) columns only");
    }

    private static AvroMappingException error(AvroRowMapping.Mapped m, String problem) {
        return new AvroMappingException(
                m.path(), m.column().name(), "-", m.column().type(), problem);
    }
}
