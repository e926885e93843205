package dev.etl.avro.clickhouse;

import dev.etl.avro.binary.AvroCursor;
import dev.etl.sink.RowBuffer;

/**
 * One computed column of a {@link ScanPlan}, compiled by {@link ScanCompiler}: {@code length(...)}, a
 * {@code sum(...)} over an array's elements, a product of two fields, {@code now()}, or an array projection
 * ({@code lines.sku} into {@code Array(String)} through an unexploded array of records). Constants and whatever
 * the writer schema fixes (a missing array, two missing operands) are folded at compile time into a
 * {@link ScanPlan#SOURCE_CONSTANT} instead.
 *
 * <p>Items that take no bytes count against the record's budget ({@link AvroCursor#zeroByteItems}) as they are
 * read for a row, as {@link ArrayBlocks} counts them. Reads only from the marks of the record's scan and the
 * cursor: an array is iterated from its mark with its
 * own element {@link ScanPlan.Steps steps} (and marks of its own, so the exploded array's element marks of the row
 * being written stay), nothing is allocated. Integers are computed in a {@code long} with exact overflow (an
 * overflow is a {@link ValueRejected}, so a {@code ColumnEncodeException} naming the column), floats in a
 * {@code double}. One final class with an opcode, like {@link Conversion}.
 */
final class Computed {
    static final int LENGTH = 1;
    static final int SUM = 2;
    static final int SUM_PRODUCT = 3;
    static final int PRODUCT = 4;
    static final int NOW = 5;
    static final int PROJECTION = 6;

    final int op;
    /** The array iterated: its start mark and element steps (LENGTH, SUM, SUM_PRODUCT, PROJECTION). */
    private final Iter iter;
    /** SUM and PRODUCT's first operand, SUM_PRODUCT's factors. */
    private final Operand a;

    private final Operand b;
    /** Whether the arithmetic is in double. */
    private final boolean floating;
    /** Where a number result goes; null for a projection. */
    private final NumberColumn target;
    /** NOW: multiply the clock's milliseconds by this (DateTime64(p ≥ 3)), else divide by {@link #divisor}. */
    private final long multiplier;

    private final long divisor;
    /** PROJECTION: the element's conversion (from {@link #elementMark}) or its bytes (a reader default). */
    private final Conversion element;

    private final int elementMark;
    private final byte[] elementConstant;
    /**
     * First of two marks holding the value computed for the record's first row, for the next rows of an exploded
     * record (a value that reads no field of the element); -1 when the value is computed for each row.
     */
    private final int stash;

    /** An array to iterate: the mark of its start in the record's scan and the steps over one element. */
    static final class Iter {
        final int startMark;
        final ScanPlan.Steps steps;

        Iter(int startMark, ScanPlan.Steps steps) {
            this.startMark = startMark;
            this.steps = steps;
        }
    }

    /** A numeric operand: a field read from {@code mark} as {@code read} ({@link Conversion}'s READ_*), or a constant. */
    static final class Operand {
        final int mark;
        final int read;
        final long longValue;
        final double doubleValue;

        private Operand(int mark, int read, long longValue, double doubleValue) {
            this.mark = mark;
            this.read = read;
            this.longValue = longValue;
            this.doubleValue = doubleValue;
        }

        static Operand field(int mark, int read) {
            return new Operand(mark, read, 0, 0);
        }

        static Operand constant(long value) {
            return new Operand(-1, 0, value, value);
        }

        static Operand constant(double value) {
            return new Operand(-1, 0, 0, value);
        }

        boolean isConstant() {
            return mark < 0;
        }

        long asLong(AvroCursor in) {
            if (mark < 0) {
                return longValue;
            }
            in.reset(in.marked(mark));
            return read == Conversion.READ_INT ? in.readInt() : in.readLong();
        }

        double asDouble(AvroCursor in) {
            if (mark < 0) {
                return doubleValue;
            }
            in.reset(in.marked(mark));
            switch (read) {
                case Conversion.READ_INT:
                    return in.readInt();
                case Conversion.READ_LONG:
                    return in.readLong();
                case Conversion.READ_INT_AS_FLOAT:
                    return (float) in.readInt();
                case Conversion.READ_LONG_AS_FLOAT:
                    return (float) in.readLong();
                case Conversion.READ_FLOAT:
                    return in.readFloat();
                default:
                    return in.readDouble();
            }
        }
    }

    private Computed(
            int op,
            Iter iter,
            Operand a,
            Operand b,
            boolean floating,
            NumberColumn target,
            long multiplier,
            long divisor,
            Conversion element,
            int elementMark,
            byte[] elementConstant,
            int stash) {
        this.op = op;
        this.iter = iter;
        this.a = a;
        this.b = b;
        this.floating = floating;
        this.target = target;
        this.multiplier = multiplier;
        this.divisor = divisor;
        this.element = element;
        this.elementMark = elementMark;
        this.elementConstant = elementConstant;
        this.stash = stash;
    }

    /** {@code length(array)}. */
    static Computed length(Iter iter, NumberColumn target, int stash) {
        return new Computed(LENGTH, iter, null, null, false, target, 1, 1, null, -1, null, stash);
    }

    /** {@code sum(a)} ({@code b} null) or {@code sum(a * b)} over the elements of {@code iter}. */
    static Computed sum(Iter iter, Operand a, Operand b, boolean floating, NumberColumn target, int stash) {
        return new Computed(b == null ? SUM : SUM_PRODUCT, iter, a, b, floating, target, 1, 1, null, -1, null, stash);
    }

    /** {@code a * b} of the row. */
    static Computed product(Operand a, Operand b, boolean floating, NumberColumn target, int stash) {
        return new Computed(PRODUCT, null, a, b, floating, target, 1, 1, null, -1, null, stash);
    }

