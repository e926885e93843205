package dev.etl.clickhouse;

import java.util.Map;
import java.util.Objects;
import java.util.function.Function;
import java.util.function.Predicate;
import java.util.function.ToDoubleFunction;
import java.util.function.ToIntFunction;
import java.util.function.ToLongFunction;

/**
 * The column writers behind {@link RowBinaryEncoder.Builder}'s typed methods: one
 * {@link ColumnWriter} per ClickHouse type over a primitive accessor, so those columns neither box
 * nor allocate per row; range checks are {@link RowBinary}'s. Each factory checks its accessor
 * (a null is a {@link NullPointerException} naming it) when the column is declared.
 *
 * <p>Each factory has its own lambda, as each typed method of the builder had: a call site inside a
 * writer sees the accessors of one column type only, which keeps its type profile narrow.
 *
 * <p>Stateless; the writers are immutable and thread-safe if the accessors are.
 */
final class RowBinaryColumns {
    private RowBinaryColumns() {}

    static <T> ColumnWriter<T> uint8(ToIntFunction<? super T> accessor) {
        Objects.requireNonNull(accessor, "accessor");
        return (row, out) -> RowBinary.uint8(accessor.applyAsInt(row), out);
    }

    static <T> ColumnWriter<T> uint16(ToIntFunction<? super T> accessor) {
        Objects.requireNonNull(accessor, "accessor");
        return (row, out) -> RowBinary.uint16(accessor.applyAsInt(row), out);
    }

    static <T> ColumnWriter<T> uint32(ToLongFunction<? super T> accessor) {
        Objects.requireNonNull(accessor, "accessor");
        return (row, out) -> RowBinary.uint32(accessor.applyAsLong(row), out);
    }

    /** UInt64 from a non-negative long. */
    static <T> ColumnWriter<T> uint64(ToLongFunction<? super T> accessor) {
        Objects.requireNonNull(accessor, "accessor");
        return (row, out) -> RowBinary.uint64(accessor.applyAsLong(row), out);
    }

    /** UInt64 from the raw bits of a long ({@code -1L} is 2^64-1). */
    static <T> ColumnWriter<T> uint64Bits(ToLongFunction<? super T> accessor) {
        Objects.requireNonNull(accessor, "accessor");
        return (row, out) -> out.writeLongLE(accessor.applyAsLong(row));
    }

    static <T> ColumnWriter<T> int8(ToIntFunction<? super T> accessor) {
        Objects.requireNonNull(accessor, "accessor");
        return (row, out) -> RowBinary.int8(accessor.applyAsInt(row), out);
    }

    static <T> ColumnWriter<T> int16(ToIntFunction<? super T> accessor) {
        Objects.requireNonNull(accessor, "accessor");
        return (row, out) -> RowBinary.int16(accessor.applyAsInt(row), out);
    }

    static <T> ColumnWriter<T> int32(ToIntFunction<? super T> accessor) {
        Objects.requireNonNull(accessor, "accessor");
        return (row, out) -> out.writeIntLE(accessor.applyAsInt(row));
    }

    static <T> ColumnWriter<T> int64(ToLongFunction<? super T> accessor) {
        Objects.requireNonNull(accessor, "accessor");
        return (row, out) -> out.writeLongLE(accessor.applyAsLong(row));
    }

    /** Float32: the double narrowed to float. */
    static <T> ColumnWriter<T> float32(ToDoubleFunction<? super T> accessor) {
        Objects.requireNonNull(accessor, "accessor");
        return (row, out) -> out.writeFloatLE((float) accessor.applyAsDouble(row));
    }

    static <T> ColumnWriter<T> float64(ToDoubleFunction<? super T> accessor) {
        Objects.requireNonNull(accessor, "accessor");
        return (row, out) -> out.writeDoubleLE(accessor.applyAsDouble(row));
    }

    /** Bool: UInt8 0/1. */
    static <T> ColumnWriter<T> bool(Predicate<? super T> accessor) {
        Objects.requireNonNull(accessor, "accessor");
        return (row, out) -> out.writeByte(accessor.test(row) ? 1 : 0);
    }

    /** String from chars, UTF-8 encoded in place; null is an error. */
    static <T> ColumnWriter<T> string(Function<? super T, ? extends CharSequence> accessor) {
        Objects.requireNonNull(accessor, "accessor");
        return (row, out) -> out.writeString(RowBinary.nonNull(accessor.apply(row), "String"));
    }

    /** LowCardinality(String): on the RowBinary wire a plain String; null is an error. */
    static <T> ColumnWriter<T> lowCardinalityString(Function<? super T, ? extends CharSequence> accessor) {
        Objects.requireNonNull(accessor, "accessor");
        return (row, out) -> out.writeString(RowBinary.nonNull(accessor.apply(row), "String"));
    }

