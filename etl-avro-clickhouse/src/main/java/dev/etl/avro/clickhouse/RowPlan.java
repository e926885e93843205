package dev.etl.avro.clickhouse;

import dev.etl.avro.binary.AvroCursor;
import dev.etl.avro.binary.AvroSkipper;
import dev.etl.avro.binary.MalformedAvroException;
import dev.etl.clickhouse.ClickHouseColumn;
import dev.etl.clickhouse.ColumnEncodeException;
import dev.etl.sink.RowBuffer;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.nio.ByteOrder;
import org.apache.avro.Schema;

/**
 * A compiled (writer schema, mapping) pair: one pass over the Avro body in writer order that writes
 * the row's columns in table order. Steps, decided at compile time:
 * <ul>
 * <li>{@code SKIP}: a writer field no column reads (only the writer has it: skipped as Avro skips it; the
 *     reader holds it: passed as Avro decodes it, {@link ResolvedSkip});</li>
 * <li>{@code CONVERT}: the field under the cursor is the next column: convert it straight into the row;</li>
 * <li>{@code MARK}: the field under the cursor is needed by a later column or by several: remember
 *     its position (one int store in the cursor's marks);</li>
 * <li>{@code CONVERT_AT}: the next column's field was passed already: convert it from its mark, then
 *     return to where the cursor was;</li>
 * <li>{@code CONSTANT}: the next column's field is not in the writer schema: the reader default's
 *     bytes, encoded at compile time.</li>
 * </ul>
 * When the table's columns follow the writer's field order (the usual case) every mapped field is a
 * single {@code CONVERT}. Immutable and shared by every lane; the marks live in each lane's cursor.
 */
final class RowPlan implements Plan {
    private static final VarHandle SHORT_LE =
            MethodHandles.byteArrayViewVarHandle(short[].class, ByteOrder.LITTLE_ENDIAN);
    private static final VarHandle INT_LE = MethodHandles.byteArrayViewVarHandle(int[].class, ByteOrder.LITTLE_ENDIAN);
    private static final VarHandle LONG_LE =
            MethodHandles.byteArrayViewVarHandle(long[].class, ByteOrder.LITTLE_ENDIAN);

    static final int SKIP = 0;
    static final int CONVERT = 1;
    static final int MARK = 2;
    static final int CONVERT_AT = 3;
    static final int CONSTANT = 4;
    /** SKIP of a long: one varint. */
    static final int SKIP_VARINT = 5;
    /** SKIP of an int or enum: one varint of at most 5 bytes. */
    static final int SKIP_INT = 8;
    // CONVERT steps of the commonest conversions, run in the loop itself (one switch per field, not two).
    private static final int INT32 = 9;
    private static final int INT_INT64 = 10;
    private static final int INT64 = 11;
    private static final int FLOAT32 = 12;
    private static final int FLOAT64 = 13;
    private static final int STRING = 14;
    private static final int BOOL = 15;
    private static final int UINT64 = 16;
    /** SKIP of a float, double or fixed: {@code marks[i]} bytes. */
    static final int SKIP_BYTES = 6;
    /** SKIP of a string or bytes: a length and that many bytes. */
    static final int SKIP_LENGTH = 7;
    /**
     * SKIP of a value the reader holds where decoding it decides otherwise than skipping it (an enum, an array
     * or map, a branch the reader cannot take): {@code resolved[i]}. Also ScanPlan's.
     */
    static final int SKIP_RESOLVED = 22;

    /** An enum's code into an Enum8 (the conversion's {@code codes} by writer index). */
    private static final int ENUM8 = 17;
    /** An enum's code into an Enum16. */
    private static final int ENUM16 = 18;
    /** A {@code ["null", "string"]} union (either order) into {@code Nullable(String)}. */
    private static final int NULLABLE_STRING = 19;

    private final int[] ops;
    /** MARK and CONVERT_AT: the mark's index. */
    private final int[] marks;
    /** The column a CONVERT, CONVERT_AT or CONSTANT step writes (for messages). */
    private final int[] columnOf;

