package dev.etl.clickhouse;

/**
 * A bounds-checked read position in a batch's RowBinary bytes, for the Native transposition
 * ({@link NativeBlockEncoder}). Every read checks the end, so rows that do not match the declared
 * columns fail with a {@link Mismatch} instead of reading past the batch.
 *
 * <p>Reused: {@link #wrap} points it at the next batch. Not thread-safe.
 */
final class RowBinaryCursor {
    byte[] bytes;
    int position;
    int end;

    void wrap(byte[] bytes, int length) {
        this.bytes = bytes;
        this.position = 0;
        this.end = length;
    }

    int remaining() {
        return end - position;
    }

    int readByte() {
        if (position >= end) {
            throw endOfRows(1);
        }
        return bytes[position++] & 0xFF;
    }

    void skip(int n) {
        if (n > end - position) {
            throw endOfRows(n);
        }
        position += n;
    }

    /**
     * A LEB128 length that must fit in what is left of the batch (each counted item takes at least a byte).
     * Compared unsigned: a length of 2^63 or more is a negative long, never a small one.
     */
    int readLength() {
        long n = readVarUInt();
        if (Long.compareUnsigned(n, end - position) > 0) {
            throw new Mismatch("length " + Long.toUnsignedString(n) + " exceeds the " + (end - position)
                    + " bytes left in the batch");
        }
        return (int) n;
    }

    long readVarUInt() {
        long value = 0;
        for (int shift = 0; shift < 64; shift += 7) {
            if (position >= end) {
                throw endOfRows(1);
            }
            int b = bytes[position++];
            if (shift == 63 && (b & 0x7E) != 0) {
                throw new Mismatch("VarUInt overflows 64 bits");
            }
            value |= (long) (b & 0x7F) << shift;
            if (b >= 0) {
                return value;
            }
        }
        throw new Mismatch("VarUInt longer than 10 bytes");
    }

    private Mismatch endOfRows(int needed) {
        return new Mismatch("needs " + needed + " more byte" + (needed == 1 ? "" : "s") + " but the batch ends");
    }

    /**
     * The bytes do not parse as the declared columns. Carries only the problem; the encoder adds the
     * column, the row and the byte offset.
     */
    static final class Mismatch extends RuntimeException {
        private static final long serialVersionUID = 1L;

        Mismatch(String problem) {
            super(problem, null, false, false);
        }
    }
}