    /** String from raw bytes; null is an error. */
    static <T> ColumnWriter<T> stringBytes(Function<? super T, byte[]> accessor) {
        Objects.requireNonNull(accessor, "accessor");
        return (row, out) -> {
            byte[] b = RowBinary.nonNull(accessor.apply(row), "String");
            out.writeStringBytes(b, 0, b.length);
        };
    }

    /** Nullable(String): a null byte, then the string unless it is null. */
    static <T> ColumnWriter<T> nullableString(Function<? super T, ? extends CharSequence> accessor) {
        Objects.requireNonNull(accessor, "accessor");
        return (row, out) -> {
            CharSequence s = accessor.apply(row);
            if (s == null) {
                out.writeByte(1);
            } else {
                out.writeByte(0);
                out.writeString(s);
            }
        };
    }

    static <T> ColumnWriter<T> date(ToIntFunction<? super T> epochDay) {
        Objects.requireNonNull(epochDay, "epochDay");
        return (row, out) -> RowBinary.date(epochDay.applyAsInt(row), out);
    }

    static <T> ColumnWriter<T> date32(ToIntFunction<? super T> epochDay) {
        Objects.requireNonNull(epochDay, "epochDay");
        return (row, out) -> RowBinary.date32(epochDay.applyAsInt(row), out);
    }

    static <T> ColumnWriter<T> dateTime(ToLongFunction<? super T> epochSecond) {
        Objects.requireNonNull(epochSecond, "epochSecond");
        return (row, out) -> RowBinary.dateTime(epochSecond.applyAsLong(row), out);
    }

    /** DateTime64(p) from ticks of 10^-p seconds. */
    static <T> ColumnWriter<T> dateTime64(ToLongFunction<? super T> ticks) {
        Objects.requireNonNull(ticks, "ticks");
        return (row, out) -> out.writeLongLE(ticks.applyAsLong(row));
    }

    /**
     * Decimal(precision, scale) of {@code type} from the unscaled value as a long, {@code width}
     * bytes wide (4, 8, 16 or 32; past 8 bytes sign-extended). Widths 4 and 8 check the value
     * against the precision.
     */
    static <T> ColumnWriter<T> decimalLong(int precision, String type, ToLongFunction<? super T> unscaled, int width) {
        Objects.requireNonNull(unscaled, "unscaled");
        return (row, out) -> {
            long v = unscaled.applyAsLong(row);
            if (width == 4) {
                RowBinary.checkUnscaled(v, precision, type);
                out.writeIntLE((int) v);
            } else {
                if (width == 8) {
                    RowBinary.checkUnscaled(v, precision, type);
                }
                out.writeLongLE(v);
                long pad = v >> 63;
                for (int i = 8; i < width; i += 8) {
                    out.writeLongLE(pad);
                }
            }
        };
    }

    /** Enum8 of {@code type} from the numeric code, which must be one of {@code values}. */
    static <T> ColumnWriter<T> enum8(String type, Map<String, Integer> values, ToIntFunction<? super T> code) {
        Objects.requireNonNull(code, "code");
        boolean[] known = RowBinary.enumCodes(values, Byte.MIN_VALUE, Byte.MAX_VALUE);
        return (row, out) -> {
            int v = code.applyAsInt(row);
            RowBinary.checkEnumCode(known, Byte.MIN_VALUE, v, type);
            out.writeByte(v);
        };
    }

    /** Enum16 of {@code type} from the numeric code, which must be one of {@code values}. */
    static <T> ColumnWriter<T> enum16(String type, Map<String, Integer> values, ToIntFunction<? super T> code) {
        Objects.requireNonNull(code, "code");
        boolean[] known = RowBinary.enumCodes(values, Short.MIN_VALUE, Short.MAX_VALUE);
        return (row, out) -> {
            int v = code.applyAsInt(row);
            RowBinary.checkEnumCode(known, Short.MIN_VALUE, v, type);
            out.writeShortLE(v);
        };
    }

    /** IPv4 from the address as an int in numeric order. */
    static <T> ColumnWriter<T> ipv4(ToIntFunction<? super T> address) {
        Objects.requireNonNull(address, "address");
        return (row, out) -> out.writeIntLE(address.applyAsInt(row));
    }

    /** A column of any {@link ClickHouseType}, over a boxed value. */
    static <T, V> ColumnWriter<T> of(ClickHouseType<V> type, Function<? super T, ? extends V> accessor) {
        Objects.requireNonNull(type, "type");
        Objects.requireNonNull(accessor, "accessor");
        return (row, out) -> type.write(accessor.apply(row), out);
    }
}
