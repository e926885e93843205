package dev.etl.avro.clickhouse;

import dev.etl.avro.binary.AvroCursor;
import dev.etl.avro.binary.MalformedAvroException;
import dev.etl.sink.RowBuffer;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import org.apache.avro.Schema;
import org.apache.avro.Schema.Type;

/**
 * A read-only view of the current Avro record, over its payload bytes, for the chain's Java code: typed
 * accessors by field handles compiled once, nested records by path, arrays of records iterated in place,
 * strings as {@link CharSequence} views over their UTF-8 bytes; and {@link Slot slots}, the values of the
 * mapping's {@link AvroRowMapping.Builder#computed(String, String) computed columns}, which the chain sets and
 * {@link AvroRowTranscoder#viewEncoder()} writes. Nothing is decoded into objects and nothing is allocated per
 * record once the lane is warm.
 *
 * <pre>{@code
 * AvroRowMapping headers = AvroRowMapping.builder(Order.getClassSchema())
 *         .column("order_id", "UInt64", "id")
 *         .computed("quantity", "UInt32")                    // set by the chain
 *         .shardKey("id")
 *         .build();
 * AvroView.Fields f = AvroView.fields(headers);              // handles: once, shared by lanes
 * AvroView.EnumField status = f.enumField("status");
 * int cancelled = status.ordinalOf("CANCELLED");
 * AvroView.ArrayField lines = f.array("lines");
 * AvroView.IntField qty = lines.intField("quantity");
 * AvroView.Slot quantity = f.slot("quantity");
 * AvroRowTranscoder.Builder transcoders = AvroRowTranscoder.confluent(headers, registry);
 * ChainFactory chains = ctx -> {
 *     AvroRowTranscoder t = transcoders.build();             // per lane
 *     return Chains.from(ctx, t.views())
 *             .filter("not-cancelled", v -> v.ordinal(status) != cancelled)
 *             .map("quantity", v -> {
 *                 long q = 0;
 *                 for (int i = 0, n = v.size(lines); i < n; i++) {
 *                     q += v.get(qty, i);
 *                 }
 *                 return v.set(quantity, q);
 *             })
 *             .sink(t.viewEncoder(), t.viewRouter());
 * };
 * }</pre>
 *
 * <p><b>How it reads.</b> {@link AvroRowTranscoder#views()} resolves the payload's writer schema exactly as the
 * transcoder does (registry id or single-object fingerprint, one plan per writer schema, cached) and scans the
 * body once: every field of the reader schema gets a mark (its position in the payload), the mapping's
 * conditions are evaluated, and the body is checked to end where the record does. An accessor is one mark
 * lookup and one read of the value where it lies; a field the writer schema lacks reads the reader default
 * (encoded once per writer schema). Values are read as the writer wrote them, after Avro's promotions (an
 * {@code int} field read by a {@link LongField}), with enum symbols resolved by name as Avro resolves them. An
 * array is indexed in place at its first {@link #size} or element access in the record: one walk over its
 * elements that remembers each element field's position (scratch grown on demand, bounded by
 * {@link dev.etl.avro.AvroLimits}).
 *
 * <p><b>Lifetime: valid during the call and until the next record.</b> There is one view per lane, reused for
 * every record; what an accessor returns ({@link #string} included) is valid until the next record. An operator
 * must not keep the view or a string past its call: a {@code process} operator that buffers views and emits
 * them later would emit the same instance, by then holding another record. The encoder refuses a view it has
 * already encoded ({@link IllegalStateException}), which catches that mistake on the second emission; copy what
 * you need ({@code v.string(f).toString()}, the numbers) instead.
 *
 * <p><b>Errors.</b> A handle naming a field the reader schema lacks, or of another type, fails when it is made
 * ({@link IllegalArgumentException}, naming the closest field). Reading a null value (check {@link #isNull}
 * first) or a field of a type the writer cannot promote to the handle's throws {@link IllegalStateException}. A
 * slot not set for a record fails the record's encode with a {@link dev.etl.clickhouse.ColumnEncodeException}
 * naming its column.
 *
 * <p>Not thread-safe: one instance per lane, used on the lane thread only.
 */
