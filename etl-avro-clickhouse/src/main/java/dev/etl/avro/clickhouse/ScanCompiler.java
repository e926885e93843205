package dev.etl.avro.clickhouse;

import dev.etl.avro.clickhouse.AvroRowMapping.Mapped;
import dev.etl.avro.clickhouse.AvroRowMapping.RecordCondition;
import dev.etl.clickhouse.ClickHouseColumn;
import dev.etl.clickhouse.ColumnType;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.apache.avro.Schema;
import org.apache.avro.Schema.Type;

/**
 * Compiles a mapping with an exploded array, record conditions or a shard key for one writer schema
 * into a {@link ScanPlan}. Walks the writer's fields in writer order as {@link PlanCompiler} does
 * (nested records inlined, fields matched to reader fields by name or reader alias); every field
 * something reads is marked, the rest skipped. Fields the writer lacks take the reader's defaults.
 *
 * <p>Computed columns ({@link ColumnSource}: lengths, sums, products, constants, {@code now()}) and array
 * projections compile to {@link Computed} sources: every array one iterates is marked in the record's scan and
 * gets element steps and marks of its own ({@link Iteration}); constants and whatever the writer schema fixes (a
 * missing array with an empty default, two defaulted operands) are folded into constant bytes here.
 */
final class ScanCompiler {
    private final AvroRowMapping mapping;
    private final Schema writer;
    private final String explode;
    private final String elementPrefix;
    private final Level record = new Level();
    private final Level element = new Level();
    private int markCount;
    // The column sources, filled by compile().
    private int[] sources;
    private int[] sourceArgs;
    private Conversion[] conversions;
    private byte[][] constants;
    private Computed[] computed;
    private int arrayMark = -1;
    private Schema writerElement;
    private Schema readerElement;
    private final Map<String, Iteration> iterations = new LinkedHashMap<>();
    /** The view's leaves when compiling for an {@link AvroView} (every reader field is marked), else null. */
    private final AvroView.Fields view;
    /** The writer's exploded array, for the view's leaf of it. */
    private Schema writerExplode;

    private NumberColumn[] slotColumns;

    /** One level (the record, or the exploded array's element): what it reads and the steps found. */
    private static final class Level {
        /** Paths read at this level (relative to its record). */
        final Set<String> leaves = new HashSet<>();
        /** Leaves and their prefixes: what is worth descending into. */
        final Set<String> needed = new HashSet<>();
        /** Paths the writer has (leaves and records). */
        final Set<String> present = new HashSet<>();
        /** Leaf path to its mark, writer schema and reader schema. */
        final Map<String, Leaf> found = new HashMap<>();

        final List<Integer> ops = new ArrayList<>();
        final List<Integer> args = new ArrayList<>();
        final List<Schema> skips = new ArrayList<>();
        final List<ResolvedSkip> resolved = new ArrayList<>();
        final List<RecordFilter> filters = new ArrayList<>();

        void need(String path) {
            leaves.add(path);
            needed.add(path);
            for (int dot = path.indexOf('.'); dot >= 0; dot = path.indexOf('.', dot + 1)) {
                needed.add(path.substring(0, dot));
            }
        }

        void step(int op, int arg, Schema skip, RecordFilter filter) {
            step(op, arg, skip, null, filter);
        }

        void step(int op, int arg, Schema skip, ResolvedSkip resolvedSkip, RecordFilter filter) {
            ops.add(op);
            args.add(arg);
            skips.add(skip);
            resolved.add(resolvedSkip);
            filters.add(filter);
        }

        /**
         * Passes over a writer field: as Avro decodes it into {@code reader} when that is not null (the reader
         * holds the field, read later by a column or not), else as Avro skips it (only the
         * writer has it).
         */
        void skip(Schema schema, Schema reader) {
            ResolvedSkip decoded = reader == null ? null : ResolvedSkip.compile(schema, reader);
            if (decoded != null) {
                step(RowPlan.SKIP_RESOLVED, 0, null, decoded, null);
                return;
            }
            switch (schema.getType()) {
                case INT, ENUM -> step(RowPlan.SKIP_INT, 0, null, null);
                case LONG -> step(RowPlan.SKIP_VARINT, 0, null, null);
                case FLOAT -> step(RowPlan.SKIP_BYTES, 4, null, null);
                case DOUBLE -> step(RowPlan.SKIP_BYTES, 8, null, null);
                case FIXED -> step(RowPlan.SKIP_BYTES, schema.getFixedSize(), null, null);
                case STRING, BYTES -> step(RowPlan.SKIP_LENGTH, 0, null, null);
                case NULL -> {}
                default -> step(RowPlan.SKIP, 0, schema, null);
            }
        }

