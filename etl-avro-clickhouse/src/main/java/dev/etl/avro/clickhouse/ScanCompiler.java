package dev.etl.avro.clickhouse;

import dev.etl.avro.clickhouse.AvroRowMapping.Mapped;
import dev.etl.avro.clickhouse.AvroRowMapping.RecordCondition;
import dev.etl.clickhouse.ClickHouseColumn;
import dev.etl.clickhouse.ColumnType;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
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
 */
final class ScanCompiler {
    private final AvroRowMapping mapping;
    private final Schema writer;
    private final String explode;
    private final String elementPrefix;
    private final Level record = new Level();
    private final Level element = new Level();
    private int markCount;
    private int arrayMark = -1;
    private Schema writerElement;
    private Schema readerElement;

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
         * holds the field; for a field read later, the writer schema again), else as Avro skips it (only the
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

        ScanPlan.Steps steps() {
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
                    filters.toArray(new RecordFilter[0]));
        }
    }

    private record Leaf(int mark, Schema writer, Schema reader) {}

    ScanCompiler(AvroRowMapping mapping, Schema writer) {
        this.mapping = mapping;
        this.writer = writer;
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
            } else if (explode != null && m.path().equals(explode)) {
                throw new AvroMappingException(
                        m.path(),
                        m.column().name(),
                        "array",
                        m.column().type(),
                        "the exploded array is written one element per row: map its elements' fields ('" + elementPrefix
                                + "<field>') instead");
            } else if (explode != null && m.path().startsWith(elementPrefix)) {
                element.need(UnionBranch.fieldPath(m.path().substring(elementPrefix.length())));
            } else {
                record.need(UnionBranch.fieldPath(m.path())); // amount[long] reads field amount
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
        if (explode != null) {
            record.needed.add(explode);
            for (int dot = explode.indexOf('.'); dot >= 0; dot = explode.indexOf('.', dot + 1)) {
                record.needed.add(explode.substring(0, dot));
            }
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
        List<Mapped> mapped = mapping.mapped();
        int n = mapped.size();
        int[] sources = new int[n];
        int[] sourceArgs = new int[n];
        Conversion[] conversions = new Conversion[n];
        byte[][] constants = new byte[n][];
        ColumnType[] types = new ColumnType[n];
        for (int c = 0; c < n; c++) {
            Mapped m = mapped.get(c);
            types[c] = m.type();
            if (m.isIndex()) {
                sources[c] = ScanPlan.SOURCE_INDEX;
                continue;
            }
            boolean inElement = explode != null && m.path().startsWith(elementPrefix);
            if (inElement && !arrayPresent) {
                constants[c] = new byte[0]; // never written: no record of this writer has a row
                sources[c] = ScanPlan.SOURCE_CONSTANT;
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
                sources[c] = ScanPlan.SOURCE_CONSTANT;
                constants[c] = ReaderDefaults.rowBinary(ReaderDefaults.of(root, path, level.present, writerName, m), m);
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
        return new ScanPlan(
                record.steps(),
                arrayPresent ? element.steps() : null,
                arrayMark,
                dropAll,
                sources,
                sourceArgs,
                conversions,
                constants,
                types,
                mapping.columns().toArray(new ClickHouseColumn[0]),
                keyRead,
                keyMark,
                keyConstant,
                markCount);
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
                    // As the conversions will read it from the mark, also when a condition drops the record.
                    level.skip(wf.schema(), wf.schema());
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
        arrayMark = markCount++;
        record.step(ScanPlan.MARK, arrayMark, null, null);
        record.step(ScanPlan.ARRAY, 0, null, null);
        writerElement = writerArray.getElementType();
        readerElement = readerArray.getElementType();
        walk(writerElement, readerElement, "", element, false);
    }
}
