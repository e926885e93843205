package dev.etl.clickhouse;

import dev.etl.sink.RowBuffer;
import java.math.BigDecimal;
import java.math.BigInteger;
import java.time.Instant;
import java.time.LocalDate;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.UUID;
import java.util.function.BiConsumer;
import java.util.function.Function;
import org.jspecify.annotations.Nullable;

/**
 * Factories of {@link ClickHouseType}s for values held as objects, used for nested columns
 * ({@link #nullable}, {@link #array}, {@link #map}, {@link #tuple}, {@link #lowCardinality}) and
 * for {@link RowBinaryEncoder.Builder#column}. Scalars here take boxed values; the builder's
 * primitive methods avoid that for top-level columns. The primitive-array types
 * ({@link #int64Array()}, {@link #int32Array()}, {@link #float64Array()}) write Java arrays without
 * boxing.
 *
 * <p>Encodings follow the RowBinary specification: little-endian fixed-width integers, LEB128
 * lengths, UUID as two little-endian 64-bit halves (high first), IPv4 as a little-endian UInt32,
 * IPv6 as 16 bytes in network order, Decimal as a little-endian integer of the width its precision
 * needs, Nullable as a 0/1 byte before the value (no value after 1), LowCardinality as its inner
 * type.
 */
public final class ClickHouseTypes {
    private ClickHouseTypes() {}

    private record Simple<V>(String name, BiConsumer<V, RowBuffer> writer) implements ClickHouseType<V> {
        @Override
        public void write(V value, RowBuffer out) {
            writer.accept(RowBinary.nonNull(value, name), out);
        }
    }

    private static <V> ClickHouseType<V> of(String name, BiConsumer<V, RowBuffer> writer) {
        return new Simple<>(name, writer);
    }

    public static ClickHouseType<Integer> uint8() {
        return of("UInt8", (v, out) -> RowBinary.uint8(v, out));
    }

    public static ClickHouseType<Integer> uint16() {
        return of("UInt16", (v, out) -> RowBinary.uint16(v, out));
    }

    public static ClickHouseType<Long> uint32() {
        return of("UInt32", (v, out) -> RowBinary.uint32(v, out));
    }

    /** UInt64 from a non-negative long. */
    public static ClickHouseType<Long> uint64() {
        return of("UInt64", (v, out) -> RowBinary.uint64(v, out));
    }

    public static ClickHouseType<BigInteger> uint128() {
        return of("UInt128", (v, out) -> RowBinary.bigInteger(v, 16, true, out, "UInt128"));
    }

    public static ClickHouseType<BigInteger> uint256() {
        return of("UInt256", (v, out) -> RowBinary.bigInteger(v, 32, true, out, "UInt256"));
    }

    public static ClickHouseType<Integer> int8() {
        return of("Int8", (v, out) -> RowBinary.int8(v, out));
    }

    public static ClickHouseType<Integer> int16() {
        return of("Int16", (v, out) -> RowBinary.int16(v, out));
    }

    public static ClickHouseType<Integer> int32() {
        return of("Int32", (v, out) -> out.writeIntLE(v));
    }

    public static ClickHouseType<Long> int64() {
        return of("Int64", (v, out) -> out.writeLongLE(v));
    }

    public static ClickHouseType<BigInteger> int128() {
        return of("Int128", (v, out) -> RowBinary.bigInteger(v, 16, false, out, "Int128"));
    }

    public static ClickHouseType<BigInteger> int256() {
        return of("Int256", (v, out) -> RowBinary.bigInteger(v, 32, false, out, "Int256"));
    }

    public static ClickHouseType<Float> float32() {
        return of("Float32", (v, out) -> out.writeFloatLE(v));
    }

    public static ClickHouseType<Double> float64() {
        return of("Float64", (v, out) -> out.writeDoubleLE(v));
    }

    public static ClickHouseType<Boolean> bool() {
        return of("Bool", (v, out) -> out.writeByte(v ? 1 : 0));
    }

    public static ClickHouseType<CharSequence> string() {
        return of("String", (v, out) -> out.writeString(v));
    }

    /** String from raw bytes (not necessarily UTF-8). */
    public static ClickHouseType<byte[]> stringBytes() {
        return of("String", (v, out) -> out.writeStringBytes(v, 0, v.length));
    }