        ScanPlan.Steps steps(ScanPlan.Steps arrayElement) {
            int n = ops.size();
            int[] o = new int[n];
            int[] a = new int[n];
            for (int i = 0; i < n; i++) {
                o[i] = ops.get(i);
                a[i] = args.get(i);
            }
            return new ScanPlan.Steps(
                    o,
                    a,
                    skips.toArray(new Schema[0]),
                    resolved.toArray(new ResolvedSkip[0]),
                    filters.toArray(new RecordFilter[0]),
                    arrayElement);
        }
    }

    private record Leaf(int mark, Schema writer, Schema reader) {}

    /** A non-exploded array (or the exploded one) that computed columns iterate: its element's own level. */
    private static final class Iteration {
        final String arrayPath;
        final Level inner = new Level();
        /** Whether the element itself (an array of numbers) is read. */
        boolean whole;
        /** After the walk: the element schemas (null when the writer lacks the array: every column is folded). */
        Schema writerElement;

        Schema readerElement;
        Computed.Iter iter;
        Leaf wholeLeaf;

        Iteration(String arrayPath) {
            this.arrayPath = arrayPath;
        }

        void need(String inner) {
            if (inner.isEmpty()) {
                whole = true;
            } else {
                this.inner.need(inner);
            }
        }
    }

    ScanCompiler(AvroRowMapping mapping, Schema writer) {
        this(mapping, writer, null);
    }

    /**
     * @param view when not null, also marks every leaf of the reader record and iterates every array of records
     *     for an {@link AvroView} ({@link #viewPlan})
     */
    ScanCompiler(AvroRowMapping mapping, Schema writer, AvroView.Fields view) {
        this.mapping = mapping;
        this.writer = writer;
        this.view = view;
        this.explode = mapping.explode();
        this.elementPrefix = explode == null ? null : explode + ".";
        ConversionCompiler.requireTuplesNotAlsoDescended(mapping.mapped());
        for (Mapped m : mapping.mapped()) {
            if (m.isIndex()) {
                if (explode == null) {
                    throw new AvroMappingException(
                            "(element index)",
                            m.column().name(),
                            "-",
                            m.column().type(),
                            "an index column needs an exploded array (explode(arrayPath))");
                }
                checkIndexType(m);
            } else if (m.source() instanceof ColumnSource.Path) {
                if (explode != null && m.path().equals(explode)) {
                    throw new AvroMappingException(
                            m.path(),
                            m.column().name(),
                            "array",
                            m.column().type(),
                            "the exploded array is written one element per row: map its elements' fields ('"
                                    + elementPrefix + "<field>') instead");
                }
                int array = firstArray(mapping.readerSchema(), m.path(), false);
                if (array >= 0 && !m.path().substring(0, array).equals(explode)) {
                    iteration(m, m.path().substring(0, array))
                            .need(UnionBranch.fieldPath(m.path().substring(array + 1)));
                } else {
                    need(UnionBranch.fieldPath(m.path())); // amount[long] reads field amount
                }
            } else {
                needComputed(m);
            }
        }
        for (RecordCondition c : mapping.conditions()) {
            requireRecordLevel(c.path(), "a record condition");
            record.need(c.path());
        }
        if (mapping.shardKey() != null) {
            requireRecordLevel(mapping.shardKey(), "the shard key");
            record.need(mapping.shardKey());
        }
        if (view != null) {
            for (String leaf : view.record.paths) {
                if (!leaf.equals(explode)) {
                    record.need(leaf);
                }
            }
            for (AvroView.ArrayInfo array : view.arrays) {
                Iteration it = iterations.get(array.path());
                if (it == null) {
                    it = new Iteration(array.path());
                    iterations.put(array.path(), it);
                }
                for (String leaf : array.leaves().paths) {
                    it.need(leaf);
                }
            }
        }
        if (explode != null) {
            record.needed.add(explode);
            for (int dot = explode.indexOf('.'); dot >= 0; dot = explode.indexOf('.', dot + 1)) {
                record.needed.add(explode.substring(0, dot));
            }
        }
    }

    /** A field of the row: the exploded array's element's, or the record's. */
    private void need(String path) {
        if (explode != null && path.startsWith(elementPrefix)) {
            element.need(path.substring(elementPrefix.length()));
        } else {
            record.need(path);
        }
    }