    private final Conversion[] conversions;
    private final Schema[] skips;
    private final ResolvedSkip[] resolved;
    private final byte[][] constants;
    private final ClickHouseColumn[] columns;
    /**
     * Per step, the most bytes the steps from it on write whatever the input: fixed-width values and
     * constants ({@code rest[ops.length]} is 0). Strings and the steps that write through the
     * {@link RowBuffer} make their own room; see {@link #write}.
     */
    private final int[] rest;

    final int markCount;

    RowPlan(
            int[] ops,
            int[] marks,
            int[] columnOf,
            Conversion[] conversions,
            Schema[] skips,
            ResolvedSkip[] resolved,
            byte[][] constants,
            ClickHouseColumn[] columns,
            int markCount) {
        this.ops = fused(ops, conversions);
        this.marks = marks;
        this.columnOf = columnOf;
        this.conversions = conversions;
        this.skips = skips;
        this.resolved = resolved;
        this.constants = constants;
        this.columns = columns;
        this.markCount = markCount;
        this.rest = new int[ops.length + 1];
        for (int i = ops.length - 1; i >= 0; i--) {
            rest[i] = rest[i + 1] + fixedBytes(this.ops[i], constants[i]);
        }
    }

    private static int[] fused(int[] ops, Conversion[] conversions) {
        int[] fused = ops.clone();
        for (int i = 0; i < fused.length; i++) {
            if (fused[i] != CONVERT) {
                continue;
            }
            Conversion c = conversions[i];
            fused[i] = switch (c.op) {
                case Conversion.OP_INT_TO_INT32 -> INT32;
                case Conversion.OP_INT_TO_INT64 -> INT_INT64;
                case Conversion.OP_LONG_TO_INT64 -> INT64;
                case Conversion.OP_FLOAT_TO_FLOAT32 -> FLOAT32;
                case Conversion.OP_DOUBLE_TO_FLOAT64 -> FLOAT64;
                case Conversion.OP_STRING -> STRING;
                case Conversion.OP_BOOL -> BOOL;
                case Conversion.OP_LONG_TO_UINT64 -> UINT64;
                case Conversion.OP_NULLABLE_STRING -> NULLABLE_STRING;
                case Conversion.OP_ENUM_CODE -> c.width == 1 ? ENUM8 : ENUM16;
                default -> CONVERT;
            };
        }
        return fused;
    }

    /** The bytes a step writes whatever the input, reserved ahead ({@link #rest}); 0 for what reserves its own. */
    private static int fixedBytes(int op, byte[] constant) {
        return switch (op) {
            case INT32, FLOAT32 -> 4;
            case INT_INT64, INT64, UINT64, FLOAT64 -> 8;
            case BOOL, ENUM8, NULLABLE_STRING -> 1;
            case ENUM16 -> 2;
            case CONSTANT -> constant.length;
            default -> 0;
        };
    }

    @Override
    public int markCount() {
        return markCount;
    }