    /** FixedString(n): the bytes, zero-padded to n; longer values are an error. */
    public static ClickHouseType<byte[]> fixedString(int n) {
        if (n <= 0) {
            throw new IllegalArgumentException("FixedString length must be > 0, got " + n);
        }
        return of("FixedString(" + n + ")", (v, out) -> RowBinary.fixedString(v, n, out));
    }

    public static ClickHouseType<LocalDate> date() {
        return of("Date", (v, out) -> RowBinary.date(Math.toIntExact(v.toEpochDay()), out));
    }

    public static ClickHouseType<LocalDate> date32() {
        return of("Date32", (v, out) -> RowBinary.date32(Math.toIntExact(v.toEpochDay()), out));
    }

    public static ClickHouseType<Instant> dateTime() {
        return of("DateTime", (v, out) -> RowBinary.dateTime(v.getEpochSecond(), out));
    }

    /** DateTime64(p): Int64 ticks of 10^-p seconds; sub-tick nanoseconds are truncated toward the past. */
    public static ClickHouseType<Instant> dateTime64(int precision) {
        RowBinary.checkPrecision(precision, 9, "DateTime64");
        return of(
                "DateTime64(" + precision + ")", (v, out) -> out.writeLongLE(RowBinary.dateTime64Ticks(v, precision)));
    }

    public static ClickHouseType<UUID> uuid() {
        return of("UUID", RowBinary::uuid);
    }

    /** Decimal(P, S) from a BigDecimal; more than S decimal places is an error (never rounded). Allocates. */
    public static ClickHouseType<BigDecimal> decimal(int precision, int scale) {
        RowBinary.decimalWidth(precision);
        RowBinary.checkScale(precision, scale);
        String name = RowBinary.decimalName(precision, scale);
        return of(name, (v, out) -> RowBinary.decimal(v, precision, scale, out, name));
    }

    /** Enum8 from its numeric codes; {@code values} in declaration order (e.g. a LinkedHashMap). */
    public static ClickHouseType<Integer> enum8(Map<String, Integer> values) {
        String name = RowBinary.enumName("Enum8", values, Byte.MIN_VALUE, Byte.MAX_VALUE);
        boolean[] known = RowBinary.enumCodes(values, Byte.MIN_VALUE, Byte.MAX_VALUE);
        return of(name, (v, out) -> {
            RowBinary.checkEnumCode(known, Byte.MIN_VALUE, v, name);
            out.writeByte(v);
        });
    }

    /** Enum16 from its numeric codes; {@code values} in declaration order. */
    public static ClickHouseType<Integer> enum16(Map<String, Integer> values) {
        String name = RowBinary.enumName("Enum16", values, Short.MIN_VALUE, Short.MAX_VALUE);
        boolean[] known = RowBinary.enumCodes(values, Short.MIN_VALUE, Short.MAX_VALUE);
        return of(name, (v, out) -> {
            RowBinary.checkEnumCode(known, Short.MIN_VALUE, v, name);
            out.writeShortLE(v);
        });
    }

    /** IPv4 from the address as an int in the usual numeric order ({@code 0x7F000001} is 127.0.0.1). */
    public static ClickHouseType<Integer> ipv4() {
        return of("IPv4", (v, out) -> out.writeIntLE(v));
    }

    /** IPv6 from 16 bytes in network order. */
    public static ClickHouseType<byte[]> ipv6() {
        return of("IPv6", RowBinary::ipv6);
    }

    /** Nullable(T): 1 for null (nothing follows), else 0 and the value. */
    public static <V> ClickHouseType<@Nullable V> nullable(ClickHouseType<V> inner) {
        Objects.requireNonNull(inner, "inner");
        String name = "Nullable(" + inner.name() + ")";
        return new ClickHouseType<>() {
            @Override
            public String name() {
                return name;
            }

            @Override
            public void write(@Nullable V value, RowBuffer out) {
                if (value == null) {
                    out.writeByte(1);
                } else {
                    out.writeByte(0);
                    inner.write(value, out);
                }
            }
        };
    }

