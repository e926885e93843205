package dev.etl.avro.clickhouse;

import dev.etl.avro.binary.AvroCursor;
import dev.etl.avro.binary.AvroSkipper;
import dev.etl.avro.binary.MalformedAvroException;
import dev.etl.sink.RowBuffer;
import org.apache.avro.Schema;

/**
 * One compiled value conversion: reads one Avro value of a writer type (as the reader schema sees
 * it, after promotion) and writes it as one ClickHouse value of a column type. Built by
 * {@link ConversionCompiler}; immutable, so a plan may be shared by every lane.
 *
 * <p>One final class with an opcode rather than a class per conversion: the row loop calls
 * {@link #write} from one call site for every column, which a class hierarchy would make megamorphic;
 * here it stays one monomorphic call and a {@code switch}. Nested values (union branches, array
 * elements) recurse into the same method.
 */
final class Conversion {
    // What is read (writer type → reader type). Integral readers fill a long, floating ones a double.
    static final int READ_INT = 1;
    static final int READ_LONG = 2;
    static final int READ_INT_AS_FLOAT = 3;
    static final int READ_INT_AS_DOUBLE = 4;
    static final int READ_LONG_AS_FLOAT = 5;
    static final int READ_LONG_AS_DOUBLE = 6;
    static final int READ_FLOAT = 7;
    static final int READ_DOUBLE = 8;

    // Whole-value opcodes.
    static final int OP_NUMBER = 1;
    static final int OP_BOOL = 2;
    static final int OP_STRING = 3;
    static final int OP_BYTES_TO_FIXED_STRING = 4;
    static final int OP_FIXED_TO_FIXED_STRING = 5;
    static final int OP_FIXED_TO_STRING = 6;
    static final int OP_ENUM_CODE = 7;
    static final int OP_ENUM_STRING = 8;
    static final int OP_DECIMAL_BYTES = 9;
    static final int OP_DECIMAL_FIXED = 10;
    static final int OP_UUID_STRING = 11;
    static final int OP_UUID_FIXED = 12;
    static final int OP_NULL = 13;
    static final int OP_NOT_NULL = 15;
    static final int OP_UNION = 16;
    static final int OP_ARRAY = 17;
    // Specialisations of OP_NUMBER where the value goes through unchanged (the common columns).
    static final int OP_INT_TO_INT32 = 18;
    static final int OP_INT_TO_INT64 = 19;
    static final int OP_LONG_TO_INT64 = 20;
    static final int OP_FLOAT_TO_FLOAT32 = 21;
    static final int OP_DOUBLE_TO_FLOAT64 = 22;
    static final int OP_LONG_TO_UINT64 = 23;
    /** A {@code ["null", "string"]} (either order) into {@code Nullable(String)}: {@link #size} is the null branch. */
    static final int OP_NULLABLE_STRING = 24;
    /** An Avro map as {@code Map(K, V)}: {@link #children}[0] is the {@link #OP_PAIR} of key and value. */
    static final int OP_MAP = 25;
    /** A map entry: the key ({@link #children}[0]) then the value ({@link #children}[1]). */
    static final int OP_PAIR = 26;
    /** A record as {@code Tuple(...)}: see {@link #tuple}. */
    static final int OP_TUPLE = 27;
    /** A dotted-quad string as IPv4. */
    static final int OP_IPV4_STRING = 28;
    /** A fixed(4) (network order) as IPv4. */
    static final int OP_IPV4_FIXED = 29;
    /** An RFC 4291 text as IPv6. */
    static final int OP_IPV6_STRING = 30;
    /** A fixed(16) (network order) as IPv6. */
    static final int OP_IPV6_FIXED = 31;
    /** A bytes value of 16 bytes (network order) as IPv6. */
    static final int OP_IPV6_BYTES = 32;
    /** A Variant's discriminator {@link #width} (255: NULL), then {@link #children}[0]'s value when there is one. */
    static final int OP_VARIANT = 33;
    /** A union branch another column reads: passed over ({@link #passes}[0] or {@link #skipSchemas}[0]), NULL written. */
    static final int OP_OTHER_BRANCH = 34;

    // How a number is written.
    static final int WRITE_INT = 1;
    static final int WRITE_TIME = 2;
    static final int WRITE_FLOAT32_OF_LONG = 3;
    static final int WRITE_FLOAT64_OF_LONG = 4;
    static final int WRITE_FLOAT32 = 5;
    static final int WRITE_FLOAT64 = 6;

