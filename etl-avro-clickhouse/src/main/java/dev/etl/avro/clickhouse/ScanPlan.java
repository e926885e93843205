package dev.etl.avro.clickhouse;

import dev.etl.avro.binary.AvroCursor;
import dev.etl.avro.binary.AvroSkipper;
import dev.etl.avro.binary.MalformedAvroException;
import dev.etl.clickhouse.ClickHouseColumn;
import dev.etl.clickhouse.ColumnEncodeException;
import dev.etl.clickhouse.ColumnType;
import dev.etl.sink.RowBuffer;
import org.apache.avro.Schema;

/**
 * The plan of a mapping that {@link AvroRowMapping.Builder#explode explodes} an array, filters
 * records or names a {@link AvroRowMapping.Builder#shardKey shard key}. Two phases, neither of
 * which materialises anything:
 * <ol>
 * <li><b>Scan</b> the record once in writer order: remember the position of every field a column,
 *     condition or the key reads (one int in the cursor's marks), evaluate the conditions in place,
 *     pass over the rest (the exploded array with the element's compiled steps; what the reader schema
 *     holds as Avro decodes it, {@link ResolvedSkip}, so a record a condition drops is decided as the
 *     object path decides it; what only the writer has as Avro skips it), and check that the body ends
 *     where the record does;</li>
 * <li><b>Emit</b>: for every element of the array (or once, without one), scan the element's fields
 *     the same way, then write the row's columns in table order, each converted from its mark (the
 *     record's fields repeat on every row of it), the element's index, a reader default or constant encoded
 *     at compile time, or a {@link Computed} value (a length, a sum over an array walked from its mark, a
 *     product, {@code now()} read once per record, an array projection).</li>
 * </ol>
 * The transcoder may scan for {@link #key} (routing) and then emit from the same scan.
 */
final class ScanPlan implements Plan {
    // Scan steps (the skip codes are RowPlan's).
    static final int MARK = RowPlan.MARK;
    /** Evaluate {@code filters[i]} on the field at mark {@code args[i]}; leaves the cursor after the field. */
    static final int FILTER = 20;
    /** The exploded array: skip it element by element with the element's steps. */
    static final int ARRAY = 21;

    // Column sources.
    static final int SOURCE_MARK = 0;
    static final int SOURCE_INDEX = 1;
    static final int SOURCE_CONSTANT = 2;
    /** A {@link Computed} column: a length, a sum, a product, now(), an array projection. */
    static final int SOURCE_COMPUTED = 3;
    /** A column the chain sets through an {@link AvroView} slot ({@code sourceArgs}: the slot). */
    static final int SOURCE_SLOT = 4;

    // How the key is read.
    static final int KEY_NONE = 0;
    static final int KEY_INT = 1;
    static final int KEY_LONG = 2;
    static final int KEY_CONSTANT = 3;

    final Steps record;
    /** The element's steps, or null when the mapping does not explode (or the writer lacks the array). */
    final Steps element;
    /** Mark of the exploded array's start, or -1. */
    final int arrayMark;
    /** Every record is dropped: a condition's field is absent and its default matches, or the array is absent. */
    final boolean dropAll;

    private final int[] sources;
    private final int[] sourceArgs;
    private final Conversion[] conversions;
    private final byte[][] constants;
    private final Computed[] computed;
    /** The number writers of the slot columns (null elsewhere). */
    private final NumberColumn[] slotColumns;
    /** What an {@link AvroView} reads from this writer's scan, when compiled for views; else null. */
    final ViewPlan view;
    /** Whether a column is now(): the clock is read once per record. */
    private final boolean readsClock;

    private final ColumnType[] types;
    private final ClickHouseColumn[] columns;
    private final int keyRead;
    private final int keyMark;
    private final long keyConstant;
    private final int markCount;

    /** One level's scan: steps over a record's writer fields. */
    static final class Steps {
        final int[] ops;
        final int[] args;
        final Schema[] skips;
        final ResolvedSkip[] resolved;
        final RecordFilter[] filters;
        /** The element steps of an ARRAY step (the exploded array), or null. */
        final Steps element;