    /** LowCardinality(T): on the RowBinary wire exactly T. */
    public static <V extends @Nullable Object> ClickHouseType<V> lowCardinality(ClickHouseType<V> inner) {
        Objects.requireNonNull(inner, "inner");
        String name = "LowCardinality(" + inner.name() + ")";
        return new ClickHouseType<>() {
            @Override
            public String name() {
                return name;
            }

            @Override
            public void write(V value, RowBuffer out) {
                inner.write(value, out);
            }
        };
    }

    /** Array(T) from a collection: LEB128 size, then the elements. */
    public static <E extends @Nullable Object> ClickHouseType<Collection<? extends E>> array(
            ClickHouseType<E> element) {
        Objects.requireNonNull(element, "element");
        return of("Array(" + element.name() + ")", (v, out) -> {
            out.writeVarUInt(v.size());
            for (E e : v) {
                element.write(e, out);
            }
        });
    }

    /** Array(Int64) from a {@code long[]}, without boxing. */
    public static ClickHouseType<long[]> int64Array() {
        return of("Array(Int64)", (v, out) -> {
            out.writeVarUInt(v.length);
            for (long e : v) {
                out.writeLongLE(e);
            }
        });
    }

    /** Array(Int32) from an {@code int[]}, without boxing. */
    public static ClickHouseType<int[]> int32Array() {
        return of("Array(Int32)", (v, out) -> {
            out.writeVarUInt(v.length);
            for (int e : v) {
                out.writeIntLE(e);
            }
        });
    }

    /** Array(Float64) from a {@code double[]}, without boxing. */
    public static ClickHouseType<double[]> float64Array() {
        return of("Array(Float64)", (v, out) -> {
            out.writeVarUInt(v.length);
            for (double e : v) {
                out.writeDoubleLE(e);
            }
        });
    }

    /** Map(K, V): LEB128 entry count, then key, value, key, value… in the map's iteration order. */
    public static <K, V extends @Nullable Object> ClickHouseType<Map<? extends K, ? extends V>> map(
            ClickHouseType<K> key, ClickHouseType<V> value) {
        Objects.requireNonNull(key, "key");
        Objects.requireNonNull(value, "value");
        return of("Map(" + key.name() + ", " + value.name() + ")", (v, out) -> {
            out.writeVarUInt(v.size());
            for (Map.Entry<? extends K, ? extends V> e : v.entrySet()) {
                key.write(e.getKey(), out);
                value.write(e.getValue(), out);
            }
        });
    }

    /**
     * Starts a Tuple(T1, T2, …) over values of type {@code V}: each element is an accessor and its
     * type, written one after the other with no prefix.
     */
    public static <V> TupleBuilder<V> tuple() {
        return new TupleBuilder<>();
    }

    /** Builds a {@code Tuple} type element by element, in wire order. */
    public static final class TupleBuilder<V> {
        private final List<ClickHouseType<V>> elements = new ArrayList<>();

        private TupleBuilder() {}

        /** Adds the next element. */
        public <E extends @Nullable Object> TupleBuilder<V> element(
                ClickHouseType<E> type, Function<? super V, ? extends E> accessor) {
            Objects.requireNonNull(type, "type");
            Objects.requireNonNull(accessor, "accessor");
            elements.add(new ClickHouseType<V>() {
                @Override
                public String name() {
                    return type.name();
                }

                @Override
                public void write(V value, RowBuffer out) {
                    type.write(accessor.apply(value), out);
                }
            });
            return this;
        }

        /** The tuple type; at least one element. */
        public ClickHouseType<V> build() {
            if (elements.isEmpty()) {
                throw new IllegalArgumentException("Tuple needs at least one element");
            }
            @SuppressWarnings("unchecked")
            ClickHouseType<V>[] parts = (ClickHouseType<V>[]) elements.toArray(new ClickHouseType<?>[0]);
            StringBuilder name = new StringBuilder("Tuple(");
            for (int i = 0; i < parts.length; i++) {
                name.append(i == 0 ? "" : ", ").append(parts[i].name());
            }
            return of(name.append(')').toString(), (v, out) -> {
                for (ClickHouseType<V> part : parts) {
                    part.write(v, out);
                }
            });
        }
    }
}