public final class AvroView {
    private final Fields fields;
    /** Other {@link Fields} instances whose handles were checked against this view (by identity, grown once each). */
    private Fields[] accepted = new Fields[0];
    /** The transcoder's cursor: the scan's marks. */
    private final AvroCursor scanned;
    /** Reads values at marked positions (the scan's cursor keeps its state for the encoder). */
    private final AvroCursor values = new AvroCursor();
    /** Reads reader defaults of fields the writer lacks. */
    private final AvroCursor defaults = new AvroCursor();

    private ViewPlan plan;
    private byte[] defaultsArray;
    /** A record is in the view and not yet encoded. */
    private boolean live;

    private long key;
    private final long[] slotLongs;
    private final double[] slotDoubles;
    /** 0: not set for this record, 1: long, 2: double. */
    private final byte[] slotSet;

    /** Per array: positions of its elements' fields ({@code element * leaves + leaf}), and the count (-1: not indexed). */
    private final int[][] elementPositions;

    private final int[] elementCounts;
    private final Utf8View string = new Utf8View();

    AvroView(Fields fields, AvroCursor scanned) {
        this.fields = fields;
        this.scanned = scanned;
        int slots = fields.slotNames.size();
        this.slotLongs = new long[slots];
        this.slotDoubles = new double[slots];
        this.slotSet = new byte[slots];
        int arrays = fields.arrays.size();
        this.elementPositions = new int[arrays][];
        this.elementCounts = new int[arrays];
        for (int a = 0; a < arrays; a++) {
            elementPositions[a] = new int[Math.max(1, 8 * fields.arrays.get(a).leafCount())];
        }
    }

    /** The handles of {@code mapping}'s reader schema; cheap, immutable, shared by lanes (compile them once). */
    public static Fields fields(AvroRowMapping mapping) {
        return new Fields(Objects.requireNonNull(mapping, "mapping"));
    }

    // ---- called by the transcoder -----------------------------------------------------------------------

    /** The scan of a new record is in {@link #scanned}: start the record. */
    void begin(ViewPlan plan, long key) {
        if (this.plan != plan) {
            this.plan = plan;
            this.defaultsArray = plan.defaults;
            defaults.wrap(defaultsArray, 0, defaultsArray.length);
        }
        values.wrap(scanned.array(), 0, scanned.limit());
        values.ensureMarks(plan.markCount);
        values.resetZeroByteItems();
        Arrays.fill(slotSet, (byte) 0);
        Arrays.fill(elementCounts, -1);
        this.key = key;
        this.live = true;
    }

    /** Before encoding: refuses a view already encoded (an operator kept it past its record). */
    void beginEncode() {
        if (!live) {
            throw new IllegalStateException("this AvroView was already encoded (or holds no record): an operator "
                    + "kept the view past its record and emitted it again (the view is valid during the call only; "
                    + "copy the values you need instead)");
        }
        live = false;
    }

    long key() {
        return key;
    }

    /** Writes slot {@code slot} of the current record into its column. */
    void writeSlot(int slot, NumberColumn column, RowBuffer out) {
        switch (slotSet[slot]) {
            case 1 -> column.writeLong(slotLongs[slot], out);
            case 2 -> column.writeDouble(slotDoubles[slot], out);
            default ->
                throw new ValueRejected("computed column '" + fields.slotNames.get(slot)
                        + "' was not set for this record: set it in the chain with AvroView.set(slot, value)");
        }
    }

    // ---- slots ------------------------------------------------------------------------------------------

    /** Sets {@code slot}'s column to {@code value} for the current record; returns this view (for {@code map}). */
    public AvroView set(Slot slot, long value) {
        check(slot.owner);
        slotLongs[slot.index] = value;
        slotSet[slot.index] = 1;
        return this;
    }

    /** Sets {@code slot}'s column (Float32 or Float64) to {@code value} for the current record. */
    public AvroView set(Slot slot, double value) {
        check(slot.owner);
        slotDoubles[slot.index] = value;
        slotSet[slot.index] = 2;
        return this;
    }

    // ---- record fields ----------------------------------------------------------------------------------

    /** Whether the field's value is null (a {@code ["null", T]} union holding null). */
    public boolean isNull(Field field) {
        AvroCursor in = at(field, -1);
        return readsNull(in, field);
    }

