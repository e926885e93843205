package dev.etl.clickhouse;

import java.util.Arrays;

/**
 * LowCardinality(T) in a Native block, T a scalar or Nullable(scalar): a dictionary of the distinct
 * values and one index per value, laid out as ClickHouse itself sends it (verified against 18.16's
 * {@code SELECT … FORMAT Native}):
 *
 * <pre>
 * prefix: UInt64 1                         keys serialization version (SharedDictionariesWithAdditionalKeys)
 * data:   UInt64 flags                      index type (0 UInt8, 1 UInt16, 2 UInt32, 3 UInt64)
 *                                           | HasAdditionalKeys (1 &lt;&lt; 9) | NeedUpdateDictionary (1 &lt;&lt; 10)
 *         UInt64 number of keys, the keys   as a column of T without Nullable
 *         UInt64 number of rows, the indexes
 * </pre>
 *
 * <p>The keys are what the server would send: first the default of T (for Nullable(T) first a
 * placeholder that index 0 means NULL, then the default), then every other distinct value in order
 * of first appearance; the index type is the narrowest that holds the number of keys (UInt8 up to
 * 255 keys, as the server chooses). So the same rows always give the same bytes. With no values (a
 * LowCardinality inside arrays that are all empty) the data is empty, as the server writes it.
 *
 * <p>Values are compared by their RowBinary bytes, kept as spans into the batch (valid until the
 * block is written), in an open-addressing table whose arrays are reused from block to block.
 */
final class NativeLowCardinality extends NativeColumn {
    private static final long HAS_ADDITIONAL_KEYS = 1L << 9;
    private static final long NEED_UPDATE_DICTIONARY = 1L << 10;

    private final boolean nullable;
    /** Width of a fixed-width T, or -1 for String. */
    private final int width;
    /** Keys before the first distinct value: the NULL placeholder (Nullable only) and the default. */
    private final int reserved;

    private int count;
    private int[] indexes = new int[64];
    /** Spans of the distinct values (keys from {@link #reserved} on) in the batch's bytes. */
    private int[] keyFrom = new int[64];

    private int[] keyLength = new int[64];
    private int keys;
    private long keyBytes;
    /** Open addressing: key index + 1, 0 = free; length a power of two, at most half full. */
    private int[] table = new int[128];

    private int start;
    /** The batch whose bytes the key spans point into (set while measuring). */
    private byte[] batch;

    /**
     * @param scalar   T, or the T of Nullable(T): a {@link Fixed} or a {@link Str}
     * @param nullable whether the values are Nullable(T)
     */
    NativeLowCardinality(NativeColumn scalar, boolean nullable) {
        if (!scalar.isScalar()) {
            throw new IllegalArgumentException("LowCardinality wraps a scalar or Nullable(scalar)");
        }
        this.nullable = nullable;
        this.width = scalar instanceof Fixed f ? f.width : -1;
        this.reserved = nullable ? 2 : 1;
    }

    @Override
    void reset() {
        count = 0;
        batch = null;
        if (keys > reserved) {
            Arrays.fill(table, 0);
        }
        keys = reserved;
        keyBytes = (long) reserved * defaultBytes();
    }

    private int defaultBytes() {
        return width < 0 ? 1 : width;
    }

    @Override
    void measure(RowBinaryCursor in) {
        batch = in.bytes;
        int index;
        if (nullable && readNullFlag(in)) {
            index = 0;
        } else {
            int from = in.position;
            if (width < 0) {
                in.skip(in.readLength());
            } else {
                in.skip(width);
            }
            index = indexOf(in.bytes, from, in.position - from);
        }
        if (count == indexes.length) {
            indexes = Arrays.copyOf(indexes, count * 2);
        }
        indexes[count++] = index;
    }

    /** On the wire LowCardinality(T) is T: a value of T, or of Nullable(T). */
    @Override
    void skip(RowBinaryCursor in) {
        if (nullable && readNullFlag(in)) {
            return;
        }
        if (width < 0) {
            in.skip(in.readLength());
        } else {
            in.skip(width);
        }
    }

    private static boolean readNullFlag(RowBinaryCursor in) {
        int flag = in.readByte();
        if (flag > 1) {
            throw new RowBinaryCursor.Mismatch("Nullable flag must be 0 or 1, got " + flag);
        }
        return flag == 1;
    }