    final int op;
    final int read;
    private final int write;
    /** Bytes written (integers, times, enum codes, decimals); FixedString's n. */
    final int width;
    /** A fixed's size in the writer schema. */
    final int size;

    private final long min;
    private final long max;
    /** Time conversions: multiply by {@code multiplier} when above 1, else floor-divide by {@code divisor}. */
    private final long multiplier;

    private final long divisor;
    /** Enum codes per writer symbol index. */
    final int[] codes;
    /** Enum strings per writer symbol index, already as RowBinary (length + UTF-8). */
    private final byte[][] strings;
    /** Decimal: 10^precision as a big-endian magnitude, for precisions beyond a long. */
    private final byte[] limitMagnitude;
    /** Decimal: precision (digits). */
    private final int precision;
    /** Union branches by writer index; the element of an array; the value under a Nullable. */
    final Conversion[] children;
    /**
     * Tuple: per writer field in writer order, how it is passed over when not written: {@link ResolvedSkip}
     * (the object path decodes it) or, when that is null, {@link AvroSkipper} on {@link #skipSchemas}. The union
     * branch another column reads: element 0.
     */
    private final ResolvedSkip[] passes;

    private final Schema[] skipSchemas;
    /** Tuple: per element, the writer field it is converted from ({@link #children} index), or -1 for a constant. */
    private final int[] elementFields;
    /** Tuple: per element, the RowBinary bytes of the reader default when the writer lacks the field. */
    private final byte[][] constants;
    /** The ClickHouse type written, for messages. */
    final String columnType;

    private Conversion(Builder b) {
        this.op = b.op;
        this.read = b.read;
        this.write = b.write;
        this.width = b.width;
        this.size = b.size;
        this.min = b.min;
        this.max = b.max;
        this.multiplier = b.multiplier;
        this.divisor = b.divisor;
        this.codes = b.codes;
        this.strings = b.strings;
        this.limitMagnitude = b.limitMagnitude;
        this.precision = b.precision;
        this.children = b.children;
        this.passes = b.passes;
        this.skipSchemas = b.skipSchemas;
        this.elementFields = b.elementFields;
        this.constants = b.constants;
        this.columnType = b.columnType;
    }

    static Builder builder(int op, String columnType) {
        return new Builder(op, columnType);
    }

    /**
     * Writes one value. The common cases are here, small enough for the JIT to inline this method
     * into the row loop; the rest is in {@link #writeOther}.
     */
    void write(AvroCursor in, RowBuffer out) {
        switch (op) {
            case OP_INT_TO_INT32:
                out.writeIntLE(in.readInt());
                return;
            case OP_INT_TO_INT64:
                out.writeLongLE(in.readInt());
                return;
            case OP_LONG_TO_INT64:
                out.writeLongLE(in.readLong());
                return;
            case OP_FLOAT_TO_FLOAT32:
                out.writeFloatLE(in.readFloat());
                return;
            case OP_DOUBLE_TO_FLOAT64:
                out.writeDoubleLE(in.readDouble());
                return;
            case OP_LONG_TO_UINT64: {
                long v = in.readLong();
                if (v < 0) {
                    throw outOfRange(v);
                }
                out.writeLongLE(v);
                return;
            }
            case OP_STRING:
                Conversion.copyString(in, out);
                return;
            case OP_NULLABLE_STRING:
                nullableString(in, out);
                return;
            case OP_ENUM_CODE:
                enumCode(in, out);
                return;
            case OP_BOOL:
                out.writeByte(in.readBoolean() ? 1 : 0);
                return;
            case OP_UNION:
                union(in, out);
                return;
            default:
                writeOther(in, out);
        }
    }

    private void nullableString(AvroCursor in, RowBuffer out) {
        int at = in.position();
        int index = in.readInt();
        if (index == size) {
            out.writeByte(1);
        } else if (index == 1 - size) {
            out.writeByte(0);
            Conversion.copyString(in, out);
        } else {
            throw new MalformedAvroException(
                    "union index " + index + " at byte " + at + " out of range for 2 branches");
        }
    }

    private void enumCode(AvroCursor in, RowBuffer out) {
        int index = enumIndex(in, codes.length);
        if (width == 1) {
            out.writeByte(codes[index]);
        } else {
            out.writeShortLE(codes[index]);
        }
    }

    ValueRejected outOfRange(long value) {
        return new ValueRejected("value " + value + " out of range for " + columnType + " [" + min + ", " + max + "]");
    }