    /** Whether element {@code index}'s field is null. */
    public boolean isNull(Field field, int index) {
        AvroCursor in = at(field, index);
        return readsNull(in, field);
    }

    public int get(IntField field) {
        return (int) longAt(at(field, -1), field);
    }

    public int get(IntField field, int index) {
        return (int) longAt(at(field, index), field);
    }

    public long get(LongField field) {
        return longAt(at(field, -1), field);
    }

    public long get(LongField field, int index) {
        return longAt(at(field, index), field);
    }

    public double get(DoubleField field) {
        return doubleAt(at(field, -1), field);
    }

    public double get(DoubleField field, int index) {
        return doubleAt(at(field, index), field);
    }

    public boolean get(BooleanField field) {
        return booleanAt(at(field, -1), field);
    }

    public boolean get(BooleanField field, int index) {
        return booleanAt(at(field, index), field);
    }

    /** The enum's ordinal in the <em>reader</em> schema's symbols (a writer symbol resolved by name). */
    public int ordinal(EnumField field) {
        return ordinalAt(at(field, -1), field);
    }

    public int ordinal(EnumField field, int index) {
        return ordinalAt(at(field, index), field);
    }

    /**
     * The string's bytes as a {@link CharSequence}, not decoded: valid until the next call of {@code string} on
     * this view and the next record ({@code toString()} copies it).
     */
    public CharSequence string(StringField field) {
        return stringAt(at(field, -1), field);
    }

    public CharSequence string(StringField field, int index) {
        return stringAt(at(field, index), field);
    }

    /** Whether the string equals {@code text}, compared on the bytes (no decoding, no allocation). */
    public boolean equals(StringField field, String text) {
        return ((Utf8View) stringAt(at(field, -1), field)).contentEquals(text);
    }

    public boolean equals(StringField field, int index, String text) {
        return ((Utf8View) stringAt(at(field, index), field)).contentEquals(text);
    }

    /** The number of elements of the array (indexes it in place at the first call for the record). */
    public int size(ArrayField array) {
        check(array.owner);
        return index(array.arrayIndex);
    }

    /**
     * Handles of another {@link Fields} instance: fine when it describes the same reader schema and slots (leaf
     * indexes are the reader schema's), checked once and remembered.
     */
    private void accept(Fields owner) {
        if (!owner.mapping.readerSchema().equals(fields.mapping.readerSchema())
                || !owner.slotNames.equals(fields.slotNames)) {
            throw new IllegalArgumentException("a handle of " + owner + " (mapping " + owner.mapping
                    + ") used on a view of another reader schema or computed columns: " + fields.mapping);
        }
        accepted = java.util.Arrays.copyOf(accepted, accepted.length + 1);
        accepted[accepted.length - 1] = owner;
    }

    private boolean accepted(Fields owner) {
        for (Fields f : accepted) {
            if (f == owner) {
                return true;
            }
        }
        return false;
    }

    // ---- reading --------------------------------------------------------------------------------------------

    private void check(Fields owner) {
        if (owner != fields && !accepted(owner)) {
            accept(owner);
        }
        if (!live) {
            throw new IllegalStateException(
                    "the AvroView holds no record (it is valid during the operator's call only)");
        }
    }

    /** The cursor at the field's value: of the record ({@code index} -1) or of element {@code index}. */
    private AvroCursor at(Field field, int index) {
        check(field.owner);
        int position;
        ViewPlan.Level level;
        if (field.array == null) {
            if (index >= 0) {
                throw new IllegalArgumentException(field + " is a field of the record, not of an array's element");
            }
            level = plan.record;
            int mark = level.marks[field.leaf];
            position = mark >= 0 ? scanned.marked(mark) : mark;
        } else {
            if (index < 0) {
                throw new IllegalArgumentException(
                        field + " is a field of the elements of " + field.array.path + ": pass the element's index");
            }
            int a = field.array.arrayIndex;
            int count = index(a);
            if (index >= count) {
                throw new IndexOutOfBoundsException("element " + index + " of " + count + " in " + field.array.path);
            }
            level = plan.arrays[a].element;
            position = elementPositions[a][index * level.marks.length + field.leaf];
        }
        if (position >= 0) {
            values.reset(position);
            return values;
        }
        defaults.reset(-position - 1);
        return defaults;
    }