    /** What a computed column reads. */
    private void needComputed(Mapped m) {
        ColumnSource source = m.source();
        if (source instanceof ColumnSource.Length l) {
            int array = firstArray(mapping.readerSchema(), l.path(), true);
            if (array != l.path().length()) {
                throw computedError(
                        m,
                        array < 0
                                ? "length(...) counts an array or a map: '" + l.path() + "' is neither"
                                : "length(...) of an array inside the array '"
                                        + l.path().substring(0, array) + "' is not supported");
            }
            iteration(m, l.path());
        } else if (source instanceof ColumnSource.Sum sum) {
            int array = firstArray(mapping.readerSchema(), sum.path(), true);
            if (array < 0) {
                throw computedError(m, "sum(...) adds up an array's elements: '" + sum.path() + "' is not in an array");
            }
            String arrayPath = sum.path().substring(0, array);
            String inner = array == sum.path().length() ? "" : sum.path().substring(array + 1);
            Iteration it = iteration(m, arrayPath);
            it.need(inner);
            if (sum.factor() != null) {
                String prefix = arrayPath + ".";
                if (!sum.factor().startsWith(prefix) || inner.isEmpty()) {
                    throw computedError(
                            m,
                            "sum(a * b) multiplies two fields of the elements of one array of records ('" + prefix
                                    + "<field>')");
                }
                it.need(sum.factor().substring(prefix.length()));
            }
        } else if (source instanceof ColumnSource.Product p) {
            for (ColumnSource.Operand o : List.of(p.a(), p.b())) {
                if (o.path() == null) {
                    continue;
                }
                int array = firstArray(mapping.readerSchema(), o.path(), true);
                if (array >= 0 && !o.path().substring(0, array).equals(explode)) {
                    throw computedError(
                            m,
                            "a product reads fields of the row; '" + o.path() + "' is in the array '"
                                    + o.path().substring(0, array) + "' (sum(...) adds up an array's elements)");
                }
                need(o.path());
            }
        }
        // Constants and now() read nothing.
    }

    /** The iteration over the array at {@code arrayPath} (the exploded one, or a field of the record). */
    private Iteration iteration(Mapped m, String arrayPath) {
        if (explode != null && arrayPath.startsWith(elementPrefix)) {
            throw computedError(m, "an array inside the exploded array is not iterated");
        }
        Iteration it = iterations.get(arrayPath);
        if (it == null) {
            it = new Iteration(arrayPath);
            iterations.put(arrayPath, it);
            if (!arrayPath.equals(explode)) {
                record.need(arrayPath);
            }
        }
        return it;
    }

    private static AvroMappingException computedError(Mapped m, String problem) {
        return new AvroMappingException(
                m.path(), m.column().name(), "-", m.column().type(), problem);
    }

    /**
     * Where the first array (or, when {@code maps}, map) on {@code path} in {@code reader} ends: the length of the
     * path prefix that names it; -1 when the path passes no array before its last segment (or names none at all,
     * when {@code maps}), or does not resolve (the compilers report that).
     *
     * @param whole whether the last segment counts: an aggregate's array may be the path itself
     */
    static int firstArray(Schema reader, String path, boolean whole) {
        if (path == null) {
            return -1;
        }
        Schema current = reader;
        int start = 0;
        while (true) {
            int dot = path.indexOf('.', start);
            boolean last = dot < 0;
            if (current.getType() != Type.RECORD) {
                return -1;
            }
            Schema.Field f = current.getField(last ? path.substring(start) : path.substring(start, dot));
            if (f == null) {
                return -1;
            }
            Type t = f.schema().getType();
            if (t == Type.ARRAY || (whole && last && t == Type.MAP)) {
                if (last && !whole) {
                    return -1;
                }
                return last ? path.length() : dot;
            }
            if (last) {
                return -1;
            }
            current = f.schema();
            start = dot + 1;
        }
    }

    private void requireRecordLevel(String path, String what) {
        if (explode != null && (path.equals(explode) || path.startsWith(elementPrefix))) {
            throw new AvroMappingException(
                    path, "-", "-", "-", what + " reads a field of the record, not of the exploded array");
        }
    }

    private static void checkIndexType(Mapped m) {
        switch (m.type().kind()) {
            case INT8, INT16, INT32, INT64, UINT8, UINT16, UINT32, UINT64 -> {}
            default ->
                throw new AvroMappingException(
                        "(element index)",
                        m.column().name(),
                        "-",
                        m.column().type(),
                        "an index column is an integer (Int8…Int64, UInt8…UInt64)");
        }
    }

