package dev.etl.transcode;

import dev.etl.clickhouse.ClickHouseColumn;
import dev.etl.clickhouse.ColumnEncodeException;
import dev.etl.sink.RowBuffer;
import org.apache.avro.Schema;

/**
 * A compiled (writer schema, mapping) pair: one pass over the Avro body in writer order that writes
 * the row's columns in table order. Steps, decided at compile time:
 * <ul>
 * <li>{@code SKIP}: a writer field no column reads;</li>
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

    private final int[] ops;
    /** MARK and CONVERT_AT: the mark's index. */
    private final int[] marks;
    /** The column a CONVERT, CONVERT_AT or CONSTANT step writes (for messages). */
    private final int[] columnOf;

    private final Conversion[] conversions;
    private final Schema[] skips;
    private final byte[][] constants;
    private final ClickHouseColumn[] columns;
    final int markCount;

    RowPlan(
            int[] ops,
            int[] marks,
            int[] columnOf,
            Conversion[] conversions,
            Schema[] skips,
            byte[][] constants,
            ClickHouseColumn[] columns,
            int markCount) {
        this.ops = fused(ops, conversions);
        this.marks = marks;
        this.columnOf = columnOf;
        this.conversions = conversions;
        this.skips = skips;
        this.constants = constants;
        this.columns = columns;
        this.markCount = markCount;
    }

    private static int[] fused(int[] ops, Conversion[] conversions) {
        int[] fused = ops.clone();
        for (int i = 0; i < fused.length; i++) {
            if (fused[i] != CONVERT) {
                continue;
            }
            fused[i] = switch (conversions[i].op) {
                case Conversion.OP_INT_TO_INT32 -> INT32;
                case Conversion.OP_INT_TO_INT64 -> INT_INT64;
                case Conversion.OP_LONG_TO_INT64 -> INT64;
                case Conversion.OP_FLOAT_TO_FLOAT32 -> FLOAT32;
                case Conversion.OP_DOUBLE_TO_FLOAT64 -> FLOAT64;
                case Conversion.OP_STRING -> STRING;
                case Conversion.OP_BOOL -> BOOL;
                case Conversion.OP_LONG_TO_UINT64 -> UINT64;
                default -> CONVERT;
            };
        }
        return fused;
    }

    @Override
    public int markCount() {
        return markCount;
    }

    /** Writes the record's one row from the body under {@code in} (whose marks hold at least {@link #markCount}). */
    @Override
    public int write(AvroCursor in, RowBuffer out) {
        int[] ops = this.ops;
        int i = 0;
        try {
            for (; i < ops.length; i++) {
                switch (ops[i]) {
                    case INT32:
                        out.writeIntLE(in.readInt());
                        break;
                    case INT_INT64:
                        out.writeLongLE(in.readInt());
                        break;
                    case INT64:
                        out.writeLongLE(in.readLong());
                        break;
                    case FLOAT32:
                        out.writeFloatLE(in.readFloat());
                        break;
                    case FLOAT64:
                        out.writeDoubleLE(in.readDouble());
                        break;
                    case STRING:
                        in.copyString(out);
                        break;
                    case BOOL:
                        out.writeByte(in.readBoolean() ? 1 : 0);
                        break;
                    case UINT64: {
                        long v = in.readLong();
                        if (v < 0) {
                            throw conversions[i].outOfRange(v);
                        }
                        out.writeLongLE(v);
                        break;
                    }
                    case SKIP_VARINT:
                        in.readLong();
                        break;
                    case SKIP_INT:
                        in.readInt();
                        break;
                    case SKIP_BYTES:
                        in.skip(marks[i]);
                        break;
                    case SKIP_LENGTH:
                        in.skipLengthPrefixed();
                        break;
                    case SKIP:
                        AvroSkip.skip(skips[i], in);
                        break;
                    case CONVERT:
                        conversions[i].write(in, out);
                        break;
                    case MARK:
                        in.marks[marks[i]] = in.mark();
                        break;
                    case CONVERT_AT: {
                        int back = in.mark();
                        in.reset(in.marks[marks[i]]);
                        conversions[i].write(in, out);
                        in.reset(back);
                        break;
                    }
                    case CONSTANT:
                    default:
                        byte[] c = constants[i];
                        out.writeBytes(c, 0, c.length);
                }
            }
        } catch (ValueRejected e) {
            throw new ColumnEncodeException(columns[columnOf[i]], e.getMessage(), null);
        }
        if (in.remaining() != 0) {
            throw new MalformedBody(
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
                case CONVERT, INT32, INT_INT64, INT64, FLOAT32, FLOAT64, STRING, BOOL, UINT64 ->
                    sb.append("CONVERT ").append(columns[columnOf[i]].name());
                case MARK -> sb.append("MARK ").append(marks[i]);
                case CONVERT_AT ->
                    sb.append("CONVERT_AT ").append(marks[i]).append(' ').append(columns[columnOf[i]].name());
                default -> sb.append("CONSTANT ").append(columns[columnOf[i]].name());
            }
        }
        return sb.append(']').toString();
    }
}