    private ViewPlan.Level level(Field field) {
        return field.array == null ? plan.record : plan.arrays[field.array.arrayIndex].element;
    }

    /** Reads a union's branch; returns whether it is null (the cursor then after it, else at the value). */
    private boolean readsNull(AvroCursor in, Field field) {
        ViewPlan.Level level = level(field);
        int leaf = field.leaf;
        int nullBranch = level.nullBranch[leaf];
        if (nullBranch == ViewPlan.NOT_UNION) {
            return level.ops[leaf] == ViewPlan.NULL;
        }
        int branch = in.readInt();
        if (branch == nullBranch) {
            return true;
        }
        if (branch != level.valueBranch[leaf]) {
            throw new IllegalStateException(
                    field + ": union branch " + branch + " is not read by the view (" + level.unsupported[leaf] + ")");
        }
        return false;
    }

    private void value(AvroCursor in, Field field) {
        if (level(field).nullBranch[field.leaf] != ViewPlan.NOT_UNION && readsNull(in, field)) {
            throw new IllegalStateException(field + " is null in this record: check isNull(field) first");
        }
    }

    private long longAt(AvroCursor in, Field field) {
        value(in, field);
        switch (level(field).ops[field.leaf]) {
            case ViewPlan.INT:
                return in.readInt();
            case ViewPlan.LONG:
                return in.readLong();
            default:
                throw unreadable(field);
        }
    }

    private double doubleAt(AvroCursor in, Field field) {
        value(in, field);
        switch (level(field).ops[field.leaf]) {
            case ViewPlan.INT:
                return in.readInt();
            case ViewPlan.LONG:
                return in.readLong();
            case ViewPlan.FLOAT:
                return in.readFloat();
            case ViewPlan.DOUBLE:
                return in.readDouble();
            default:
                throw unreadable(field);
        }
    }

    private boolean booleanAt(AvroCursor in, Field field) {
        value(in, field);
        if (level(field).ops[field.leaf] != ViewPlan.BOOLEAN) {
            throw unreadable(field);
        }
        return in.readBoolean();
    }

    private int ordinalAt(AvroCursor in, Field field) {
        value(in, field);
        ViewPlan.Level level = level(field);
        if (level.ops[field.leaf] != ViewPlan.ENUM) {
            throw unreadable(field);
        }
        int[] ordinals = level.enumOrdinals[field.leaf];
        int w = in.readInt();
        int r = w >= 0 && w < ordinals.length ? ordinals[w] : -1;
        if (r < 0) {
            throw new IllegalStateException(field + ": writer enum index " + w
                    + " names no symbol of the reader schema (and the reader enum has no default)");
        }
        return r;
    }

    private CharSequence stringAt(AvroCursor in, Field field) {
        value(in, field);
        if (level(field).ops[field.leaf] != ViewPlan.STRING) {
            throw unreadable(field);
        }
        int length = in.readLength();
        int from = in.mark();
        in.skip(length);
        string.set(in.array(), from, length);
        return string;
    }

    private IllegalStateException unreadable(Field field) {
        ViewPlan.Level level = level(field);
        String why = level.unsupported[field.leaf];
        return new IllegalStateException(
                field + " cannot be read from this writer schema's field" + (why != null ? ": " + why : ""));
    }

    /** The element count of array {@code a}, indexing it at the first call for the record. */
    private int index(int a) {
        int count = elementCounts[a];
        if (count >= 0) {
            return count;
        }
        ViewPlan.Array array = plan.arrays[a];
        if (array.iter == null) {
            elementCounts[a] = 0; // the writer lacks the array: its (empty) default
            return 0;
        }
        int[] marks = array.element.marks;
        int leaves = marks.length;
        AvroCursor in = values;
        in.reset(scanned.marked(array.iter.startMark));
        int[] positions = elementPositions[a];
        int n = 0;
        try {
            long total = 0;
            for (long blockCount = in.blockCount(total); blockCount != 0; blockCount = in.blockCount(total)) {
                total += blockCount;
                for (long i = 0; i < blockCount; i++) {
                    int from = in.mark();
                    ScanPlan.run(array.iter.steps, in);
                    if (i == 0) {
                        in.zeroByteItems(from, blockCount);
                    }
                    int base = n * leaves;
                    if (base + leaves > positions.length) {
                        // Grown on demand, bounded by AvroLimits through blockCount: amortised, none once warm.
                        positions = Arrays.copyOf(positions, Math.max(positions.length * 2, base + leaves));
                        elementPositions[a] = positions;
                    }
                    for (int j = 0; j < leaves; j++) {
                        int mark = marks[j];
                        positions[base + j] = mark >= 0 ? in.marked(mark) : mark;
                    }
                    n++;
                }
            }
        } catch (MalformedAvroException e) {
            throw new IllegalStateException(
                    "the array " + array.path + " does not match its writer schema: " + e.getMessage(), e);
        }
        elementCounts[a] = n;
        return n;
    }

