package dev.etl.clickhouse;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.nio.ByteOrder;
import java.util.Arrays;

/**
 * One column (or a nested part of one) of a Native block, transposed from RowBinary values: the
 * mutable per-block state of one node of the column's type, built by {@link #of} from its parsed {@link ColumnType}. The
 * scalars ({@link Fixed}, {@link Str}) and {@link Nullable} are nested here; {@link NativeArray} (Map
 * too), {@link NativeTuple} and {@link NativeLowCardinality} have files of their own.
 *
 * <p>A block is built in two passes over the batch's rows ({@link NativeBlockEncoder}):
 * {@link #measure} consumes one RowBinary value and counts the bytes its streams will take
 * ({@link #measureAll} for a top-level fixed-width column, whose values need no parsing); then
 * {@link #layout} gives every stream its exact place in the output; {@link #scatterColumn} copies a
 * top-level column's values there, by default with {@link #scatter} per value (which consumes the
 * value again); {@link #finish} writes what only the whole column knows (LowCardinality's dictionary
 * and indexes). Sizes are exact, so the block is written in place with no intermediate buffers.
 *
 * <p>The Native layout of a column (ClickHouse's {@code serializeBinaryBulkWithMultipleStreams}, all
 * streams into one buffer): first the serialization-state prefixes of every LowCardinality in the
 * type, depth first ({@link #writePrefix}), then the streams, depth first: a Nullable's null map
 * (one byte per value) before its values (a default in place of each NULL); an Array's offsets
 * (UInt64, cumulative) before all its elements; a Tuple's elements one whole column after the other;
 * a Map as {@code Array(Tuple(K, V))}. Fixed-width values and Strings are the same bytes as in
 * RowBinary.
 *
 * <p>Not thread-safe: one tree per encoder.
 */
abstract class NativeColumn {
    static final VarHandle SHORT_LE = MethodHandles.byteArrayViewVarHandle(short[].class, ByteOrder.LITTLE_ENDIAN);
    static final VarHandle INT_LE = MethodHandles.byteArrayViewVarHandle(int[].class, ByteOrder.LITTLE_ENDIAN);
    static final VarHandle LONG_LE = MethodHandles.byteArrayViewVarHandle(long[].class, ByteOrder.LITTLE_ENDIAN);

    /**
     * The transposition tree of a parsed column type: fixed-width types, {@code String}, {@code Nullable}
     * and {@code LowCardinality} of those ({@code LowCardinality(Nullable(scalar))} too), and {@code Array},
     * {@code Map} and {@code Tuple} of any of them. Every call builds a fresh tree.
     *
     * @throws IllegalArgumentException naming the part of the type the Native format cannot write
     */
    static NativeColumn of(ColumnType type) {
        switch (type.kind()) {
            case STRING:
                return new Str();
            case NULLABLE: {
                NativeColumn inner = of(type.inner());
                if (!inner.isScalar()) {
                    throw new IllegalArgumentException("'" + type.name() + "': Nullable of a composite type is not a "
                            + "ClickHouse type (Nullable wraps a scalar)");
                }
                return new Nullable(inner);
            }
            case LOW_CARDINALITY: {
                ColumnType inner = type.inner();
                boolean nullable = inner.kind() == ColumnType.Kind.NULLABLE;
                NativeColumn scalar = of(nullable ? inner.inner() : inner);
                if (!scalar.isScalar()) {
                    throw new IllegalArgumentException(
                            "'" + type.name() + "': LowCardinality wraps a scalar or Nullable(scalar)");
                }
                return new NativeLowCardinality(scalar, nullable);
            }
            case ARRAY:
                return new NativeArray(of(type.inner()));
            case MAP:
                return new NativeArray(
                        of(type.arguments().get(0)), of(type.arguments().get(1)));
            case TUPLE: {
                NativeColumn[] elements = new NativeColumn[type.arguments().size()];
                for (int i = 0; i < elements.length; i++) {
                    elements[i] = of(type.arguments().get(i));
                }
                return new NativeTuple(elements);
            }
            case OTHER:
                throw new IllegalArgumentException(
                        "type '" + type.name() + "' is not supported by the Native insert format");
            default:
                return new Fixed(type.fixedWidth());
        }
    }

    /** Forgets the previous block (capacities are kept). */
    abstract void reset();

    /** Pass 1: consumes one RowBinary value and counts it. */
    abstract void measure(RowBinaryCursor in);

    /**
     * Consumes one RowBinary value without counting it (no state changes): where the value ends, for
     * {@link RowBinaryRows}. Reads exactly what {@link #measure} reads.
     */
    abstract void skip(RowBinaryCursor in);

