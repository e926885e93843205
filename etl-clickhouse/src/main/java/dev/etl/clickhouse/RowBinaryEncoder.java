package dev.etl.clickhouse;

import dev.etl.record.RecordMeta;
import dev.etl.sink.RowBuffer;
import dev.etl.sink.RowEncoder;
import java.math.BigDecimal;
import java.math.BigInteger;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.UUID;
import java.util.function.Function;
import java.util.function.Predicate;
import java.util.function.ToDoubleFunction;
import java.util.function.ToIntFunction;
import java.util.function.ToLongFunction;
import org.jspecify.annotations.Nullable;

/**
 * A {@link RowEncoder} built declaratively: one accessor per column, in the table's column order
 * (the order is the RowBinary wire contract; {@code ClickHouseSchemaValidator} checks it against
 * {@code system.columns} at startup).
 *
 * <pre>{@code
 * RowBinaryEncoder<Order> orders = RowBinaryEncoder.<Order>builder()
 *         .uint64("id", Order::id)
 *         .string("customer", Order::customer)
 *         .decimal64("amount", 2, Order::amountCents)
 *         .dateTime64("ts", 3, Order::tsMillis)
 *         .nullableString("coupon", Order::coupon)
 *         .array("tags", ClickHouseTypes.string(), Order::tags)
 *         .build();
 * }</pre>
 *
 * <p>Allocation: the primitive methods ({@code uint*}, {@code int8..int64}, {@code float*},
 * {@code bool}, {@code date*}, {@code dateTime*}, {@code decimal32/64}, {@code enum*}, {@code ipv4})
 * take primitive accessors and never box; strings are encoded to UTF-8 in place; so those columns
 * allocate nothing per row. {@code int128/256}, {@code uint128/256}, {@link Builder#decimal} (BigInteger
 * and BigDecimal arithmetic) and nested types over boxed values may allocate.
 *
 * <p>Errors: a value out of its column's range (e.g. 300 for UInt8, a negative long for UInt64,
 * 11 bytes for FixedString(10), a null for a non-Nullable column) throws
 * {@link ColumnEncodeException} naming the column; the bytes already written for the row are left
 * for the caller to cut back ({@link RowBuffer#truncate}), as the sink stage does.
 *
 * <p>Immutable and thread-safe if the accessors are.
 *
 * @param <T> the value type
 */
public final class RowBinaryEncoder<T> implements RowEncoder<T> {
    private final ClickHouseColumn[] columns;
    private final ColumnWriter<? super T>[] writers;
    private final List<ClickHouseColumn> columnList;

    private RowBinaryEncoder(ClickHouseColumn[] columns, ColumnWriter<? super T>[] writers) {
        this.columns = columns;
        this.writers = writers;
        this.columnList = List.of(columns);
    }

    public static <T> Builder<T> builder() {
        return new Builder<>();
    }

    /** The columns in wire order, with their ClickHouse type strings. */
    public List<ClickHouseColumn> columns() {
        return columnList;
    }

    @Override
    public void encode(T value, RecordMeta meta, RowBuffer out) {
        encode(value, out);
    }

    /** Appends one row for {@code value}. */
    public void encode(T value, RowBuffer out) {
        ColumnWriter<? super T>[] w = writers;
        int i = 0;
        try {
            for (; i < w.length; i++) {
                w[i].write(value, out);
            }
        } catch (ColumnEncodeException e) {
            throw e;
        } catch (RuntimeException e) {
            // cold path: the message is built only when a value is rejected
            throw new ColumnEncodeException(columns[i], e.getMessage() == null ? e.toString() : e.getMessage(), e);
        }
    }

    @Override
    public String toString() {
        return "RowBinaryEncoder" + columnList;
    }

    /** Declares columns in wire order. Not thread-safe; {@link #build()} copies. */
    public static final class Builder<T> {
        private final List<ClickHouseColumn> columns = new ArrayList<>();
        private final List<ColumnWriter<? super T>> writers = new ArrayList<>();
        private final Set<String> names = new HashSet<>();

        private Builder() {}

        private Builder<T> add(String name, String type, ColumnWriter<? super T> writer) {
            Objects.requireNonNull(name, "name");
            if (!names.add(name)) {
                throw new IllegalArgumentException("column '" + name + "' declared twice");
            }
            columns.add(new ClickHouseColumn(name, type));
            writers.add(writer);
            return this;
        }

        public Builder<T> uint8(String name, ToIntFunction<? super T> accessor) {
            return add(name, "UInt8", RowBinaryColumns.uint8(accessor));
        }

        public Builder<T> uint16(String name, ToIntFunction<? super T> accessor) {
            return add(name, "UInt16", RowBinaryColumns.uint16(accessor));
        }

        public Builder<T> uint32(String name, ToLongFunction<? super T> accessor) {
            return add(name, "UInt32", RowBinaryColumns.uint32(accessor));
        }

        /** UInt64 from a long that must be non-negative (negative values are an error). */
        public Builder<T> uint64(String name, ToLongFunction<? super T> accessor) {
            return add(name, "UInt64", RowBinaryColumns.uint64(accessor));
        }