    @Override
    public String toString() {
        return "AvroView[" + fields.mapping.readerSchema().getFullName() + (live ? "" : ", no record") + "]";
    }

    // ---- handles --------------------------------------------------------------------------------------------

    /**
     * The handles of one mapping's reader schema: every field (nested records by dotted path) and the
     * elements' fields of its arrays of records, and the mapping's slots. Immutable and thread-safe; make the
     * handles once, outside the chain, and share them between lanes.
     */
    public static final class Fields {
        final AvroRowMapping mapping;
        /** Leaves of the record level (fields that are not records), dotted paths, with their reader schemas. */
        final LeafSet record;
        /** The arrays of records at the record level, in reader order (the view's array index). */
        final List<ArrayInfo> arrays;

        final List<String> slotNames;

        private Fields(AvroRowMapping mapping) {
            this.mapping = mapping;
            this.record = LeafSet.of(mapping.readerSchema());
            List<ArrayInfo> arrays = new ArrayList<>();
            for (int i = 0; i < record.paths.size(); i++) {
                Schema s = record.schemas.get(i);
                if (s.getType() == Type.ARRAY && s.getElementType().getType() == Type.RECORD) {
                    arrays.add(new ArrayInfo(record.paths.get(i), LeafSet.of(s.getElementType())));
                }
            }
            this.arrays = Collections.unmodifiableList(arrays);
            this.slotNames = mapping.slotColumns();
        }

        /** An int field. */
        public IntField intField(String path) {
            return record.intField(this, null, path);
        }

        /** A long field, or an int field read as a long. */
        public LongField longField(String path) {
            return record.longField(this, null, path);
        }

        /** A double or float field, or an int or long read as a double. */
        public DoubleField doubleField(String path) {
            return record.doubleField(this, null, path);
        }

        /** A boolean field. */
        public BooleanField booleanField(String path) {
            return record.booleanField(this, null, path);
        }

        /** A string field (or bytes, read as UTF-8). */
        public StringField stringField(String path) {
            return record.stringField(this, null, path);
        }

        /** An enum field. */
        public EnumField enumField(String path) {
            return record.enumField(this, null, path);
        }

        /** An array of records, whose elements' fields {@link ArrayField#intField} and the others make handles of. */
        public ArrayField array(String path) {
            record.leaf(path, "an array of records", Type.ARRAY);
            for (int a = 0; a < arrays.size(); a++) {
                if (arrays.get(a).path.equals(path)) {
                    return new ArrayField(this, a, path, arrays.get(a).leaves);
                }
            }
            throw new IllegalArgumentException("'" + path + "' is an array whose elements are not records: the view "
                    + "iterates arrays of records");
        }

        /**
         * The slot of the mapping's {@link AvroRowMapping.Builder#computed(String, String) computed column}
         * {@code column}.
         */
        public Slot slot(String column) {
            int index = slotNames.indexOf(column);
            if (index < 0) {
                throw new IllegalArgumentException("the mapping has no computed column '" + column + "'"
                        + (slotNames.isEmpty()
                                ? ": declare it with AvroRowMapping.Builder.computed(column, type)"
                                : "; its computed columns are " + slotNames));
            }
            return new Slot(this, index, column);
        }

        /** A view for one lane over the transcoder's cursor. */
        AvroView view(AvroCursor scanned) {
            return new AvroView(this, scanned);
        }