    ScanPlan compile() {
        if (writer.getType() != Type.RECORD) {
            throw new AvroMappingException(
                    "", "", AvroTypeNames.describe(writer), "-", "the writer schema is not a record");
        }
        Schema reader = mapping.readerSchema();
        walk(writer, reader, "", record, true);
        boolean arrayPresent = arrayMark >= 0;
        boolean dropAll = false;
        if (explode != null && !arrayPresent) {
            ReaderDefaults.Default d =
                    ReaderDefaults.of(reader, explode, record.present, writer.getFullName(), explode, "-", "-");
            if (!(d.value() instanceof List<?> list) || !list.isEmpty()) {
                throw new AvroMappingException(
                        explode,
                        "-",
                        AvroTypeNames.describe(d.schema()),
                        "-",
                        "the writer schema " + writer.getFullName() + " lacks the exploded array and its reader "
                                + "default is not empty: only an empty default (no rows) is supported");
            }
            dropAll = true;
        }
        // Conditions: a field the writer lacks is decided once, on its reader default.
        for (RecordCondition c : mapping.conditions()) {
            Leaf leaf = record.found.get(c.path());
            if (leaf == null) {
                ReaderDefaults.Default d =
                        ReaderDefaults.of(reader, c.path(), record.present, writer.getFullName(), c.path(), "-", "-");
                dropAll |= RecordFilter.dropsDefault(c, d.schema(), d.value());
            }
        }
        for (Iteration it : iterations.values()) {
            compileIteration(it);
        }
        List<Mapped> mapped = mapping.mapped();
        int n = mapped.size();
        sources = new int[n];
        sourceArgs = new int[n];
        conversions = new Conversion[n];
        constants = new byte[n][];
        computed = new Computed[n];
        slotColumns = new NumberColumn[n];
        ColumnType[] types = new ColumnType[n];
        int slot = 0;
        for (int c = 0; c < n; c++) {
            Mapped m = mapped.get(c);
            types[c] = m.type();
            if (m.isSlot()) {
                sources[c] = ScanPlan.SOURCE_SLOT;
                sourceArgs[c] = slot++;
                slotColumns[c] = NumberColumn.of(m.type(), false);
                continue;
            }
            if (m.isIndex()) {
                sources[c] = ScanPlan.SOURCE_INDEX;
                continue;
            }
            if (m.isComputed()) {
                compileComputed(c, m);
                continue;
            }
            int array = firstArray(reader, m.path(), false);
            if (array >= 0 && !m.path().substring(0, array).equals(explode)) {
                compileProjection(
                        c,
                        m,
                        iterations.get(m.path().substring(0, array)),
                        m.path().substring(array + 1));
                continue;
            }
            boolean inElement = explode != null && m.path().startsWith(elementPrefix);
            if (inElement && !arrayPresent) {
                constant(c, new byte[0]); // never written: no record of this writer has a row
                continue;
            }
            Level level = inElement ? element : record;
            String path = UnionBranch.fieldPath(inElement ? m.path().substring(elementPrefix.length()) : m.path());
            Leaf leaf = level.found.get(path);
            if (leaf != null) {
                sources[c] = ScanPlan.SOURCE_MARK;
                sourceArgs[c] = leaf.mark();
                conversions[c] = new ConversionCompiler(m.path(), m.column().name())
                        .compile(leaf.writer(), leaf.reader(), m.type());
            } else {
                Schema root = inElement ? readerElement : reader;
                String writerName = inElement ? writerElement.getFullName() : writer.getFullName();
                constant(c, ReaderDefaults.rowBinary(ReaderDefaults.of(root, path, level.present, writerName, m), m));
            }
        }
        int keyRead = ScanPlan.KEY_NONE;
        int keyMark = -1;
        long keyConstant = 0;
        String key = mapping.shardKey();
        if (key != null) {
            Leaf leaf = record.found.get(key);
            Schema keyReader = leaf != null
                    ? leaf.reader()
                    : ReaderDefaults.of(reader, key, record.present, writer.getFullName(), key, "-", "-")
                            .schema();
            if (keyReader.getType() != Type.INT && keyReader.getType() != Type.LONG) {
                throw new AvroMappingException(
                        key,
                        "(shard key)",
                        AvroTypeNames.describe(keyReader),
                        "-",
                        "the shard key is an int or long field");
            }
            if (leaf == null) {
                keyRead = ScanPlan.KEY_CONSTANT;
                keyConstant = ((Number)
                                ReaderDefaults.of(reader, key, record.present, writer.getFullName(), key, "-", "-")
                                        .value())
                        .longValue();
            } else if (leaf.writer().getType() == Type.INT) {
                keyRead = ScanPlan.KEY_INT;
                keyMark = leaf.mark();
            } else if (leaf.writer().getType() == Type.LONG) {
                keyRead = ScanPlan.KEY_LONG;
                keyMark = leaf.mark();
            } else {
                throw new AvroMappingException(
                        key,
                        "(shard key)",
                        AvroTypeNames.describe(leaf.writer()),
                        "-",
                        "the writer's " + AvroTypeNames.describe(leaf.writer()) + " cannot be read as the key");
            }
        }
        ScanPlan.Steps elementSteps = arrayPresent ? element.steps(null) : null;
        return new ScanPlan(
                record.steps(elementSteps),
                elementSteps,
                arrayMark,
                dropAll,
                sources,
                sourceArgs,
                conversions,
                constants,
                computed,
                slotColumns,
                types,
                mapping.columns().toArray(new ClickHouseColumn[0]),
                keyRead,
                keyMark,
                keyConstant,
                markCount,
                view == null ? null : viewPlan());
    }