        /** UInt64 from the raw bits of a long ({@code -1L} is 2^64-1), for ids beyond 2^63. */
        public Builder<T> uint64Bits(String name, ToLongFunction<? super T> accessor) {
            return add(name, "UInt64", RowBinaryColumns.uint64Bits(accessor));
        }

        /** UInt128 from a BigInteger (allocates). */
        public Builder<T> uint128(String name, Function<? super T, BigInteger> accessor) {
            return column(name, ClickHouseTypes.uint128(), accessor);
        }

        /** UInt256 from a BigInteger (allocates). */
        public Builder<T> uint256(String name, Function<? super T, BigInteger> accessor) {
            return column(name, ClickHouseTypes.uint256(), accessor);
        }

        public Builder<T> int8(String name, ToIntFunction<? super T> accessor) {
            return add(name, "Int8", RowBinaryColumns.int8(accessor));
        }

        public Builder<T> int16(String name, ToIntFunction<? super T> accessor) {
            return add(name, "Int16", RowBinaryColumns.int16(accessor));
        }

        public Builder<T> int32(String name, ToIntFunction<? super T> accessor) {
            return add(name, "Int32", RowBinaryColumns.int32(accessor));
        }

        public Builder<T> int64(String name, ToLongFunction<? super T> accessor) {
            return add(name, "Int64", RowBinaryColumns.int64(accessor));
        }

        /** Int128 from a BigInteger (allocates). */
        public Builder<T> int128(String name, Function<? super T, BigInteger> accessor) {
            return column(name, ClickHouseTypes.int128(), accessor);
        }

        /** Int256 from a BigInteger (allocates). */
        public Builder<T> int256(String name, Function<? super T, BigInteger> accessor) {
            return column(name, ClickHouseTypes.int256(), accessor);
        }

        /** Float32; the double is narrowed to float. */
        public Builder<T> float32(String name, ToDoubleFunction<? super T> accessor) {
            return add(name, "Float32", RowBinaryColumns.float32(accessor));
        }

        public Builder<T> float64(String name, ToDoubleFunction<? super T> accessor) {
            return add(name, "Float64", RowBinaryColumns.float64(accessor));
        }

        /** Bool (UInt8 0/1 on the wire). */
        public Builder<T> bool(String name, Predicate<? super T> accessor) {
            return add(name, "Bool", RowBinaryColumns.bool(accessor));
        }

        /** String from chars, UTF-8 encoded in place; null is an error (see {@link #nullableString}). */
        public Builder<T> string(String name, Function<? super T, ? extends CharSequence> accessor) {
            return add(name, "String", RowBinaryColumns.string(accessor));
        }

        /** String from raw bytes. */
        public Builder<T> stringBytes(String name, Function<? super T, byte[]> accessor) {
            return add(name, "String", RowBinaryColumns.stringBytes(accessor));
        }

        /** Nullable(String). */
        public Builder<T> nullableString(String name, Function<? super T, ? extends @Nullable CharSequence> accessor) {
            return add(name, "Nullable(String)", RowBinaryColumns.nullableString(accessor));
        }

        /** LowCardinality(String): on the RowBinary wire a plain String. */
        public Builder<T> lowCardinalityString(String name, Function<? super T, ? extends CharSequence> accessor) {
            return add(name, "LowCardinality(String)", RowBinaryColumns.lowCardinalityString(accessor));
        }

        /** FixedString(n): the bytes zero-padded to n; more than n bytes is an error. */
        public Builder<T> fixedString(String name, int n, Function<? super T, byte[]> accessor) {
            return column(name, ClickHouseTypes.fixedString(n), accessor);
        }

        /** Date from days since 1970-01-01 (UInt16: 1970-01-01 to 2149-06-06). */
        public Builder<T> date(String name, ToIntFunction<? super T> epochDay) {
            return add(name, "Date", RowBinaryColumns.date(epochDay));
        }

        /** Date32 from days since 1970-01-01 (Int32; 1900-01-01 to 2299-12-31). */
        public Builder<T> date32(String name, ToIntFunction<? super T> epochDay) {
            return add(name, "Date32", RowBinaryColumns.date32(epochDay));
        }

        /** DateTime from seconds since the epoch (UInt32). */
        public Builder<T> dateTime(String name, ToLongFunction<? super T> epochSecond) {
            return add(name, "DateTime", RowBinaryColumns.dateTime(epochSecond));
        }

        /** DateTime64(p) from ticks of 10^-p seconds since the epoch (e.g. epoch millis for p = 3). */
        public Builder<T> dateTime64(String name, int precision, ToLongFunction<? super T> ticks) {
            RowBinary.checkPrecision(precision, 9, "DateTime64");
            return add(name, "DateTime64(" + precision + ")", RowBinaryColumns.dateTime64(ticks));
        }

        /** DateTime64(p) from an Instant (no allocation; sub-tick nanoseconds truncated). */
        public Builder<T> dateTime64Instant(String name, int precision, Function<? super T, Instant> accessor) {
            return column(name, ClickHouseTypes.dateTime64(precision), accessor);
        }