    private void union(AvroCursor in, RowBuffer out) {
        int at = in.position();
        int index = in.readInt();
        if (index < 0 || index >= children.length) {
            throw new MalformedAvroException(
                    "union index " + index + " at byte " + at + " out of range for " + children.length + " branches");
        }
        children[index].write(in, out);
    }

    private void writeOther(AvroCursor in, RowBuffer out) {
        switch (op) {
            case OP_NUMBER:
                number(in, out);
                return;
            case OP_BYTES_TO_FIXED_STRING: {
                int length = in.readLength();
                if (length > width) {
                    in.skip(length);
                    throw new ValueRejected(length + " bytes do not fit " + columnType);
                }
                Conversion.copy(in, length, out);
                pad(out, width - length);
                return;
            }
            case OP_FIXED_TO_FIXED_STRING:
                Conversion.copy(in, size, out);
                pad(out, width - size);
                return;
            case OP_FIXED_TO_STRING:
                out.writeVarUInt(size);
                Conversion.copy(in, size, out);
                return;
            case OP_ENUM_STRING: {
                byte[] s = strings[enumIndex(in, strings.length)];
                out.writeBytes(s, 0, s.length);
                return;
            }
            case OP_DECIMAL_BYTES:
                Decimals.write(in, in.readLength(), width, precision, limitMagnitude, columnType, out);
                return;
            case OP_DECIMAL_FIXED:
                in.require(size);
                Decimals.write(in, size, width, precision, limitMagnitude, columnType, out);
                return;
            case OP_UUID_STRING:
                UuidText.write(in, out);
                return;
            case OP_UUID_FIXED:
                in.require(16);
                out.writeLongLE(in.peekLongBE(0));
                out.writeLongLE(in.peekLongBE(8));
                in.skip(16);
                return;
            case OP_NULL:
                out.writeByte(1);
                return;
            case OP_NOT_NULL:
                out.writeByte(0);
                children[0].write(in, out);
                return;
            case OP_ARRAY, OP_MAP:
                ArrayBlocks.write(children[0], in, out);
                return;
            case OP_PAIR:
                children[0].write(in, out);
                children[1].write(in, out);
                return;
            case OP_TUPLE:
                tuple(in, out);
                return;
            case OP_IPV4_STRING:
                IpText.writeIpv4(in, out);
                return;
            case OP_IPV4_FIXED:
                in.require(4);
                out.writeIntLE((in.peek(0) & 0xff) << 24
                        | (in.peek(1) & 0xff) << 16
                        | (in.peek(2) & 0xff) << 8
                        | in.peek(3) & 0xff);
                in.skip(4);
                return;
            case OP_IPV6_STRING:
                IpText.writeIpv6(in, out);
                return;
            case OP_IPV6_BYTES: {
                int at = in.position();
                int length = in.readLength();
                if (length != 16) {
                    in.skip(length);
                    throw new ValueRejected(
                            "an IPv6 address of " + length + " bytes at byte " + at + " (expected 16, network order)");
                }
                Conversion.copy(in, 16, out);
                return;
            }
            case OP_IPV6_FIXED:
                Conversion.copy(in, 16, out);
                return;
            case OP_VARIANT:
                out.writeByte(width);
                if (children != null) {
                    children[0].write(in, out);
                }
                return;
            case OP_OTHER_BRANCH:
                pass(0, in);
                out.writeByte(1);
                return;
            default:
                throw new IllegalStateException("opcode " + op);
        }
    }

    /**
     * A record as a Tuple: the elements in the tuple's order, each converted from its writer field (or a
     * reader default's constant). Avro writes the fields in writer order without framing, so an element whose
     * field comes before the one just written is found again from the record's start; the common case (the
     * elements in writer order) is one pass. Writer fields no element reads are passed over as the object path
     * decides ({@link #passes}).
     */
    private void tuple(AvroCursor in, RowBuffer out) {
        int start = in.mark();
        int next = 0; // the writer field at the cursor
        for (int e = 0; e < elementFields.length; e++) {
            int k = elementFields[e];
            if (k < 0) {
                byte[] c = constants[e];
                out.writeBytes(c, 0, c.length);
                continue;
            }
            if (k < next) {
                in.reset(start);
                next = 0;
            }
            while (next < k) {
                pass(next++, in);
            }
            children[k].write(in, out);
            next = k + 1;
        }
        while (next < skipSchemas.length) {
            pass(next++, in);
        }
    }

    private void pass(int field, AvroCursor in) {
        ResolvedSkip resolved = passes[field];
        if (resolved != null) {
            resolved.skip(in);
        } else {
            AvroSkipper.skip(skipSchemas[field], in);
        }
    }