        Steps(int[] ops, int[] args, Schema[] skips, ResolvedSkip[] resolved, RecordFilter[] filters, Steps element) {
            this.ops = ops;
            this.args = args;
            this.skips = skips;
            this.resolved = resolved;
            this.filters = filters;
            this.element = element;
        }
    }

    ScanPlan(
            Steps record,
            Steps element,
            int arrayMark,
            boolean dropAll,
            int[] sources,
            int[] sourceArgs,
            Conversion[] conversions,
            byte[][] constants,
            Computed[] computed,
            NumberColumn[] slotColumns,
            ColumnType[] types,
            ClickHouseColumn[] columns,
            int keyRead,
            int keyMark,
            long keyConstant,
            int markCount,
            ViewPlan view) {
        this.slotColumns = slotColumns;
        this.view = view;
        this.record = record;
        this.element = element;
        this.arrayMark = arrayMark;
        this.dropAll = dropAll;
        this.sources = sources;
        this.sourceArgs = sourceArgs;
        this.conversions = conversions;
        this.constants = constants;
        this.computed = computed;
        boolean clock = false;
        for (Computed c : computed) {
            clock |= c != null && c.op == Computed.NOW;
        }
        this.readsClock = clock;
        this.types = types;
        this.columns = columns;
        this.keyRead = keyRead;
        this.keyMark = keyMark;
        this.keyConstant = keyConstant;
        this.markCount = markCount;
    }

    @Override
    public int markCount() {
        return markCount;
    }

    @Override
    public int write(AvroCursor in, RowBuffer out) {
        boolean dropped = scan(in);
        return emit(in, out, dropped);
    }

    /**
     * Phase 1 over the body under {@code in}: marks, conditions, the end of the body. Leaves the cursor
     * at the end.
     *
     * @return whether a condition drops the record
     * @throws MalformedAvroException when the body does not match the writer schema
     */
    boolean scan(AvroCursor in) {
        boolean dropped = run(record, in);
        if (in.remaining() != 0) {
            throw new MalformedAvroException(
                    in.remaining() + " trailing byte(s) after the record (body is " + in.length() + " bytes)");
        }
        return dropped;
    }

    /** The shard key of the scanned record. */
    long key(AvroCursor in) {
        switch (keyRead) {
            case KEY_INT:
            case KEY_LONG: {
                int end = in.mark();
                in.reset(in.marked(keyMark));
                long key = keyRead == KEY_INT ? in.readInt() : in.readLong();
                in.reset(end);
                return key;
            }
            case KEY_CONSTANT:
                return keyConstant;
            default:
                throw new IllegalStateException("the mapping names no shard key");
        }
    }

    boolean hasKey() {
        return keyRead != KEY_NONE;
    }

    /** Phase 2 after {@link #scan}: the rows, in table order; the cursor ends at the end of the body. */
    int emit(AvroCursor in, RowBuffer out, boolean dropped) {
        return emit(in, out, dropped, null);
    }

    /** {@link #emit(AvroCursor, RowBuffer, boolean)} with the slot values of {@code slots} (null: none set). */
    int emit(AvroCursor in, RowBuffer out, boolean dropped, AvroView slots) {
        if (dropped || dropAll) {
            return 0;
        }
        // The rows read again what the scan read (the record's fields once per row): counted afresh.
        in.resetZeroByteItems();
        long nowMs = readsClock ? System.currentTimeMillis() : 0;
        if (element == null) {
            int end = in.mark();
            row(in, out, 0, nowMs, slots);
            in.reset(end);
            return 1;
        }
        int end = in.mark();
        in.reset(in.marked(arrayMark));
        int rows = 0;
        long total = 0;
        for (long count = in.blockCount(total); count != 0; count = in.blockCount(total)) {
            total += count;
            for (long i = 0; i < count; i++) {
                int from = in.mark();
                run(element, in);
                int next = in.mark();
                if (i == 0) {
                    in.zeroByteItems(from, count);
                }
                row(in, out, rows, nowMs, slots);
                in.reset(next);
                rows++;
            }
        }
        in.reset(end);
        return rows;
    }