    /** Where the view finds each reader leaf in this writer's scan (or its default), and how to read it. */
    private ViewPlan viewPlan() {
        Schema reader = mapping.readerSchema();
        ViewPlan.Defaults defaults = new ViewPlan.Defaults();
        List<String> paths = view.record.paths;
        ViewPlan.Level level = new ViewPlan.Level(paths.size());
        for (int i = 0; i < paths.size(); i++) {
            String path = paths.get(i);
            Schema readerLeaf = view.record.schemas.get(i);
            if (path.equals(explode) && arrayMark >= 0) {
                level.leaf(i, arrayMark, writerExplode, readerLeaf);
                continue;
            }
            Leaf leaf = record.found.get(path);
            if (leaf != null) {
                level.leaf(i, leaf.mark(), leaf.writer(), leaf.reader());
            } else {
                ReaderDefaults.Default d =
                        ReaderDefaults.of(reader, path, record.present, writer.getFullName(), path, "-", "-");
                level.leaf(i, defaults.add(d.schema(), d.value()), d.schema(), d.schema());
            }
        }
        ViewPlan.Array[] arrays = new ViewPlan.Array[view.arrays.size()];
        for (int a = 0; a < arrays.length; a++) {
            AvroView.ArrayInfo info = view.arrays.get(a);
            Iteration it = iterations.get(info.path());
            List<String> inner = info.leaves().paths;
            ViewPlan.Level element = new ViewPlan.Level(inner.size());
            if (it.iter != null) {
                for (int j = 0; j < inner.size(); j++) {
                    String path = inner.get(j);
                    Leaf leaf = it.inner.found.get(path);
                    if (leaf != null) {
                        element.leaf(j, leaf.mark(), leaf.writer(), leaf.reader());
                    } else {
                        ReaderDefaults.Default d = ReaderDefaults.of(
                                it.readerElement,
                                path,
                                it.inner.present,
                                it.writerElement.getFullName(),
                                info.path() + "." + path,
                                "-",
                                "-");
                        element.leaf(j, defaults.add(d.schema(), d.value()), d.schema(), d.schema());
                    }
                }
            }
            arrays[a] = new ViewPlan.Array(info.path(), it.iter, element);
        }
        return new ViewPlan(level, arrays, defaults.toByteArray(), markCount);
    }

    private void walk(Schema writerRecord, Schema readerRecord, String prefix, Level level, boolean top) {
        for (Schema.Field wf : writerRecord.getFields()) {
            Schema.Field rf = PlanCompiler.readerField(readerRecord, wf);
            String path = rf == null ? null : prefix + rf.name();
            if (path == null || level.present.contains(path)) {
                // present already: a second writer field resolving to one reader field; Avro reads the first.
                level.skip(wf.schema(), null);
                continue;
            }
            if (!level.needed.contains(path)) {
                level.skip(wf.schema(), rf.schema()); // read by nothing, but the object path decodes it
                continue;
            }
            if (top && path.equals(explode)) {
                array(wf.schema(), rf.schema());
                continue;
            }
            if (level.leaves.contains(path)) {
                level.present.add(path);
                int mark = markCount++;
                level.found.put(path, new Leaf(mark, wf.schema(), rf.schema()));
                level.step(ScanPlan.MARK, mark, null, null);
                boolean filtered = false;
                if (top) {
                    for (RecordCondition c : mapping.conditions()) {
                        if (c.path().equals(path)) {
                            level.step(ScanPlan.FILTER, mark, null, RecordFilter.compile(c, wf.schema(), rf.schema()));
                            filtered = true;
                        }
                    }
                }
                if (!filtered) {
                    // As the conversions will read it from the mark (as the object path decodes the reader's
                    // field: inside a record read as a Tuple, what only the writer has is skipped as Avro skips
                    // it), also when a condition drops the record.
                    level.skip(wf.schema(), rf.schema());
                }
                continue;
            }
            if (wf.schema().getType() != Type.RECORD || rf.schema().getType() != Type.RECORD) {
                throw new AvroMappingException(
                        path,
                        "-",
                        AvroTypeNames.describe(rf.schema()),
                        "-",
                        "a mapped path goes through '" + path + "', which is not a record"
                                + (rf.schema().getType() == Type.UNION ? " (a union: not transcoded)" : ""));
            }
            level.present.add(path);
            walk(wf.schema(), rf.schema(), path + ".", level, top);
        }
    }