        /** UUID (two little-endian 64-bit halves, high first); reads the UUID's longs without allocating. */
        public Builder<T> uuid(String name, Function<? super T, UUID> accessor) {
            return column(name, ClickHouseTypes.uuid(), accessor);
        }

        /** Decimal(9, scale) from the unscaled value (e.g. cents for scale 2). */
        public Builder<T> decimal32(String name, int scale, ToLongFunction<? super T> unscaled) {
            return decimalLong(name, 9, scale, unscaled, 4);
        }

        /** Decimal(18, scale) from the unscaled value (e.g. cents for scale 2). */
        public Builder<T> decimal64(String name, int scale, ToLongFunction<? super T> unscaled) {
            return decimalLong(name, 18, scale, unscaled, 8);
        }

        /** Decimal(38, scale) from the unscaled value as a long (sign-extended to 16 bytes). */
        public Builder<T> decimal128(String name, int scale, ToLongFunction<? super T> unscaled) {
            return decimalLong(name, 38, scale, unscaled, 16);
        }

        /** Decimal(76, scale) from the unscaled value as a long (sign-extended to 32 bytes). */
        public Builder<T> decimal256(String name, int scale, ToLongFunction<? super T> unscaled) {
            return decimalLong(name, 76, scale, unscaled, 32);
        }

        private Builder<T> decimalLong(
                String name, int precision, int scale, ToLongFunction<? super T> unscaled, int width) {
            RowBinary.checkScale(precision, scale);
            Objects.requireNonNull(unscaled, "unscaled");
            String type = RowBinary.decimalName(precision, scale);
            return add(name, type, RowBinaryColumns.decimalLong(precision, type, unscaled, width));
        }

        /**
         * Decimal(P, S) from a BigDecimal; the width (4, 8, 16, 32 bytes) follows P. A value with
         * more than S decimal places or more than P digits is an error, never rounded. Allocates.
         */
        public Builder<T> decimal(String name, int precision, int scale, Function<? super T, BigDecimal> accessor) {
            return column(name, ClickHouseTypes.decimal(precision, scale), accessor);
        }

        /** Enum8 from the numeric code; {@code values} in declaration order (e.g. a LinkedHashMap). */
        public Builder<T> enum8(String name, Map<String, Integer> values, ToIntFunction<? super T> code) {
            Objects.requireNonNull(code, "code");
            String type = RowBinary.enumName("Enum8", values, Byte.MIN_VALUE, Byte.MAX_VALUE);
            return add(name, type, RowBinaryColumns.enum8(type, values, code));
        }

        /** Enum16 from the numeric code; {@code values} in declaration order. */
        public Builder<T> enum16(String name, Map<String, Integer> values, ToIntFunction<? super T> code) {
            Objects.requireNonNull(code, "code");
            String type = RowBinary.enumName("Enum16", values, Short.MIN_VALUE, Short.MAX_VALUE);
            return add(name, type, RowBinaryColumns.enum16(type, values, code));
        }

        /** IPv4 from the address as an int in numeric order ({@code 0x7F000001} is 127.0.0.1). */
        public Builder<T> ipv4(String name, ToIntFunction<? super T> address) {
            return add(name, "IPv4", RowBinaryColumns.ipv4(address));
        }

        /** IPv6 from 16 bytes in network order. */
        public Builder<T> ipv6(String name, Function<? super T, byte[]> accessor) {
            return column(name, ClickHouseTypes.ipv6(), accessor);
        }

        /** Array(T) from a collection. */
        public <E extends @Nullable Object> Builder<T> array(
                String name,
                ClickHouseType<E> element,
                Function<? super T, ? extends Collection<? extends E>> accessor) {
            return column(name, ClickHouseTypes.array(element), accessor);
        }

        /** Map(K, V) in the map's iteration order. */
        public <K, V extends @Nullable Object> Builder<T> map(
                String name,
                ClickHouseType<K> key,
                ClickHouseType<V> value,
                Function<? super T, ? extends Map<? extends K, ? extends V>> accessor) {
            return column(name, ClickHouseTypes.map(key, value), accessor);
        }

        /** Nullable(T) of any type; a null from the accessor writes NULL. */
        public <V> Builder<T> nullable(
                String name, ClickHouseType<V> type, Function<? super T, ? extends @Nullable V> accessor) {
            return column(name, ClickHouseTypes.nullable(type), accessor);
        }

        /** A column of any {@link ClickHouseType} (nested, tuple, low-cardinality, …). */
        public <V extends @Nullable Object> Builder<T> column(
                String name, ClickHouseType<V> type, Function<? super T, ? extends V> accessor) {
            ColumnWriter<T> writer = RowBinaryColumns.of(type, accessor);
            return add(name, type.name(), writer);
        }

        public RowBinaryEncoder<T> build() {
            if (columns.isEmpty()) {
                throw new IllegalStateException("an encoder needs at least one column");
            }
            @SuppressWarnings("unchecked")
            ColumnWriter<? super T>[] w = (ColumnWriter<? super T>[]) writers.toArray(new ColumnWriter<?>[0]);
            return new RowBinaryEncoder<>(columns.toArray(new ClickHouseColumn[0]), w);
        }
    }
}