    /** Pass 1: counts one default value (the placeholder of a NULL). Only scalars have one. */
    void measureDefault() {
        throw new IllegalStateException(getClass().getSimpleName() + " has no default value");
    }

    /** Bytes of this type's serialization-state prefixes (8 per LowCardinality inside it). */
    abstract int prefixBytes();

    /** Writes the prefixes at {@code at}; returns the position after them. */
    abstract int writePrefix(byte[] out, int at);

    /** Bytes of this column's streams for the values measured since {@link #reset}. */
    abstract long dataBytes();

    /** Places this column's streams from {@code start}; returns the position after them. */
    abstract int layout(int start);

    /** Pass 2: consumes the same RowBinary value again and writes it into its streams. */
    abstract void scatter(RowBinaryCursor in, byte[] out);

    /** Pass 2: writes one default value (a NULL's placeholder). */
    void scatterDefault(byte[] out) {
        throw new IllegalStateException(getClass().getSimpleName() + " has no default value");
    }

    /** After pass 2: writes what needs the whole column ({@code rows}: the batch's bytes). */
    void finish(byte[] rows, byte[] out) {}

    /** Whether this node is a fixed-width or String scalar (what Nullable and LowCardinality may wrap). */
    boolean isScalar() {
        return false;
    }

    /** The width of every value when it is fixed, else -1: such top-level columns are skipped in bulk. */
    int fixedWidth() {
        return -1;
    }

    /** Pass 1 for a top-level fixed-width column: counts {@code count} values at once. */
    void measureAll(int count) {
        throw new IllegalStateException(getClass().getSimpleName() + " is not fixed-width");
    }

    /**
     * Pass 2 for a top-level column, column by column: writes the value of every row, the value of row
     * {@code r} starting at {@code anchors[r * stride + anchor] + offset} in the batch. The default
     * positions {@code in} there and calls {@link #scatter}; scalars copy in one tight loop.
     */
    void scatterColumn(RowBinaryCursor in, int[] anchors, int stride, int anchor, int offset, int rows, byte[] out) {
        for (int r = 0; r < rows; r++) {
            in.position = anchors[r * stride + anchor] + offset;
            scatter(in, out);
        }
    }

    /** A fixed-width value: integers, floats, dates, Decimal, Enum, UUID, IPv4/6, FixedString(N). */
    static final class Fixed extends NativeColumn {
        final int width;
        private int count;
        private int cursor;

        Fixed(int width) {
            if (width <= 0) {
                throw new IllegalArgumentException("width must be > 0, got " + width);
            }
            this.width = width;
        }

        @Override
        void reset() {
            count = 0;
        }

        @Override
        void measure(RowBinaryCursor in) {
            in.skip(width);
            count++;
        }

        @Override
        void skip(RowBinaryCursor in) {
            in.skip(width);
        }

        @Override
        void measureDefault() {
            count++;
        }

        @Override
        int prefixBytes() {
            return 0;
        }

        @Override
        int writePrefix(byte[] out, int at) {
            return at;
        }

        @Override
        long dataBytes() {
            return (long) count * width;
        }

        @Override
        int layout(int start) {
            cursor = start;
            return start + count * width;
        }

        @Override
        void scatter(RowBinaryCursor in, byte[] out) {
            int from = in.position;
            in.skip(width);
            byte[] src = in.bytes;
            int at = cursor;
            switch (width) {
                case 1 -> out[at] = src[from];
                case 2 -> SHORT_LE.set(out, at, (short) SHORT_LE.get(src, from));
                case 4 -> INT_LE.set(out, at, (int) INT_LE.get(src, from));
                case 8 -> LONG_LE.set(out, at, (long) LONG_LE.get(src, from));
                default -> System.arraycopy(src, from, out, at, width);
            }
            cursor = at + width;
        }

        @Override
        void scatterDefault(byte[] out) {
            Arrays.fill(out, cursor, cursor + width, (byte) 0);
            cursor += width;
        }

        @Override
        boolean isScalar() {
            return true;
        }

        @Override
        int fixedWidth() {
            return width;
        }

        @Override
        void measureAll(int count) {
            this.count = count;
        }