    /** The exploded array: mark its start, skip it with the element's steps, compile those steps. */
    private void array(Schema writerArray, Schema readerArray) {
        if (writerArray.getType() != Type.ARRAY
                || readerArray.getType() != Type.ARRAY
                || writerArray.getElementType().getType() != Type.RECORD
                || readerArray.getElementType().getType() != Type.RECORD) {
            throw new AvroMappingException(
                    explode,
                    "-",
                    AvroTypeNames.describe(readerArray),
                    "-",
                    "explode(...) needs an array of records in the reader and the writer schema, the writer has "
                            + AvroTypeNames.describe(writerArray));
        }
        record.present.add(explode);
        writerExplode = writerArray;
        arrayMark = markCount++;
        record.step(ScanPlan.MARK, arrayMark, null, null);
        record.step(ScanPlan.ARRAY, 0, null, null);
        writerElement = writerArray.getElementType();
        readerElement = readerArray.getElementType();
        walk(writerElement, readerElement, "", element, false);
    }

    private void constant(int c, byte[] bytes) {
        sources[c] = ScanPlan.SOURCE_CONSTANT;
        constants[c] = bytes;
    }

    private void computed(int c, Computed value) {
        sources[c] = ScanPlan.SOURCE_COMPUTED;
        computed[c] = value;
    }

    /**
     * Two marks that keep a value read from the record alone for the exploded record's rows after the first
     * (computed once per record), or -1 when the record has one row.
     */
    private int stash() {
        if (explode == null) {
            return -1;
        }
        int stash = markCount;
        markCount += 2;
        return stash;
    }

    /** Finds an iterated array in the writer and compiles the steps over one element. */
    private void compileIteration(Iteration it) {
        Schema reader = mapping.readerSchema();
        if (it.arrayPath.equals(explode)) {
            if (arrayMark < 0) {
                return; // the writer lacks the exploded array: no record has a row
            }
            elementSteps(it, writerElement, readerElement, Type.ARRAY);
            it.iter = new Computed.Iter(arrayMark, it.inner.steps(null));
            return;
        }
        Leaf leaf = record.found.get(it.arrayPath);
        if (leaf == null) {
            ReaderDefaults.Default d = ReaderDefaults.of(
                    reader, it.arrayPath, record.present, writer.getFullName(), it.arrayPath, "-", "-");
            boolean empty = d.value() instanceof java.util.Collection<?> list && list.isEmpty()
                    || d.value() instanceof Map<?, ?> map && map.isEmpty();
            if (!empty) {
                throw new AvroMappingException(
                        it.arrayPath,
                        "-",
                        AvroTypeNames.describe(d.schema()),
                        "-",
                        "the writer schema " + writer.getFullName() + " lacks the array and its reader default is "
                                + "not empty: only an empty default (length 0, sum 0, an empty projection) is supported");
            }
            Schema r = d.schema();
            // Compiled against the reader for its checks; every column over it is folded (nothing to iterate).
            elementSteps(it, element(r), element(r), r.getType());
            return;
        }
        Type type = leaf.reader().getType();
        if ((type != Type.ARRAY && type != Type.MAP) || leaf.writer().getType() != type) {
            throw new AvroMappingException(
                    it.arrayPath,
                    "-",
                    AvroTypeNames.describe(leaf.reader()),
                    "-",
                    "iterated as an array"
                            + (type == Type.UNION ? ", but it is a union (a nullable array is not iterated)" : "")
                            + "; the writer has " + AvroTypeNames.describe(leaf.writer()));
        }
        elementSteps(it, element(leaf.writer()), element(leaf.reader()), type);
        it.iter = new Computed.Iter(leaf.mark(), it.inner.steps(null));
    }

    private static Schema element(Schema collection) {
        return collection.getType() == Type.MAP ? collection.getValueType() : collection.getElementType();
    }

    /** The steps over one element (one entry of a map: its key, then its value). */
    private void elementSteps(Iteration it, Schema writerItem, Schema readerItem, Type collection) {
        it.writerElement = writerItem;
        it.readerElement = readerItem;
        Level level = it.inner;
        if (collection == Type.MAP) {
            if (it.whole || !level.leaves.isEmpty()) {
                throw new AvroMappingException(
                        it.arrayPath, "-", "map", "-", "of a map only the length(...) is computed");
            }
            level.step(RowPlan.SKIP_LENGTH, 0, null, null);
            level.skip(writerItem, readerItem);
            return;
        }
        if (it.whole) {
            int mark = markCount++;
            level.step(ScanPlan.MARK, mark, null, null);
            level.skip(writerItem, readerItem);
            it.wholeLeaf = new Leaf(mark, writerItem, readerItem);
        } else if (!level.leaves.isEmpty()) {
            if (writerItem.getType() != Type.RECORD || readerItem.getType() != Type.RECORD) {
                throw new AvroMappingException(
                        it.arrayPath,
                        "-",
                        AvroTypeNames.describe(readerItem),
                        "-",
                        "a path goes through the array '" + it.arrayPath + "', whose elements are not records");
            }
            walk(writerItem, readerItem, "", level, false);
        } else {
            level.skip(writerItem, readerItem);
        }
    }

