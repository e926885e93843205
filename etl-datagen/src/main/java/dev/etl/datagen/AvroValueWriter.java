package dev.etl.datagen;

import org.apache.avro.Schema;

/**
 * One node of a compiled schema: writes a random value of its type, in Avro binary, into the record's
 * buffer. {@link #compile(Schema)} builds the tree once; the writers are immutable, so one tree serves
 * every lane, and they allocate nothing.
 */
abstract class AvroValueWriter {
    /** 2026-01-01T00:00:00Z: the start of the default range of dates and timestamps (one year). */
    static final long BASE_EPOCH_MS = 1_767_225_600_000L;

    static final int BASE_EPOCH_DAYS = 20_454;
    static final long YEAR_MS = 365L * 86_400_000L;

    abstract void write(DatagenRandom random, GeneratedRecord record, RecordBytes out);

    static AvroValueWriter compile(Schema schema) {
        return new AvroSchemaCompiler().compile(schema, AvroHints.NONE, schema.getFullName(), true);
    }

    /** Inclusive {@code [min, max]} for any longs. */
    static long between(DatagenRandom random, long min, long max) {
        if (max == Long.MAX_VALUE) {
            return min == Long.MIN_VALUE ? random.nextLong() : random.nextLong(min - 1, max) + 1;
        }
        return random.nextLong(min, max + 1);
    }

    // ------------------------------------------------------------------ the writers

    static final AvroValueWriter NULL = new AvroValueWriter() {
        @Override
        void write(DatagenRandom random, GeneratedRecord record, RecordBytes out) {}
    };

    static final AvroValueWriter BOOLEAN = new AvroValueWriter() {
        @Override
        void write(DatagenRandom random, GeneratedRecord record, RecordBytes out) {
            out.writeAvroBoolean(random.nextBoolean());
        }
    };

    static final AvroValueWriter UUID = new AvroValueWriter() {
        @Override
        void write(DatagenRandom random, GeneratedRecord record, RecordBytes out) {
            out.writeAvroLong(36);
            out.writeUuidText(random);
        }
    };

    static final AvroValueWriter ID_LONG = new AvroValueWriter() {
        @Override
        void write(DatagenRandom random, GeneratedRecord record, RecordBytes out) {
            out.writeAvroLong(record.id());
        }
    };

    static final AvroValueWriter ID_INT = new AvroValueWriter() {
        @Override
        void write(DatagenRandom random, GeneratedRecord record, RecordBytes out) {
            out.writeAvroInt((int) record.id());
        }
    };

    static final AvroValueWriter SEQUENCE_LONG = new AvroValueWriter() {
        @Override
        void write(DatagenRandom random, GeneratedRecord record, RecordBytes out) {
            out.writeAvroLong(record.sequence());
        }
    };

    static final AvroValueWriter SEQUENCE_INT = new AvroValueWriter() {
        @Override
        void write(DatagenRandom random, GeneratedRecord record, RecordBytes out) {
            out.writeAvroInt((int) record.sequence());
        }
    };

    static final AvroValueWriter PARTITION_LONG = new AvroValueWriter() {
        @Override
        void write(DatagenRandom random, GeneratedRecord record, RecordBytes out) {
            out.writeAvroLong(record.partition());
        }
    };

    static final AvroValueWriter PARTITION_INT = new AvroValueWriter() {
        @Override
        void write(DatagenRandom random, GeneratedRecord record, RecordBytes out) {
            out.writeAvroInt(record.partition());
        }
    };

    static final class IntWriter extends AvroValueWriter {
        private final int min;
        private final int max;

        IntWriter(int min, int max) {
            this.min = min;
            this.max = max;
        }

        @Override
        void write(DatagenRandom random, GeneratedRecord record, RecordBytes out) {
            out.writeAvroInt((int) between(random, min, max));
        }
    }

    static final class LongWriter extends AvroValueWriter {
        private final long min;
        private final long max;

        LongWriter(long min, long max) {
            this.min = min;
            this.max = max;
        }

