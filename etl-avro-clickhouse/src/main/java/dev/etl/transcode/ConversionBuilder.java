package dev.etl.transcode;

import static dev.etl.transcode.Conversion.*;

/** Collects a {@link Conversion}'s parameters; only {@link ConversionCompiler} uses it. */
final class ConversionBuilder {
    final int op;
    final String columnType;
    int read;
    int write;
    int width;
    int size;
    long min = Long.MIN_VALUE;
    long max = Long.MAX_VALUE;
    long multiplier = 1;
    long divisor = 1;
    int[] codes;
    byte[][] strings;
    byte[] limitMagnitude;
    int precision;
    Conversion[] children;

    ConversionBuilder(int op, String columnType) {
        this.op = op;
        this.columnType = columnType;
    }

    ConversionBuilder read(int read) {
        this.read = read;
        return this;
    }

    ConversionBuilder write(int write) {
        this.write = write;
        return this;
    }

    ConversionBuilder width(int width) {
        this.width = width;
        return this;
    }

    ConversionBuilder size(int size) {
        this.size = size;
        return this;
    }

    ConversionBuilder range(long min, long max) {
        this.min = min;
        this.max = max;
        return this;
    }

    ConversionBuilder scale(long multiplier, long divisor) {
        this.multiplier = multiplier;
        this.divisor = divisor;
        return this;
    }

    ConversionBuilder codes(int[] codes) {
        this.codes = codes;
        return this;
    }

    ConversionBuilder strings(byte[][] strings) {
        this.strings = strings;
        return this;
    }

    ConversionBuilder decimal(int precision, byte[] limitMagnitude) {
        this.precision = precision;
        this.limitMagnitude = limitMagnitude;
        return this;
    }

    ConversionBuilder children(Conversion... children) {
        this.children = children;
        return this;
    }

    Conversion build() {
        if (op == OP_UNION && children.length == 2) {
            for (int nul = 0; nul < 2; nul++) {
                if (children[nul].op == OP_NULL
                        && children[1 - nul].op == OP_NOT_NULL
                        && children[1 - nul].children[0].op == OP_STRING) {
                    ConversionBuilder b = new ConversionBuilder(OP_NULLABLE_STRING, columnType);
                    b.size = nul;
                    return new Conversion(b);
                }
            }
        }
        if (op == OP_NUMBER) {
            int plain = plain();
            if (plain != 0) {
                ConversionBuilder b = new ConversionBuilder(plain, columnType);
                b.read = read;
                b.write = write;
                b.width = width;
                b.min = min;
                b.max = max;
                return new Conversion(b);
            }
        }
        return new Conversion(this);
    }

    /** The specialised opcode when the number is written unchanged and needs no range check, else 0. */
    private int plain() {
        boolean unchecked = min == Long.MIN_VALUE && max == Long.MAX_VALUE
                || read == READ_INT && min <= Integer.MIN_VALUE && max >= Integer.MAX_VALUE;
        if (write == WRITE_INT && unchecked) {
            if (read == READ_INT) {
                return width == 4 ? OP_INT_TO_INT32 : width == 8 ? OP_INT_TO_INT64 : 0;
            }
            return read == READ_LONG && width == 8 ? OP_LONG_TO_INT64 : 0;
        }
        if (write == WRITE_INT && read == READ_LONG && width == 8 && min == 0 && max == Long.MAX_VALUE) {
            return OP_LONG_TO_UINT64;
        }
        if (write == WRITE_FLOAT32 && read == READ_FLOAT) {
            return OP_FLOAT_TO_FLOAT32;
        }
        if (write == WRITE_FLOAT64 && read == READ_DOUBLE) {
            return OP_DOUBLE_TO_FLOAT64;
        }
        return 0;
    }
}
