package dev.etl.fuzz;

import dev.etl.avro.AvroLimits;
import java.util.List;
import org.apache.avro.Schema;

/**
 * How many collection items Avro's own reader would walk in a body: the guard before an oracle that
 * runs Avro's {@code GenericDatumReader}, which takes seconds (and gigabytes) on a few bytes that claim
 * billions of items of no bytes each (an array of nulls, of empty records). Such inputs are the
 * decoders' to reject or bound, not the oracle's to judge: above {@link #LIMIT} items the targets check
 * only the decoder's own bounds and exception type.
 *
 * <p>Reads the body as Avro does, summing each block's item count when it reads the count (so a huge
 * block is seen before its items are walked), items of no bytes counted but not walked. Stops at the
 * first malformation, returning what it summed so far: Avro fails there too.
 */
public final class AvroWork {
    /** More items than this and the oracle abstains. */
    public static final long LIMIT = 1 << 20;

    private final byte[] b;
    private int p;
    private final int limit;
    private long items;
    private long zeroByteItems;

    private AvroWork(byte[] b, int offset, int length) {
        this.b = b;
        this.p = offset;
        this.limit = offset + length;
    }

    /** Whether Avro's reader would walk more than {@link #LIMIT} collection items in this body. */
    public static boolean tooMuchForTheOracle(Schema writer, byte[] b, int offset, int length) {
        AvroWork w = new AvroWork(b, offset, length);
        try {
            w.value(writer, 0);
        } catch (Stop e) {
            // malformed or over the limit: what was summed says which
        }
        return w.items > LIMIT;
    }

    /**
     * How many array items that take no bytes (items of {@code null}, {@code fixed} of size 0, records of
     * only those) the blocks of the body claim, as Avro's reader meets them, up to the first malformation:
     * what a decoder that materialises such items (a list of nulls) may build within the per-record bound
     * {@link AvroLimits#maxZeroByteItems()}. At most that bound plus one (the first item of the block that
     * goes over it, read before the block is counted).
     */
    public static long zeroByteItems(Schema writer, byte[] b, int offset, int length) {
        AvroWork w = new AvroWork(b, offset, length);
        try {
            w.value(writer, 0);
        } catch (Stop e) {
            // what was claimed up to the malformation counts
        }
        if (w.items == Long.MAX_VALUE) {
            // The walk stopped at a block that takes the body over Avro's collection limit, before what that
            // block's items hold: a decoder reads them one by one and may materialise items that take no bytes
            // inside them, up to its bound, before the total goes over (found by fuzzing: a `nested` block of
            // 2^31 - 9 arrays, the first holding 1,048,567 nulls, 18 MB, then a count over the limit).
            return AvroLimits.maxZeroByteItems() + 1L;
        }
        return Math.min(w.zeroByteItems, AvroLimits.maxZeroByteItems() + 1L);
    }

    private static final class Stop extends RuntimeException {
        private static final long serialVersionUID = 1L;

        Stop() {
            super(null, null, false, false);
        }
    }

    private void value(Schema s, int depth) {
        if (depth > 200) {
            throw new Stop();
        }
        switch (s.getType()) {
            case NULL:
                return;
            case BOOLEAN:
                need(1);
                p++;
                return;
            case INT:
            case LONG:
            case ENUM:
                varint();
                return;
            case FLOAT:
                need(4);
                p += 4;
                return;
            case DOUBLE:
                need(8);
                p += 8;
                return;
            case FIXED:
                need(s.getFixedSize());
                p += s.getFixedSize();
                return;
            case STRING:
            case BYTES:
                bytes();
                return;
            case UNION: {
                long index = varint();
                List<Schema> branches = s.getTypes();
                if (index < 0 || index >= branches.size()) {
                    throw new Stop();
                }
                value(branches.get((int) index), depth + 1);
                return;
            }
            case RECORD:
                for (Schema.Field f : s.getFields()) {
                    value(f.schema(), depth + 1);
                }
                return;
            case ARRAY:
            case MAP: {
                boolean map = s.getType() == Schema.Type.MAP;
                Schema item = map ? s.getValueType() : s.getElementType();
                for (long count = varint(); count != 0; count = varint()) {
                    if (count < 0) {
                        count = count == Long.MIN_VALUE ? Long.MAX_VALUE : -count;
                        varint(); // the block's byte size: Avro's reader ignores it
                    }
                    if (!map && takesNoBytes(item, 0)) {
                        zeroByteItems = Math.min(zeroByteItems + count, Long.MAX_VALUE / 2);
                    }
                    items += count;
                    if (items > LIMIT || items < 0) {
                        items = Long.MAX_VALUE;
                        throw new Stop();
                    }
                    if (map || !takesNoBytes(item, 0)) {
                        for (long i = 0; i < count; i++) {
                            if (map) {
                                bytes();
                            }
                            value(item, depth + 1);
                        }
                    }
                }
                return;
            }
            default:
                throw new Stop();
        }
    }

    private static boolean takesNoBytes(Schema s, int depth) {
        if (depth > 50) {
            return false;
        }
        switch (s.getType()) {
            case NULL:
                return true;
            case FIXED:
                return s.getFixedSize() == 0;
            case RECORD:
                for (Schema.Field f : s.getFields()) {
                    if (!takesNoBytes(f.schema(), depth + 1)) {
                        return false;
                    }
                }
                return true;
            default:
                return false;
        }
    }

    private void need(int n) {
        if (limit - p < n) {
            throw new Stop();
        }
    }

    private void bytes() {
        long n = varint();
        if (n < 0 || n > limit - p) {
            throw new Stop();
        }
        p += (int) n;
    }

    private long varint() {
        long value = 0;
        for (int shift = 0; shift < 64; shift += 7) {
            need(1);
            int v = b[p++];
            value |= (long) (v & 0x7f) << shift;
            if (v >= 0) {
                return (value >>> 1) ^ -(value & 1);
            }
        }
        throw new Stop();
    }
}
