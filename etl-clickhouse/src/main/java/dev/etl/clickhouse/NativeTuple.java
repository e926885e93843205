package dev.etl.clickhouse;

/** Tuple(T1, …, Tn): each element as a whole column, one after the other. */
final class NativeTuple extends NativeColumn {
    private final NativeColumn[] elements;

    NativeTuple(NativeColumn[] elements) {
        this.elements = elements;
    }

    @Override
    void reset() {
        for (NativeColumn e : elements) {
            e.reset();
        }
    }

    @Override
    void measure(RowBinaryCursor in) {
        for (NativeColumn e : elements) {
            e.measure(in);
        }
    }

    @Override
    void skip(RowBinaryCursor in) {
        for (NativeColumn e : elements) {
            e.skip(in);
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
        long n = 0;
        for (NativeColumn e : elements) {
            n += e.dataBytes();
        }
        return n;
    }

    @Override
    int layout(int start) {
        int at = start;
        for (NativeColumn e : elements) {
            at = e.layout(at);
        }
        return at;
    }

    @Override
    void scatter(RowBinaryCursor in, byte[] out) {
        for (NativeColumn e : elements) {
            e.scatter(in, out);
        }
    }

    @Override
    void finish(byte[] rows, byte[] out) {
        for (NativeColumn e : elements) {
            e.finish(rows, out);
        }
    }
}