    /** {@code now()}: the clock's milliseconds times {@code multiplier}, or divided (floor) by {@code divisor}. */
    static Computed now(long multiplier, long divisor, NumberColumn target) {
        return new Computed(NOW, null, null, null, false, target, multiplier, divisor, null, -1, null, -1);
    }

    /** An {@code Array(T)} of one element's field per element of {@code iter}. */
    static Computed projection(Iter iter, Conversion element, int elementMark, byte[] elementConstant) {
        return new Computed(PROJECTION, iter, null, null, false, null, 1, 1, element, elementMark, elementConstant, -1);
    }

    /**
     * Writes the column of row {@code index} of the record (0 without an exploded array), the record's clock
     * reading {@code nowMs}. Moves the cursor.
     */
    void write(AvroCursor in, RowBuffer out, int index, long nowMs) {
        switch (op) {
            case PROJECTION:
                project(in, out);
                return;
            case NOW:
                target.writeLong(multiplier > 1 ? nowMs * multiplier : Math.floorDiv(nowMs, divisor), out);
                return;
            default:
                break;
        }
        // A double travels as its bits, so that one loop and one stash serve both kinds.
        long v;
        if (stash >= 0 && index > 0) {
            v = stashed(in);
        } else {
            v = op == PRODUCT ? product(in) : sum(in);
            if (stash >= 0) {
                stash(in, v);
            }
        }
        if (floating) {
            target.writeDouble(Double.longBitsToDouble(v), out);
        } else {
            target.writeLong(v, out);
        }
    }

    /** PRODUCT: a long, or a double's bits. */
    private long product(AvroCursor in) {
        return floating
                ? Double.doubleToRawLongBits(a.asDouble(in) * b.asDouble(in))
                : multiply(a.asLong(in), b.asLong(in));
    }

    private void stash(AvroCursor in, long v) {
        in.mark(stash, (int) v);
        in.mark(stash + 1, (int) (v >>> 32));
    }

    private long stashed(AvroCursor in) {
        return ((long) in.marked(stash + 1) << 32) | (in.marked(stash) & 0xFFFF_FFFFL);
    }

    static long multiply(long x, long y) {
        try {
            return Math.multiplyExact(x, y);
        } catch (ArithmeticException e) {
            throw new ValueRejected("the product " + x + " * " + y + " overflows a 64-bit integer");
        }
    }

    private static long add(long x, long y) {
        try {
            return Math.addExact(x, y);
        } catch (ArithmeticException e) {
            throw new ValueRejected("the sum overflows a 64-bit integer (" + x + " + " + y + ")");
        }
    }

    /**
     * LENGTH, SUM and SUM_PRODUCT: one pass over the array's blocks, element by element; a long, or (floating) a
     * double's bits.
     */
    private long sum(AvroCursor in) {
        ScanPlan.Steps steps = iter.steps;
        in.reset(in.marked(iter.startMark));
        long total = 0;
        long sum = 0;
        double sumDouble = 0;
        for (long n = in.blockCount(total); n != 0; n = in.blockCount(total)) {
            total += n;
            for (long i = 0; i < n; i++) {
                int from = in.mark();
                ScanPlan.run(steps, in);
                int next = in.mark();
                // Items that take no bytes: the rest of the block is the same value again.
                long times = i == 0 && in.zeroByteItems(from, n) ? n : 1;
                if (floating) {
                    double v = op == SUM ? a.asDouble(in) : a.asDouble(in) * b.asDouble(in);
                    sumDouble += v * times;
                } else {
                    long v = op == LENGTH ? 1 : op == SUM ? a.asLong(in) : multiply(a.asLong(in), b.asLong(in));
                    sum = add(sum, times == 1 ? v : multiply(v, times));
                }
                in.reset(next);
                if (times != 1) {
                    break;
                }
            }
        }
        return floating ? Double.doubleToRawLongBits(sumDouble) : sum;
    }

    /** PROJECTION: counts the elements (RowBinary needs the count first), then writes one value per element. */
    private void project(AvroCursor in, RowBuffer out) {
        long budget = in.zeroByteItemsLeft();
        ScanPlan.Steps steps = iter.steps;
        long count = lengthOf(in, steps);
        in.zeroByteItemsLeft(budget); // the same items are counted again as they are written
        out.writeVarUInt(count);
        in.reset(in.marked(iter.startMark));
        long total = 0;
        for (long n = in.blockCount(total); n != 0; n = in.blockCount(total)) {
            total += n;
            for (long i = 0; i < n; i++) {
                int from = in.mark();
                ScanPlan.run(steps, in);
                int next = in.mark();
                if (i == 0 && in.zeroByteItems(from, n)) {
                    for (long k = 0; k < n; k++) {
                        projected(in, out);
                    }
                    in.reset(next);
                    break;
                }
                projected(in, out);
                in.reset(next);
            }
        }
    }

    private void projected(AvroCursor in, RowBuffer out) {
        if (elementMark >= 0) {
            in.reset(in.marked(elementMark));
            element.write(in, out);
        } else {
            out.writeBytes(elementConstant, 0, elementConstant.length);
        }
    }

    private long lengthOf(AvroCursor in, ScanPlan.Steps steps) {
        in.reset(in.marked(iter.startMark));
        long total = 0;
        for (long n = in.blockCount(total); n != 0; n = in.blockCount(total)) {
            total += n;
            int from = in.mark();
            ScanPlan.run(steps, in);
            if (in.zeroByteItems(from, n)) {
                continue;
            }
            for (long i = 1; i < n; i++) {
                ScanPlan.run(steps, in);
            }
        }
        return total;
    }
}