        @Override
        public String toString() {
            return "AvroView.Fields[" + mapping.readerSchema().getFullName() + "]";
        }
    }

    /** An array of records at the record level. */
    record ArrayInfo(String path, LeafSet leaves) {
        int leafCount() {
            return leaves.paths.size();
        }
    }

    /** The leaves under a record: every field that is not a record, by dotted path, in reader order. */
    static final class LeafSet {
        final List<String> paths;
        final List<Schema> schemas;
        private final Map<String, Integer> byPath;

        private LeafSet(List<String> paths, List<Schema> schemas) {
            this.paths = List.copyOf(paths);
            this.schemas = List.copyOf(schemas);
            Map<String, Integer> byPath = new HashMap<>();
            for (int i = 0; i < paths.size(); i++) {
                byPath.put(paths.get(i), i);
            }
            this.byPath = byPath;
        }

        static LeafSet of(Schema record) {
            List<String> paths = new ArrayList<>();
            List<Schema> schemas = new ArrayList<>();
            collect(record, "", paths, schemas);
            return new LeafSet(paths, schemas);
        }

        private static void collect(Schema record, String prefix, List<String> paths, List<Schema> schemas) {
            for (Schema.Field f : record.getFields()) {
                if (f.schema().getType() == Type.RECORD) {
                    collect(f.schema(), prefix + f.name() + ".", paths, schemas);
                } else {
                    paths.add(prefix + f.name());
                    schemas.add(f.schema());
                }
            }
        }

        /** The value type of a leaf: the non-null branch of a {@code ["null", T]} union, else the leaf's type. */
        static Schema valueType(Schema leaf) {
            if (leaf.getType() != Type.UNION) {
                return leaf;
            }
            Schema value = null;
            for (Schema branch : leaf.getTypes()) {
                if (branch.getType() != Type.NULL) {
                    if (value != null) {
                        return leaf; // several non-null branches: not a nullable T
                    }
                    value = branch;
                }
            }
            return value != null ? value : leaf;
        }

        IntField intField(Fields owner, ArrayField array, String path) {
            return new IntField(owner, array, leaf(path, "an int field", Type.INT), path);
        }

        LongField longField(Fields owner, ArrayField array, String path) {
            return new LongField(owner, array, leaf(path, "a long or int field", Type.LONG, Type.INT), path);
        }

        DoubleField doubleField(Fields owner, ArrayField array, String path) {
            int leaf = leaf(path, "a double, float, long or int field", Type.DOUBLE, Type.FLOAT, Type.LONG, Type.INT);
            return new DoubleField(owner, array, leaf, path);
        }

        BooleanField booleanField(Fields owner, ArrayField array, String path) {
            return new BooleanField(owner, array, leaf(path, "a boolean field", Type.BOOLEAN), path);
        }

        StringField stringField(Fields owner, ArrayField array, String path) {
            return new StringField(owner, array, leaf(path, "a string field", Type.STRING, Type.BYTES), path);
        }

        EnumField enumField(Fields owner, ArrayField array, String path) {
            int leaf = leaf(path, "an enum field", Type.ENUM);
            return new EnumField(owner, array, leaf, path, valueType(schemas.get(leaf)));
        }

        int leaf(String path, String expected, Type... types) {
            Objects.requireNonNull(path, "path");
            Integer leaf = byPath.get(path);
            if (leaf == null) {
                throw new IllegalArgumentException(
                        "no field '" + path + "' (" + expected + ") in the reader schema" + closest(path));
            }
            Schema value = valueType(schemas.get(leaf));
            for (Type t : types) {
                if (value.getType() == t) {
                    return leaf;
                }
            }
            throw new IllegalArgumentException(
                    "'" + path + "' is " + AvroTypeNames.describe(schemas.get(leaf)) + ", not " + expected);
        }

        private String closest(String path) {
            String best = null;
            int bestDistance = Integer.MAX_VALUE;
            String lower = path.toLowerCase(java.util.Locale.ROOT);
            for (String candidate : paths) {
                String c = candidate.toLowerCase(java.util.Locale.ROOT);
                int d = distance(lower, c);
                // An abbreviation ('qty' for 'quantity'): as close as a small typo.
                if (d > 2 && isAbbreviation(lower, c)) {
                    d = 2;
                }
                if (d < bestDistance) {
                    bestDistance = d;
                    best = candidate;
                }
            }
            return best != null && bestDistance <= Math.max(2, path.length() / 3)
                    ? ": did you mean '" + best + "'?"
                    : "; its fields are " + paths;
        }