    /**
     * Writes the record's one row from the body under {@code in} (whose marks hold at least {@link #markCount}).
     *
     * <p>The hot loop: the cursor's array, position and limit and the row buffer's array and position
     * are locals, written back only around the steps that go through the cursor's or the buffer's
     * methods (a rare conversion, a schema-interpreted skip, a value whose fast form does not apply:
     * a long varint near the end of the body, a string of 64 bytes or more, anything malformed, which
     * the cursor's methods then report exactly as before). Room in the output is made once for the
     * fixed-width values of the whole row ({@link #rest}) and once per string for its bytes, so a
     * value is written with no capacity check of its own. Varints are read in one 8-byte load, their
     * 7-bit groups gathered without a branch per byte; a one-byte varint (small ints, lengths, union
     * and enum indexes) first, on its own. A string's bytes are copied with {@code System.arraycopy}
     * (measured faster here than copying 8 bytes at a time by hand).
     */
    @Override
    @SuppressWarnings("fallthrough") // NULLABLE_STRING's non-null branch into STRING
    public int write(AvroCursor in, RowBuffer out) {
        final int[] ops = this.ops;
        final int[] rest = this.rest;
        final byte[] b = in.array();
        final int limit = in.limit();
        int p = in.mark();
        out.ensureRemaining(rest[0]);
        byte[] o = out.array();
        int q = out.length();
        int i = 0;
        try {
            for (; i < ops.length; i++) {
                switch (ops[i]) {
                    case INT32:
                    case INT_INT64: {
                        int v;
                        long r = AvroCursor.intAt(b, p, limit);
                        if (r >= 0) {
                            v = (int) r;
                            p = (int) (r >>> 32);
                        } else {
                            in.reset(p);
                            v = in.readInt();
                            p = in.mark();
                        }
                        if (ops[i] == INT32) {
                            INT_LE.set(o, q, v);
                            q += 4;
                        } else {
                            LONG_LE.set(o, q, (long) v);
                            q += 8;
                        }
                        break;
                    }
                    case INT64:
                    case UINT64: {
                        long v;
                        long w;
                        int n;
                        int v0;
                        if (p < limit && (v0 = b[p]) >= 0) {
                            v = (v0 >>> 1) ^ -(v0 & 1);
                            p++;
                        } else if (p <= b.length - 8
                                && (n = AvroCursor.varintLength(w = AvroCursor.word(b, p))) <= 8
                                && n <= limit - p) {
                            v = AvroCursor.varintValue(w, n);
                            v = (v >>> 1) ^ -(v & 1);
                            p += n;
                        } else {
                            in.reset(p);
                            v = in.readLong();
                            p = in.mark();
                        }
                        if (v < 0 && ops[i] == UINT64) {
                            throw conversions[i].outOfRange(v);
                        }
                        LONG_LE.set(o, q, v);
                        q += 8;
                        break;
                    }
                    case FLOAT32:
                        if (limit - p < 4) {
                            in.reset(p);
                            in.readFloat(); // throws: end of body
                        }
                        INT_LE.set(o, q, (int) INT_LE.get(b, p));
                        p += 4;
                        q += 4;
                        break;
                    case FLOAT64:
                        if (limit - p < 8) {
                            in.reset(p);
                            in.readDouble(); // throws: end of body
                        }
                        LONG_LE.set(o, q, (long) LONG_LE.get(b, p));
                        p += 8;
                        q += 8;
                        break;
                    case BOOL: {
                        int v;
                        if (p < limit && ((v = b[p]) & 0xfe) == 0) {
                            p++;
                        } else {
                            in.reset(p);
                            v = in.readBoolean() ? 1 : 0; // throws
                            p = in.mark();
                        }
                        o[q++] = (byte) v;
                        break;
                    }
                    case ENUM8:
                    case ENUM16: {
                        int v;
                        int[] codes = conversions[i].codes;
                        if (p < limit && ((v = b[p]) & 0x81) == 0 && (v >>>= 1) < codes.length) {
                            p++;
                            if (ops[i] == ENUM8) {
                                o[q++] = (byte) codes[v];
                            } else {
                                SHORT_LE.set(o, q, (short) codes[v]);
                                q += 2;
                            }
                        } else {
                            in.reset(p);
                            out.advanceTo(q);
                            conversions[i].write(in, out);
                            p = in.mark();
                            q = out.length();
                            out.ensureRemaining(rest[i + 1]);
                            o = out.array();
                        }
                        break;
                    }
                    case NULLABLE_STRING: {
                        // Branch index 0 or 1 is one byte, 0 or 2; the conversion's size is the null branch.
                        int v;
                        if (p >= limit || ((v = b[p]) & ~2) != 0) {
                            in.reset(p);
                            out.advanceTo(q);
                            conversions[i].write(in, out); // end of body, bad or overlong index
                            p = in.mark();
                            q = out.length();
                            out.ensureRemaining(rest[i + 1]);
                            o = out.array();
                            break;
                        }
                        p++;
                        if (v >>> 1 == conversions[i].size) {
                            o[q++] = 1;
                            break;
                        }
                        o[q++] = 0;
                    }
                    // fall through: the string
                    case STRING: {
                        int v;
                        if (p < limit && ((v = b[p]) & 0x81) == 0 && (v >>>= 1) < limit - p) {
                            // A length below 64: one byte, 0 to 126 even, zig-zag; as LEB128 one byte too.
                            p++;
                            if (o.length - q < 1 + v + rest[i + 1]) {
                                out.advanceTo(q);
                                out.ensureRemaining(1 + v + rest[i + 1]);
                                o = out.array();
                            }
                            o[q++] = (byte) v;
                            System.arraycopy(b, p, o, q, v);
                            p += v;
                            q += v;
                        } else {
                            in.reset(p);
                            out.advanceTo(q);
                            Conversion.copyString(in, out);
                            p = in.mark();
                            q = out.length();
                            out.ensureRemaining(rest[i + 1]);
                            o = out.array();
                        }
                        break;
                    }
                    case SKIP_VARINT:
                        in.reset(p);
                        in.readLong();
                        p = in.mark();
                        break;
                    case SKIP_INT:
                        in.reset(p);
                        in.readInt();
                        p = in.mark();
                        break;
                    case SKIP_BYTES:
                        in.reset(p);
                        in.skip(marks[i]);
                        p = in.mark();
                        break;
                    case SKIP_LENGTH:
                        in.reset(p);
                        in.skipLengthPrefixed();
                        p = in.mark();
                        break;
                    case SKIP:
                        in.reset(p);
                        AvroSkipper.skip(skips[i], in);
                        p = in.mark();
                        break;
                    case SKIP_RESOLVED:
                        in.reset(p);
                        resolved[i].skip(in);
                        p = in.mark();
                        break;
                    case MARK:
                        in.mark(marks[i], p);
                        break;
                    case CONVERT:
                        in.reset(p);
                        out.advanceTo(q);
                        conversions[i].write(in, out);
                        p = in.mark();
                        q = out.length();
                        out.ensureRemaining(rest[i + 1]);
                        o = out.array();
                        break;
                    case CONVERT_AT: {
                        in.reset(in.marked(marks[i]));
                        out.advanceTo(q);
                        conversions[i].write(in, out);
                        q = out.length();
                        out.ensureRemaining(rest[i + 1]);
                        o = out.array();
                        break;
                    }
                    case CONSTANT:
                    default:
                        byte[] c = constants[i];
                        System.arraycopy(c, 0, o, q, c.length);
                        q += c.length;
                }
            }
        } catch (ValueRejected e) {
            throw new ColumnEncodeException(columns[columnOf[i]], e.getMessage(), null);
        }
        in.reset(p);
        out.advanceTo(q);
        if (p != limit) {
            throw new MalformedAvroException(
                    in.remaining() + " trailing byte(s) after the record (body is " + in.length() + " bytes)");
        }
        return 1;
    }