    private void row(AvroCursor in, RowBuffer out, int index, long nowMs, AvroView slots) {
        int[] sources = this.sources;
        int c = 0;
        try {
            for (; c < sources.length; c++) {
                switch (sources[c]) {
                    case SOURCE_MARK:
                        in.reset(in.marked(sourceArgs[c]));
                        conversions[c].write(in, out);
                        break;
                    case SOURCE_INDEX:
                        writeIndex(types[c], index, out);
                        break;
                    case SOURCE_COMPUTED:
                        computed[c].write(in, out, index, nowMs);
                        break;
                    case SOURCE_SLOT:
                        if (slots == null) {
                            throw new ValueRejected("a computed column set by the chain: encode the record through "
                                    + "AvroRowTranscoder.views() and viewEncoder()");
                        }
                        slots.writeSlot(sourceArgs[c], slotColumns[c], out);
                        break;
                    default:
                        byte[] bytes = constants[c];
                        out.writeBytes(bytes, 0, bytes.length);
                }
            }
        } catch (ValueRejected e) {
            throw new ColumnEncodeException(columns[c], e.getMessage(), null);
        }
    }

    private static void writeIndex(ColumnType type, int index, RowBuffer out) {
        switch (type.kind()) {
            case INT8, UINT8 -> {
                if (index > (type.kind() == ColumnType.Kind.INT8 ? Byte.MAX_VALUE : 0xff)) {
                    throw new ValueRejected("element index " + index + " out of range for " + type);
                }
                out.writeByte(index);
            }
            case INT16, UINT16 -> {
                if (index > (type.kind() == ColumnType.Kind.INT16 ? Short.MAX_VALUE : 0xffff)) {
                    throw new ValueRejected("element index " + index + " out of range for " + type);
                }
                out.writeShortLE(index);
            }
            case INT32, UINT32 -> out.writeIntLE(index);
            default -> out.writeLongLE(index);
        }
    }

    /** Runs one level's steps from the cursor; returns whether a condition dropped the record. */
    static boolean run(Steps steps, AvroCursor in) {
        int[] ops = steps.ops;
        int[] args = steps.args;
        boolean dropped = false;
        for (int i = 0; i < ops.length; i++) {
            switch (ops[i]) {
                case RowPlan.SKIP_VARINT:
                    in.readLong();
                    break;
                case RowPlan.SKIP_INT:
                    in.readInt();
                    break;
                case RowPlan.SKIP_BYTES:
                    in.skip(args[i]);
                    break;
                case RowPlan.SKIP_LENGTH:
                    in.skipLengthPrefixed();
                    break;
                case MARK:
                    in.mark(args[i], in.mark());
                    break;
                case FILTER:
                    in.reset(in.marked(args[i]));
                    dropped |= steps.filters[i].drops(in);
                    break;
                case ARRAY:
                    skipElements(steps.element, in);
                    break;
                case RowPlan.SKIP_RESOLVED:
                    steps.resolved[i].skip(in);
                    break;
                case RowPlan.SKIP:
                default:
                    AvroSkipper.skip(steps.skips[i], in);
            }
        }
        return dropped;
    }

    /**
     * Passes over the array under the cursor with the element's steps, item by item even in a block with a
     * byte size, as the rows will read it (so what the rows read is checked before the first is written).
     */
    private static void skipElements(Steps element, AvroCursor in) {
        long total = 0;
        for (long count = in.blockCount(total); count != 0; count = in.blockCount(total)) {
            total += count;
            int from = in.mark();
            run(element, in);
            if (in.zeroByteItems(from, count)) {
                continue; // the rest of the block takes no bytes either: nothing to pass
            }
            for (long i = 1; i < count; i++) {
                run(element, in);
            }
        }
    }

    @Override
    public String toString() {
        return "ScanPlan[" + columns.length + " columns" + (element != null ? ", exploding" : "")
                + (dropAll ? ", dropping every record" : "") + "]";
    }
}