        /** Whether {@code a}'s letters appear in {@code b} in order, starting with its first. */
        private static boolean isAbbreviation(String a, String b) {
            if (a.isEmpty() || b.isEmpty() || a.charAt(0) != b.charAt(0)) {
                return false;
            }
            int j = 0;
            for (int i = 0; i < b.length() && j < a.length(); i++) {
                if (b.charAt(i) == a.charAt(j)) {
                    j++;
                }
            }
            return j == a.length();
        }

        private static int distance(String a, String b) {
            int[] prev = new int[b.length() + 1];
            int[] cur = new int[b.length() + 1];
            for (int j = 0; j <= b.length(); j++) {
                prev[j] = j;
            }
            for (int i = 1; i <= a.length(); i++) {
                cur[0] = i;
                for (int j = 1; j <= b.length(); j++) {
                    int cost = a.charAt(i - 1) == b.charAt(j - 1) ? 0 : 1;
                    cur[j] = Math.min(Math.min(cur[j - 1] + 1, prev[j] + 1), prev[j - 1] + cost);
                }
                int[] t = prev;
                prev = cur;
                cur = t;
            }
            return prev[b.length()];
        }
    }

    /** A handle on one field: of the record, or (made by an {@link ArrayField}) of an array's elements. */
    public abstract static sealed class Field
            permits IntField, LongField, DoubleField, BooleanField, StringField, EnumField {
        final Fields owner;
        /** The array whose elements hold the field, or null for a field of the record. */
        final ArrayField array;

        final int leaf;
        final String path;

        Field(Fields owner, ArrayField array, int leaf, String path) {
            this.owner = owner;
            this.array = array;
            this.leaf = leaf;
            this.path = path;
        }

        /** The field's path ({@code lines.quantity} for a field of the array {@code lines}' elements). */
        public String path() {
            return array == null ? path : array.path + "." + path;
        }

        @Override
        public String toString() {
            return getClass().getSimpleName() + "[" + path() + "]";
        }
    }

    /** An {@code int} field. */
    public static final class IntField extends Field {
        IntField(Fields owner, ArrayField array, int leaf, String path) {
            super(owner, array, leaf, path);
        }
    }

    /** A {@code long} (or {@code int}) field. */
    public static final class LongField extends Field {
        LongField(Fields owner, ArrayField array, int leaf, String path) {
            super(owner, array, leaf, path);
        }
    }

    /** A {@code double}, {@code float}, {@code long} or {@code int} field, read as a double. */
    public static final class DoubleField extends Field {
        DoubleField(Fields owner, ArrayField array, int leaf, String path) {
            super(owner, array, leaf, path);
        }
    }

    /** A {@code boolean} field. */
    public static final class BooleanField extends Field {
        BooleanField(Fields owner, ArrayField array, int leaf, String path) {
            super(owner, array, leaf, path);
        }
    }

    /** A {@code string} (or {@code bytes}) field, read as a {@link CharSequence} view. */
    public static final class StringField extends Field {
        StringField(Fields owner, ArrayField array, int leaf, String path) {
            super(owner, array, leaf, path);
        }
    }

    /** An {@code enum} field, read as its ordinal in the reader schema's symbols. */
    public static final class EnumField extends Field {
        private final Schema schema;

        EnumField(Fields owner, ArrayField array, int leaf, String path, Schema schema) {
            super(owner, array, leaf, path);
            this.schema = schema;
        }

        /** The reader ordinal of {@code symbol}, for comparisons: compute it once, with the handle. */
        public int ordinalOf(String symbol) {
            if (!schema.hasEnumSymbol(symbol)) {
                throw new IllegalArgumentException(
                        "enum " + schema.getFullName() + " has no symbol '" + symbol + "': " + schema.getEnumSymbols());
            }
            return schema.getEnumOrdinal(symbol);
        }

        /** The reader symbols, by ordinal. */
        public List<String> symbols() {
            return schema.getEnumSymbols();
        }
    }