        @Override
        void write(DatagenRandom random, GeneratedRecord record, RecordBytes out) {
            out.writeAvroLong(between(random, min, max));
        }
    }

    /** One of a list of whole numbers, as an Avro int or long (the same varint) or an enum index. */
    static final class PickLongWriter extends AvroValueWriter {
        private final long[] values;

        PickLongWriter(long[] values) {
            this.values = values;
        }

        @Override
        void write(DatagenRandom random, GeneratedRecord record, RecordBytes out) {
            // an int's zig-zag varint equals its long's, so one writer serves int, long and enum
            out.writeAvroLong(values[random.nextInt(values.length)]);
        }
    }

    static final class DoubleWriter extends AvroValueWriter {
        private final double min;
        private final double max;
        private final boolean isFloat;

        DoubleWriter(double min, double max, boolean isFloat) {
            this.min = min;
            this.max = max;
            this.isFloat = isFloat;
        }

        @Override
        void write(DatagenRandom random, GeneratedRecord record, RecordBytes out) {
            double value = min == max ? min : random.nextDouble(min, max);
            if (isFloat) {
                out.writeAvroFloat((float) value);
            } else {
                out.writeAvroDouble(value);
            }
        }
    }

    static final class PickDoubleWriter extends AvroValueWriter {
        private final double[] values;
        private final boolean isFloat;

        PickDoubleWriter(double[] values, boolean isFloat) {
            this.values = values;
            this.isFloat = isFloat;
        }

        @Override
        void write(DatagenRandom random, GeneratedRecord record, RecordBytes out) {
            double value = values[random.nextInt(values.length)];
            if (isFloat) {
                out.writeAvroFloat((float) value);
            } else {
                out.writeAvroDouble(value);
            }
        }
    }

    static final class StringWriter extends AvroValueWriter {
        private final int minLength;
        private final int maxLength;

        StringWriter(int minLength, int maxLength) {
            this.minLength = minLength;
            this.maxLength = maxLength;
        }

        @Override
        void write(DatagenRandom random, GeneratedRecord record, RecordBytes out) {
            int length = minLength == maxLength ? minLength : random.nextInt(minLength, maxLength + 1);
            out.writeAvroLong(length);
            out.writeAlphanumeric(random, length);
        }
    }

    static final class BytesWriter extends AvroValueWriter {
        private final int minLength;
        private final int maxLength;

        BytesWriter(int minLength, int maxLength) {
            this.minLength = minLength;
            this.maxLength = maxLength;
        }

        @Override
        void write(DatagenRandom random, GeneratedRecord record, RecordBytes out) {
            int length = minLength == maxLength ? minLength : random.nextInt(minLength, maxLength + 1);
            out.writeAvroLong(length);
            out.writeRandomBytes(random, length);
        }
    }

    /** One of a list of strings (or bytes), pre-encoded with their length prefix. */
    static final class PickBytesWriter extends AvroValueWriter {
        private final byte[][] encoded;

        PickBytesWriter(byte[][] encoded) {
            this.encoded = encoded;
        }

        @Override
        void write(DatagenRandom random, GeneratedRecord record, RecordBytes out) {
            out.writeBytes(encoded[random.nextInt(encoded.length)]);
        }
    }

    static final class FixedWriter extends AvroValueWriter {
        private final int size;

        FixedWriter(int size) {
            this.size = size;
        }

        @Override
        void write(DatagenRandom random, GeneratedRecord record, RecordBytes out) {
            out.writeRandomBytes(random, size);
        }
    }

    /**
     * A non-negative decimal with at most {@code precision} digits (and at most 18, a long), as Avro's
     * big-endian two's-complement unscaled value: minimal bytes for {@code bytes}, sign-extended to the
     * size for {@code fixed} (and fewer digits when the fixed is too small for them).
     */
    static final class DecimalWriter extends AvroValueWriter {
        private final long bound;
        private final int fixedSize;