    /** {@code lines.sku} into {@code Array(String)}: one value per element of the unexploded array. */
    private void compileProjection(int c, Mapped m, Iteration it, String inner) {
        if (m.type().kind() != ColumnType.Kind.ARRAY) {
            throw computedError(
                    m,
                    "the path goes through the array '" + it.arrayPath + "', which is not exploded: one value per "
                            + "element, so the column is an Array(...) (a Nested column's sub-column), or explode('"
                            + it.arrayPath + "')");
        }
        ColumnType elementType = m.type().inner();
        ConversionCompiler compiler =
                new ConversionCompiler(m.path(), m.column().name());
        Leaf leaf = it.inner.found.get(UnionBranch.fieldPath(inner));
        Conversion conversion = null;
        byte[] constant = null;
        if (leaf != null) {
            conversion = compiler.compile(leaf.writer(), leaf.reader(), elementType);
        } else {
            ReaderDefaults.Default d =
                    ReaderDefaults.of(it.readerElement, inner, it.inner.present, it.writerElement.getFullName(), m);
            try {
                constant = Constants.converted(
                        compiler.compile(d.schema(), d.schema(), elementType), d.schema(), d.value());
            } catch (ValueRejected e) {
                throw computedError(m, "the reader default does not fit the column: " + e.getMessage());
            }
        }
        if (it.iter == null) {
            constant(c, new byte[] {0}); // the writer lacks the array: always empty
        } else {
            computed(c, Computed.projection(it.iter, conversion, leaf == null ? -1 : leaf.mark(), constant));
        }
    }

    /** A number a computed column reads: where (or which constant), and whether it is a float. */
    private record Num(Computed.Operand operand, boolean floating) {}

    private void compileComputed(int c, Mapped m) {
        ColumnSource source = m.source();
        if (source instanceof ColumnSource.Number || source instanceof ColumnSource.Text) {
            constant(c, Constants.rowBinary(m));
            return;
        }
        if (source instanceof ColumnSource.Now) {
            computed(c, Constants.now(m));
            return;
        }
        if (source instanceof ColumnSource.Length l) {
            Iteration it = iterations.get(l.path());
            NumberColumn target = target(m, false);
            if (it.iter != null) {
                computed(c, Computed.length(it.iter, target, stash()));
            } else {
                constant(c, arrayMark < 0 && l.path().equals(explode) ? new byte[0] : target.bytesOf(0L));
            }
            return;
        }
        if (source instanceof ColumnSource.Sum sum) {
            int array = firstArray(mapping.readerSchema(), sum.path(), true);
            String arrayPath = sum.path().substring(0, array);
            Iteration it = iterations.get(arrayPath);
            if (arrayPath.equals(explode) && arrayMark < 0) {
                constant(c, new byte[0]); // no record of this writer has a row
                return;
            }
            Num a = elementOperand(
                    it, array == sum.path().length() ? "" : sum.path().substring(array + 1), m);
            Num b = sum.factor() == null
                    ? null
                    : elementOperand(it, sum.factor().substring(arrayPath.length() + 1), m);
            boolean floating = a.floating() || (b != null && b.floating());
            NumberColumn target = target(m, floating);
            if (it.iter == null) {
                constant(c, floating ? target.bytesOf(0.0) : target.bytesOf(0L));
            } else {
                computed(
                        c,
                        Computed.sum(it.iter, a.operand(), b == null ? null : b.operand(), floating, target, stash()));
            }
            return;
        }
        ColumnSource.Product p = (ColumnSource.Product) source;
        boolean inElement = false;
        for (ColumnSource.Operand o : List.of(p.a(), p.b())) {
            inElement |= o.path() != null && explode != null && o.path().startsWith(elementPrefix);
        }
        if (inElement && arrayMark < 0) {
            constant(c, new byte[0]); // no record of this writer has a row
            return;
        }
        Num a = rowOperand(p.a(), m);
        Num b = rowOperand(p.b(), m);
        boolean floating = a.floating() || b.floating();
        NumberColumn target = target(m, floating);
        if (a.operand().isConstant() && b.operand().isConstant()) {
            try {
                constant(
                        c,
                        floating
                                ? target.bytesOf(a.operand().doubleValue * b.operand().doubleValue)
                                : target.bytesOf(Computed.multiply(a.operand().longValue, b.operand().longValue)));
            } catch (ValueRejected e) {
                throw computedError(m, "the constant product does not fit the column: " + e.getMessage());
            }
            return;
        }
        computed(c, Computed.product(a.operand(), b.operand(), floating, target, inElement ? -1 : stash()));
    }