    /** The key index of the value at {@code bytes[from, from + length)}, added if new. */
    private int indexOf(byte[] bytes, int from, int length) {
        if (isDefault(bytes, from, length)) {
            return reserved - 1;
        }
        int[] t = table;
        int mask = t.length - 1;
        int slot = hash(bytes, from, length) & mask;
        while (true) {
            int entry = t[slot];
            if (entry == 0) {
                return add(slot, from, length);
            }
            int k = entry - 1;
            int kf = keyFrom[k];
            if (keyLength[k] == length && Arrays.equals(bytes, kf, kf + length, bytes, from, from + length)) {
                return k;
            }
            slot = (slot + 1) & mask;
        }
    }

    private boolean isDefault(byte[] bytes, int from, int length) {
        if (width < 0) {
            return length == 1; // a String of length 0 is its one length byte
        }
        for (int i = from; i < from + length; i++) {
            if (bytes[i] != 0) {
                return false;
            }
        }
        return true;
    }

    private int add(int slot, int from, int length) {
        int k = keys++;
        if (k == keyFrom.length) {
            keyFrom = Arrays.copyOf(keyFrom, k * 2);
            keyLength = Arrays.copyOf(keyLength, k * 2);
        }
        keyFrom[k] = from;
        keyLength[k] = length;
        keyBytes += length;
        table[slot] = k + 1;
        if ((keys - reserved) * 2 > table.length) {
            rehash(table.length * 2);
        }
        return k;
    }

    private void rehash(int capacity) {
        int[] t = new int[capacity];
        int mask = capacity - 1;
        for (int k = reserved; k < keys; k++) {
            int slot = hash(batch, keyFrom[k], keyLength[k]) & mask;
            while (t[slot] != 0) {
                slot = (slot + 1) & mask;
            }
            t[slot] = k + 1;
        }
        table = t;
    }

    private int hash(byte[] b, int from, int length) {
        int h = length;
        int i = from;
        int end = from + length;
        for (; i + 4 <= end; i += 4) {
            h = h * 0x9E3779B1 + (int) INT_LE.get(b, i);
        }
        for (; i < end; i++) {
            h = h * 31 + b[i];
        }
        h ^= h >>> 16;
        h *= 0x85EBCA6B;
        h ^= h >>> 13;
        return h;
    }

    @Override
    int prefixBytes() {
        return 8;
    }

    @Override
    int writePrefix(byte[] out, int at) {
        LONG_LE.set(out, at, 1L);
        return at + 8;
    }

    private int indexWidth() {
        return keys <= 0xFF ? 1 : keys <= 0xFFFF ? 2 : 4;
    }

    @Override
    long dataBytes() {
        return count == 0 ? 0 : 8 + 8 + keyBytes + 8 + (long) count * indexWidth();
    }

    @Override
    int layout(int start) {
        this.start = start;
        return (int) (start + dataBytes());
    }

    @Override
    void scatter(RowBinaryCursor in, byte[] out) {
        // the indexes were taken in pass 1; only step over the value
        if (nullable && readNullFlag(in)) {
            return;
        }
        if (width < 0) {
            in.skip(in.readLength());
        } else {
            in.skip(width);
        }
    }

    /** At the top level nothing is left to do in pass 2: the indexes were taken in pass 1. */
    @Override
    void scatterColumn(RowBinaryCursor in, int[] anchors, int stride, int anchor, int offset, int rows, byte[] out) {}

    @Override
    void finish(byte[] rows, byte[] out) {
        if (count == 0) {
            return;
        }
        int w = indexWidth();
        int at = start;
        LONG_LE.set(out, at, (w == 1 ? 0L : w == 2 ? 1L : 2L) | HAS_ADDITIONAL_KEYS | NEED_UPDATE_DICTIONARY);
        LONG_LE.set(out, at + 8, (long) keys);
        at += 16;
        int d = defaultBytes();
        Arrays.fill(out, at, at + reserved * d, (byte) 0);
        at += reserved * d;
        for (int k = reserved; k < keys; k++) {
            System.arraycopy(rows, keyFrom[k], out, at, keyLength[k]);
            at += keyLength[k];
        }
        LONG_LE.set(out, at, (long) count);
        at += 8;
        int[] idx = indexes;
        switch (w) {
            case 1 -> {
                for (int i = 0; i < count; i++) {
                    out[at++] = (byte) idx[i];
                }
            }
            case 2 -> {
                for (int i = 0; i < count; i++, at += 2) {
                    SHORT_LE.set(out, at, (short) idx[i]);
                }
            }
            default -> {
                for (int i = 0; i < count; i++, at += 4) {
                    INT_LE.set(out, at, idx[i]);
                }
            }
        }
    }
}