    /** An array of records: {@link AvroView#size} and handles on its elements' fields. */
    public static final class ArrayField {
        final Fields owner;
        final int arrayIndex;
        final String path;
        private final LeafSet leaves;

        ArrayField(Fields owner, int arrayIndex, String path, LeafSet leaves) {
            this.owner = owner;
            this.arrayIndex = arrayIndex;
            this.path = path;
            this.leaves = leaves;
        }

        /** An int field of the elements. */
        public IntField intField(String path) {
            return leaves.intField(owner, this, path);
        }

        /** A long (or int) field of the elements. */
        public LongField longField(String path) {
            return leaves.longField(owner, this, path);
        }

        /** A number field of the elements, read as a double. */
        public DoubleField doubleField(String path) {
            return leaves.doubleField(owner, this, path);
        }

        /** A boolean field of the elements. */
        public BooleanField booleanField(String path) {
            return leaves.booleanField(owner, this, path);
        }

        /** A string (or bytes) field of the elements. */
        public StringField stringField(String path) {
            return leaves.stringField(owner, this, path);
        }

        /** An enum field of the elements. */
        public EnumField enumField(String path) {
            return leaves.enumField(owner, this, path);
        }

        /** The array's path in the reader schema. */
        public String path() {
            return path;
        }

        @Override
        public String toString() {
            return "ArrayField[" + path + "]";
        }
    }

    /** A computed column of the mapping, set by the chain per record. */
    public static final class Slot {
        final Fields owner;
        final int index;
        private final String column;

        Slot(Fields owner, int index, String column) {
            this.owner = owner;
            this.index = index;
            this.column = column;
        }

        /** The column the slot fills. */
        public String column() {
            return column;
        }

        @Override
        public String toString() {
            return "Slot[" + column + "]";
        }
    }

    /**
     * A string's UTF-8 bytes as a {@link CharSequence}: ASCII is read byte by byte; other text is decoded once
     * into a reused {@code char[]} on the first {@code charAt}/{@code length}.
     */
    static final class Utf8View implements CharSequence {
        private byte[] array = new byte[0];
        private int offset;
        private int length;
        /** -1: not yet known; 1: ASCII; 0: decoded into {@link #chars}. */
        private int ascii = -1;

        private char[] chars = new char[16];
        private int charCount;

        void set(byte[] array, int offset, int length) {
            this.array = array;
            this.offset = offset;
            this.length = length;
            this.ascii = -1;
        }

        private void classify() {
            for (int i = 0; i < length; i++) {
                if (array[offset + i] < 0) {
                    decode();
                    return;
                }
            }
            ascii = 1;
        }

        private void decode() {
            // Rare (non-ASCII text): decoded through a String once; the char[] is reused.
            String s = new String(array, offset, length, StandardCharsets.UTF_8);
            if (chars.length < s.length()) {
                chars = new char[Math.max(s.length(), chars.length * 2)];
            }
            s.getChars(0, s.length(), chars, 0);
            charCount = s.length();
            ascii = 0;
        }

        @Override
        public int length() {
            if (ascii < 0) {
                classify();
            }
            return ascii == 1 ? length : charCount;
        }

        @Override
        public char charAt(int index) {
            if (ascii < 0) {
                classify();
            }
            if (index < 0 || index >= length()) {
                throw new IndexOutOfBoundsException(index);
            }
            return ascii == 1 ? (char) array[offset + index] : chars[index];
        }

        /**
         * Whether the bytes are {@code text}'s UTF-8: for ASCII text a byte compare, nothing decoded or allocated;
         * text with other characters is compared decoded (allocates).
         */
        boolean contentEquals(String text) {
            int n = text.length();
            for (int i = 0; i < n; i++) {
                char c = text.charAt(i);
                if (c >= 0x80) {
                    return toString().equals(text);
                }
                if (i >= length || array[offset + i] != (byte) c) {
                    return false;
                }
            }
            return n == length;
        }

        @Override
        public CharSequence subSequence(int start, int end) {
            return toString().subSequence(start, end);
        }

        @Override
        public String toString() {
            return new String(array, offset, length, StandardCharsets.UTF_8);
        }
    }
}