    /** The steps, for tests and {@code toString}: e.g. {@code [CONVERT id, SKIP, MARK 0, CONVERT_AT name]}. */
    @Override
    public String toString() {
        StringBuilder sb = new StringBuilder("[");
        for (int i = 0; i < ops.length; i++) {
            if (i > 0) {
                sb.append(", ");
            }
            switch (ops[i]) {
                case SKIP, SKIP_VARINT, SKIP_INT, SKIP_BYTES, SKIP_LENGTH -> sb.append("SKIP");
                case SKIP_RESOLVED -> sb.append("SKIP (").append(resolved[i]).append(')');
                case CONVERT,
                        INT32,
                        INT_INT64,
                        INT64,
                        FLOAT32,
                        FLOAT64,
                        STRING,
                        BOOL,
                        UINT64,
                        ENUM8,
                        ENUM16,
                        NULLABLE_STRING -> sb.append("CONVERT ").append(columns[columnOf[i]].name());
                case MARK -> sb.append("MARK ").append(marks[i]);
                case CONVERT_AT ->
                    sb.append("CONVERT_AT ").append(marks[i]).append(' ').append(columns[columnOf[i]].name());
                default -> sb.append("CONSTANT ").append(columns[columnOf[i]].name());
            }
        }
        return sb.append(']').toString();
    }
}