    private void number(AvroCursor in, RowBuffer out) {
        long l = 0;
        double d = 0;
        switch (read) {
            case READ_INT:
                l = in.readInt();
                break;
            case READ_LONG:
                l = in.readLong();
                break;
            case READ_INT_AS_FLOAT:
                d = (float) in.readInt();
                break;
            case READ_INT_AS_DOUBLE:
                d = in.readInt();
                break;
            case READ_LONG_AS_FLOAT:
                d = (float) in.readLong();
                break;
            case READ_LONG_AS_DOUBLE:
                d = in.readLong();
                break;
            case READ_FLOAT:
                d = in.readFloat();
                break;
            case READ_DOUBLE:
                d = in.readDouble();
                break;
            default:
                throw new IllegalStateException("read " + read);
        }
        switch (write) {
            case WRITE_INT:
                writeInt(l, out);
                return;
            case WRITE_TIME:
                long ticks;
                if (multiplier > 1) {
                    long high = Math.multiplyHigh(l, multiplier);
                    ticks = l * multiplier;
                    if (high != (ticks >> 63)) {
                        throw new ValueRejected("value " + l + " overflows " + columnType);
                    }
                } else {
                    ticks = Math.floorDiv(l, divisor);
                }
                writeInt(ticks, out);
                return;
            case WRITE_FLOAT32_OF_LONG:
                out.writeFloatLE((float) l);
                return;
            case WRITE_FLOAT64_OF_LONG:
                out.writeDoubleLE((double) l);
                return;
            case WRITE_FLOAT32:
                out.writeFloatLE((float) d);
                return;
            case WRITE_FLOAT64:
                out.writeDoubleLE(d);
                return;
            default:
                throw new IllegalStateException("write " + write);
        }
    }

    private void writeInt(long value, RowBuffer out) {
        if (value < min || value > max) {
            throw outOfRange(value);
        }
        switch (width) {
            case 1:
                out.writeByte((int) value);
                return;
            case 2:
                out.writeShortLE((int) value);
                return;
            case 4:
                out.writeIntLE((int) value);
                return;
            default:
                out.writeLongLE(value);
        }
    }

    private static int enumIndex(AvroCursor in, int symbols) {
        int at = in.position();
        int index = in.readInt();
        if (index < 0 || index >= symbols) {
            throw new MalformedAvroException(
                    "enum index " + index + " at byte " + at + " out of range for " + symbols + " symbols");
        }
        return index;
    }

    private static void pad(RowBuffer out, int n) {
        for (int i = 0; i < n; i++) {
            out.writeByte(0);
        }
    }

    /**
     * Skips the value this conversion would read, without writing (counting a multi-block array): a switch on
     * the same opcode as {@link #write}, recursing into union branches, the value under a Nullable and array
     * elements.
     */
    void skip(AvroCursor in) {
        switch (op) {
            case OP_NUMBER:
                switch (read) {
                    case READ_INT, READ_INT_AS_FLOAT, READ_INT_AS_DOUBLE -> in.readInt();
                    case READ_LONG, READ_LONG_AS_FLOAT, READ_LONG_AS_DOUBLE -> in.readLong();
                    case READ_FLOAT -> in.skip(4);
                    default -> in.skip(8);
                }
                return;
            case OP_INT_TO_INT32, OP_INT_TO_INT64:
                in.readInt();
                return;
            case OP_LONG_TO_INT64, OP_LONG_TO_UINT64:
                in.readLong();
                return;
            case OP_NULLABLE_STRING:
                if (in.readInt() != size) {
                    in.skipLengthPrefixed();
                }
                return;
            case OP_FLOAT_TO_FLOAT32:
                in.skip(4);
                return;
            case OP_DOUBLE_TO_FLOAT64:
                in.skip(8);
                return;
            case OP_BOOL:
                in.readBoolean();
                return;
            case OP_STRING, OP_BYTES_TO_FIXED_STRING, OP_DECIMAL_BYTES, OP_UUID_STRING:
                in.skipLengthPrefixed();
                return;
            case OP_FIXED_TO_FIXED_STRING, OP_FIXED_TO_STRING, OP_DECIMAL_FIXED:
                in.skip(size);
                return;
            case OP_UUID_FIXED, OP_IPV6_FIXED:
                in.skip(16);
                return;
            case OP_IPV4_FIXED:
                in.skip(4);
                return;
            case OP_IPV4_STRING, OP_IPV6_STRING, OP_IPV6_BYTES:
                in.skipLengthPrefixed();
                return;
            case OP_PAIR:
                children[0].skip(in);
                children[1].skip(in);
                return;
            case OP_TUPLE:
                for (int k = 0; k < skipSchemas.length; k++) {
                    pass(k, in);
                }
                return;
            case OP_VARIANT:
                if (children != null) {
                    children[0].skip(in);
                }
                return;
            case OP_OTHER_BRANCH:
                pass(0, in);
                return;
            case OP_ENUM_CODE, OP_ENUM_STRING:
                in.readInt();
                return;
            case OP_NULL:
                return;
            case OP_NOT_NULL:
                children[0].skip(in);
                return;
            case OP_UNION: {
                int index = in.readInt();
                if (index < 0 || index >= children.length) {
                    throw new MalformedAvroException(
                            "union index " + index + " out of range for " + children.length + " branches");
                }
                children[index].skip(in);
                return;
            }
            case OP_ARRAY, OP_MAP: {
                // Item by item, a block's byte size ignored: what the conversion reads afterwards (ArrayBlocks
                // counts an array in several blocks with this, then writes it) and what Avro decodes.
                long total = 0;
                for (long n = in.blockCount(total); n != 0; n = in.blockCount(total)) {
                    total += n;
                    int from = in.mark();
                    children[0].skip(in);
                    if (in.zeroByteItems(from, n)) {
                        continue; // the rest of the block takes no bytes either: nothing to skip
                    }
                    for (long i = 1; i < n; i++) {
                        children[0].skip(in);
                    }
                }
                return;
            }
            default:
                throw new IllegalStateException("opcode " + op);
        }
    }

