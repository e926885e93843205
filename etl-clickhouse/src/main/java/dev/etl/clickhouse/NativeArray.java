package dev.etl.clickhouse;

/**
 * Array(T), and Map(K, V) as {@code Array(Tuple(K, V))}: per value its cumulative end offset
 * (UInt64), then the elements of every value as one column (a Map: all keys, then all values).
 */
final class NativeArray extends NativeColumn {
    private final NativeColumn[] elements;
    private int count;
    private int offsetCursor;
    private long total;

    /** An Array of {@code element}, or a Map of {@code key, value}. */
    NativeArray(NativeColumn... elements) {
        this.elements = elements;
    }

    @Override
    void reset() {
        count = 0;
        for (NativeColumn e : elements) {
            e.reset();
        }
    }

    @Override
    void measure(RowBinaryCursor in) {
        int n = in.readLength();
        count++;
        NativeColumn[] e = elements;
        if (e.length == 1 && e[0] instanceof Str str) {
            for (int i = 0; i < n; i++) {
                str.measure(in); // Array(String), the common case, inlined
            }
            return;
        }
        for (int i = 0; i < n; i++) {
            for (NativeColumn c : e) {
                c.measure(in);
            }
        }
    }

    @Override
    void skip(RowBinaryCursor in) {
        int n = in.readLength();
        for (int i = 0; i < n; i++) {
            for (NativeColumn c : elements) {
                c.skip(in);
            }
        }
    }

    @Override
    int prefixBytes() {
        int n = 0;
        for (NativeColumn e : elements) {
            n += e.prefixBytes();
        }
        return n;
    }

    @Override
    int writePrefix(byte[] out, int at) {
        for (NativeColumn e : elements) {
            at = e.writePrefix(out, at);
        }
        return at;
    }

    @Override
    long dataBytes() {
        long n = 8L * count;
        for (NativeColumn e : elements) {
            n += e.dataBytes();
        }
        return n;
    }

    @Override
    int layout(int start) {
        offsetCursor = start;
        total = 0;
        int at = start + 8 * count;
        for (NativeColumn e : elements) {
            at = e.layout(at);
        }
        return at;
    }

    @Override
    void scatter(RowBinaryCursor in, byte[] out) {
        int n = in.readLength();
        total += n;
        LONG_LE.set(out, offsetCursor, total);
        offsetCursor += 8;
        NativeColumn[] e = elements;
        if (e.length == 1 && e[0] instanceof Str str) {
            for (int i = 0; i < n; i++) {
                str.scatter(in, out);
            }
            return;
        }
        for (int i = 0; i < n; i++) {
            for (NativeColumn c : e) {
                c.scatter(in, out);
            }
        }
    }

    /** The default loop, repeated so that its call site sees only NativeArray (the JIT inlines it). */
    @Override
    void scatterColumn(RowBinaryCursor in, int[] anchors, int stride, int anchor, int offset, int rows, byte[] out) {
        for (int r = 0, a = anchor; r < rows; r++, a += stride) {
            in.position = anchors[a] + offset;
            scatter(in, out);
        }
    }

    @Override
    void finish(byte[] rows, byte[] out) {
        for (NativeColumn e : elements) {
            e.finish(rows, out);
        }
    }
}