    private static NumberColumn target(Mapped m, boolean floating) {
        try {
            return NumberColumn.of(m.type(), floating);
        } catch (IllegalArgumentException e) {
            throw computedError(m, e.getMessage());
        }
    }

    /** A field of one element of the iterated array ({@code inner} empty: the element itself). */
    private Num elementOperand(Iteration it, String inner, Mapped m) {
        if (inner.isEmpty()) {
            return number(it.wholeLeaf, null, inner, m);
        }
        Leaf leaf = it.inner.found.get(inner);
        if (leaf != null) {
            return number(leaf, null, it.arrayPath + "." + inner, m);
        }
        return number(
                null,
                ReaderDefaults.of(it.readerElement, inner, it.inner.present, it.writerElement.getFullName(), m),
                it.arrayPath + "." + inner,
                m);
    }

    /** A product's operand: a number, a field of the record or of the exploded array's element. */
    private Num rowOperand(ColumnSource.Operand o, Mapped m) {
        if (o.path() == null) {
            ColumnSource.Number n = o.number();
            if (!n.integral()) {
                return new Num(Computed.Operand.constant(n.value().doubleValue()), true);
            }
            try {
                return new Num(Computed.Operand.constant(n.value().longValueExact()), false);
            } catch (ArithmeticException e) {
                throw computedError(m, "the number " + n.text() + " does not fit a 64-bit integer");
            }
        }
        boolean inElement = explode != null && o.path().startsWith(elementPrefix);
        Level level = inElement ? element : record;
        String path = inElement ? o.path().substring(elementPrefix.length()) : o.path();
        Leaf leaf = level.found.get(path);
        if (leaf != null) {
            return number(leaf, null, o.path(), m);
        }
        return number(
                null,
                ReaderDefaults.of(
                        inElement ? readerElement : mapping.readerSchema(),
                        path,
                        level.present,
                        inElement ? writerElement.getFullName() : writer.getFullName(),
                        m),
                o.path(),
                m);
    }

    /** An operand read from {@code leaf}, or the constant {@code d} (a reader default) when it is null. */
    private static Num number(Leaf leaf, ReaderDefaults.Default d, String path, Mapped m) {
        Schema reader = leaf != null ? leaf.reader() : d.schema();
        Schema writer = leaf != null ? leaf.writer() : d.schema();
        Type r = reader.getType();
        if (r == Type.UNION || writer.getType() == Type.UNION) {
            throw computedError(
                    m,
                    "'" + path + "' is a union (" + AvroTypeNames.describe(reader) + "): a computed column reads "
                            + "numbers that cannot be null (int, long, float, double)");
        }
        if (r != Type.INT && r != Type.LONG && r != Type.FLOAT && r != Type.DOUBLE) {
            throw computedError(
                    m,
                    "'" + path + "' is " + AvroTypeNames.describe(reader) + ", not an int, long, float or double"
                            + (reader.getLogicalType() != null
                                    ? " (logicalType " + reader.getLogicalType().getName() + " values are not computed)"
                                    : ""));
        }
        boolean floating = r == Type.FLOAT || r == Type.DOUBLE;
        if (leaf == null) {
            Object v = d.value();
            return floating
                    ? new Num(Computed.Operand.constant(((java.lang.Number) v).doubleValue()), true)
                    : new Num(Computed.Operand.constant(((java.lang.Number) v).longValue()), false);
        }
        Type w = writer.getType();
        int read = switch (r) {
            case INT -> w == Type.INT ? Conversion.READ_INT : -1;
            case LONG -> w == Type.INT ? Conversion.READ_INT : w == Type.LONG ? Conversion.READ_LONG : -1;
            case FLOAT ->
                switch (w) {
                    case INT -> Conversion.READ_INT_AS_FLOAT;
                    case LONG -> Conversion.READ_LONG_AS_FLOAT;
                    case FLOAT -> Conversion.READ_FLOAT;
                    default -> -1;
                };
            default ->
                switch (w) {
                    case INT -> Conversion.READ_INT;
                    case LONG -> Conversion.READ_LONG;
                    case FLOAT -> Conversion.READ_FLOAT;
                    case DOUBLE -> Conversion.READ_DOUBLE;
                    default -> -1;
                };
        };
        if (read < 0) {
            throw computedError(
                    m,
                    "'" + path + "': writer " + AvroTypeNames.describe(writer) + " does not resolve to reader "
                            + AvroTypeNames.describe(reader));
        }
        return new Num(Computed.Operand.field(leaf.mark(), read), floating);
    }
}