        DecimalWriter(int precision, int fixedSize) {
            int digits = Math.min(precision, 18);
            long bound = 1;
            for (int i = 0; i < digits; i++) {
                bound *= 10;
            }
            if (fixedSize > 0 && fixedSize < 8) {
                long max = (1L << (8 * fixedSize - 1)) - 1; // largest positive value that fits
                while (bound - 1 > max) {
                    bound /= 10;
                }
            }
            this.bound = Math.max(1, bound);
            this.fixedSize = fixedSize;
        }

        @Override
        void write(DatagenRandom random, GeneratedRecord record, RecordBytes out) {
            long unscaled = random.nextLong(bound);
            int size;
            if (fixedSize > 0) {
                size = fixedSize;
            } else {
                size = (64 - Long.numberOfLeadingZeros(unscaled)) / 8 + 1; // room for the sign bit
                out.writeAvroLong(size);
            }
            for (int i = size - 1; i >= 0; i--) {
                out.writeByte(i >= 8 ? 0 : (int) (unscaled >>> (8 * i)));
            }
        }
    }

    static final class ArrayWriter extends AvroValueWriter {
        private final int minLength;
        private final int maxLength;
        private final AvroValueWriter item;

        ArrayWriter(int minLength, int maxLength, AvroValueWriter item) {
            this.minLength = minLength;
            this.maxLength = maxLength;
            this.item = item;
        }

        @Override
        void write(DatagenRandom random, GeneratedRecord record, RecordBytes out) {
            int n = minLength == maxLength ? minLength : random.nextInt(minLength, maxLength + 1);
            if (n > 0) {
                out.writeAvroLong(n);
                for (int i = 0; i < n; i++) {
                    item.write(random, record, out);
                }
            }
            out.writeByte(0); // end of blocks
        }
    }

    static final class MapWriter extends AvroValueWriter {
        private final int minLength;
        private final int maxLength;
        private final AvroValueWriter value;

        MapWriter(int minLength, int maxLength, AvroValueWriter value) {
            this.minLength = minLength;
            this.maxLength = maxLength;
            this.value = value;
        }

        @Override
        void write(DatagenRandom random, GeneratedRecord record, RecordBytes out) {
            int n = minLength == maxLength ? minLength : random.nextInt(minLength, maxLength + 1);
            if (n > 0) {
                out.writeAvroLong(n);
                for (int i = 0; i < n; i++) {
                    int keyLength = random.nextInt(1, 9);
                    out.writeAvroLong(keyLength);
                    out.writeAlphanumeric(random, keyLength);
                    value.write(random, record, out);
                }
            }
            out.writeByte(0);
        }
    }

    static final class UnionWriter extends AvroValueWriter {
        private final int nullIndex;
        private final double nullProbability;
        private final int[] indexes;
        private final AvroValueWriter[] writers;

        UnionWriter(int nullIndex, double nullProbability, int[] indexes, AvroValueWriter[] writers) {
            this.nullIndex = nullIndex;
            this.nullProbability = nullProbability;
            this.indexes = indexes;
            this.writers = writers;
        }

        @Override
        void write(DatagenRandom random, GeneratedRecord record, RecordBytes out) {
            if (nullIndex >= 0
                    && (nullProbability >= 1 || (nullProbability > 0 && random.nextBoolean(nullProbability)))) {
                out.writeAvroInt(nullIndex);
                return;
            }
            int k = writers.length == 1 ? 0 : random.nextInt(writers.length);
            out.writeAvroInt(indexes[k]);
            writers[k].write(random, record, out);
        }
    }

    static final class RecordWriter extends AvroValueWriter {
        private final AvroValueWriter[] fields;

        RecordWriter(AvroValueWriter[] fields) {
            this.fields = fields;
        }

        @Override
        void write(DatagenRandom random, GeneratedRecord record, RecordBytes out) {
            AvroValueWriter[] f = fields;
            for (int i = 0; i < f.length; i++) {
                f[i].write(random, record, out);
            }
        }
    }
}