        @Override
        void scatterColumn(
                RowBinaryCursor in, int[] anchors, int stride, int anchor, int offset, int rows, byte[] out) {
            byte[] src = in.bytes;
            int at = cursor;
            int a = anchor;
            switch (width) {
                case 1 -> {
                    for (int r = 0; r < rows; r++, a += stride) {
                        out[at++] = src[anchors[a] + offset];
                    }
                }
                case 2 -> {
                    for (int r = 0; r < rows; r++, a += stride, at += 2) {
                        SHORT_LE.set(out, at, (short) SHORT_LE.get(src, anchors[a] + offset));
                    }
                }
                case 4 -> {
                    for (int r = 0; r < rows; r++, a += stride, at += 4) {
                        INT_LE.set(out, at, (int) INT_LE.get(src, anchors[a] + offset));
                    }
                }
                case 8 -> {
                    for (int r = 0; r < rows; r++, a += stride, at += 8) {
                        LONG_LE.set(out, at, (long) LONG_LE.get(src, anchors[a] + offset));
                    }
                }
                default -> {
                    int w = width;
                    for (int r = 0; r < rows; r++, a += stride, at += w) {
                        System.arraycopy(src, anchors[a] + offset, out, at, w);
                    }
                }
            }
            cursor = at;
        }
    }

    /** A String: LEB128 length and bytes, per value, as in RowBinary. */
    static final class Str extends NativeColumn {
        private long bytes;
        private int cursor;

        @Override
        void reset() {
            bytes = 0;
        }

        @Override
        void measure(RowBinaryCursor in) {
            int from = in.position;
            in.skip(in.readLength());
            bytes += in.position - from;
        }

        @Override
        void skip(RowBinaryCursor in) {
            in.skip(in.readLength());
        }

        @Override
        void measureDefault() {
            bytes++;
        }

        @Override
        int prefixBytes() {
            return 0;
        }

        @Override
        int writePrefix(byte[] out, int at) {
            return at;
        }

        @Override
        long dataBytes() {
            return bytes;
        }

        @Override
        int layout(int start) {
            cursor = start;
            return (int) (start + bytes);
        }

        @Override
        void scatter(RowBinaryCursor in, byte[] out) {
            int from = in.position;
            in.skip(in.readLength());
            int n = in.position - from;
            System.arraycopy(in.bytes, from, out, cursor, n);
            cursor += n;
        }

        @Override
        void scatterDefault(byte[] out) {
            out[cursor++] = 0;
        }

        @Override
        boolean isScalar() {
            return true;
        }

        /** Pass 1 already checked every length against the batch, so this loop only decodes and copies. */
        @Override
        void scatterColumn(
                RowBinaryCursor in, int[] anchors, int stride, int anchor, int offset, int rows, byte[] out) {
            byte[] src = in.bytes;
            int at = cursor;
            int a = anchor;
            for (int r = 0; r < rows; r++, a += stride) {
                int from = anchors[a] + offset;
                int p = from;
                int b = src[p++];
                int length = b & 0x7F;
                for (int shift = 7; b < 0; shift += 7) {
                    b = src[p++];
                    length |= (b & 0x7F) << shift;
                }
                int n = p - from + length;
                System.arraycopy(src, from, out, at, n);
                at += n;
            }
            cursor = at;
        }
    }

    /** Nullable(T) over a scalar: the null map, then the values with a default for each NULL. */
    static final class Nullable extends NativeColumn {
        private final NativeColumn inner;
        private int count;
        private int mapCursor;

        Nullable(NativeColumn inner) {
            this.inner = inner;
        }

        @Override
        void reset() {
            count = 0;
            inner.reset();
        }

        @Override
        void measure(RowBinaryCursor in) {
            int flag = in.readByte();
            count++;
            if (flag == 0) {
                inner.measure(in);
            } else if (flag == 1) {
                inner.measureDefault();
            } else {
                throw new RowBinaryCursor.Mismatch("Nullable flag must be 0 or 1, got " + flag);
            }
        }

        @Override
        void skip(RowBinaryCursor in) {
            int flag = in.readByte();
            if (flag == 0) {
                inner.skip(in);
            } else if (flag != 1) {
                throw new RowBinaryCursor.Mismatch("Nullable flag must be 0 or 1, got " + flag);
            }
        }

        @Override
        int prefixBytes() {
            return inner.prefixBytes();
        }

        @Override
        int writePrefix(byte[] out, int at) {
            return inner.writePrefix(out, at);
        }

        @Override
        long dataBytes() {
            return count + inner.dataBytes();
        }

        @Override
        int layout(int start) {
            mapCursor = start;
            return inner.layout(start + count);
        }

        @Override
        void scatter(RowBinaryCursor in, byte[] out) {
            int flag = in.readByte();
            out[mapCursor++] = (byte) flag;
            if (flag == 0) {
                inner.scatter(in, out);
            } else {
                inner.scatterDefault(out);
            }
        }

        /** The default loop, repeated so that its call site sees only Nullable (the JIT inlines it). */
        @Override
        void scatterColumn(
                RowBinaryCursor in, int[] anchors, int stride, int anchor, int offset, int rows, byte[] out) {
            for (int r = 0, a = anchor; r < rows; r++, a += stride) {
                in.position = anchors[a] + offset;
                scatter(in, out);
            }
        }
    }
}