    /** Collects a conversion's parameters for {@link ConversionCompiler}; {@link #build} picks a specialised opcode. */
    static final class Builder {
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
        ResolvedSkip[] passes;
        Schema[] skipSchemas;
        int[] elementFields;
        byte[][] constants;

        private Builder(int op, String columnType) {
            this.op = op;
            this.columnType = columnType;
        }

        Builder read(int read) {
            this.read = read;
            return this;
        }

        Builder write(int write) {
            this.write = write;
            return this;
        }

        Builder width(int width) {
            this.width = width;
            return this;
        }

        Builder size(int size) {
            this.size = size;
            return this;
        }

        Builder range(long min, long max) {
            this.min = min;
            this.max = max;
            return this;
        }

        Builder scale(long multiplier, long divisor) {
            this.multiplier = multiplier;
            this.divisor = divisor;
            return this;
        }

        Builder codes(int[] codes) {
            this.codes = codes;
            return this;
        }

        Builder strings(byte[][] strings) {
            this.strings = strings;
            return this;
        }

        Builder decimal(int precision, byte[] limitMagnitude) {
            this.precision = precision;
            this.limitMagnitude = limitMagnitude;
            return this;
        }

        Builder children(Conversion... children) {
            this.children = children;
            return this;
        }

        /** How writer fields (a tuple's) or a value (another union branch) are passed over; see {@link #passes}. */
        Builder passes(ResolvedSkip[] passes, Schema[] skipSchemas) {
            this.passes = passes;
            this.skipSchemas = skipSchemas;
            return this;
        }

        Builder elements(int[] elementFields, byte[][] constants) {
            this.elementFields = elementFields;
            this.constants = constants;
            return this;
        }

        Conversion build() {
            if (op == OP_UNION && children.length == 2) {
                for (int nul = 0; nul < 2; nul++) {
                    if (children[nul].op == OP_NULL
                            && children[1 - nul].op == OP_NOT_NULL
                            && children[1 - nul].children[0].op == OP_STRING) {
                        Builder b = new Builder(OP_NULLABLE_STRING, columnType);
                        b.size = nul;
                        return new Conversion(b);
                    }
                }
            }
            if (op == OP_NUMBER) {
                int plain = plain();
                if (plain != 0) {
                    Builder b = new Builder(plain, columnType);
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

    /** Avro string or bytes → ClickHouse String: the same bytes behind a LEB128 length, array to array. */
    static void copyString(AvroCursor in, RowBuffer out) {
        int length = in.readLength();
        int from = in.mark();
        out.writeVarUInt(length);
        out.writeBytes(in.array(), from, length);
        in.reset(from + length);
    }

    /** Copies {@code length} raw bytes (a fixed). */
    static void copy(AvroCursor in, int length, RowBuffer out) {
        in.require(length);
        int from = in.mark();
        out.writeBytes(in.array(), from, length);
        in.reset(from + length);
    }
}
