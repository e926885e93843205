package dev.etl.avro.clickhouse;

import dev.etl.clickhouse.ClickHouseColumn;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.apache.avro.Schema;

/**
 * Compiles a mapping for one writer schema into a {@link RowPlan}: walks the writer's fields in
 * writer order (nested records inlined: a record has no framing in Avro binary), matches each to the
 * reader field it resolves to (by name or reader alias), and emits the steps that write the mapped
 * columns in column order. Reader fields the writer lacks become constants from their defaults.
 */
final class PlanCompiler {
    private final AvroRowMapping mapping;
    private final Schema writer;
    private final List<AvroRowMapping.Mapped> mapped;
    private final int n;
    /** Reader paths that columns read, to their columns in order. */
    private final Map<String, List<Integer>> columnsByPath = new HashMap<>();
    /** Reader paths and their prefixes: what is worth descending into. */
    private final Set<String> needed = new HashSet<>();
    /** Reader paths the writer has (leaves and records). */
    private final Set<String> present = new HashSet<>();

    private final List<Integer> ops = new ArrayList<>();
    private final List<Integer> markArgs = new ArrayList<>();
    private final List<Integer> columnOf = new ArrayList<>();
    private final List<Conversion> conversions = new ArrayList<>();
    private final List<Schema> skips = new ArrayList<>();
    private final List<ResolvedSkip> resolvedSkips = new ArrayList<>();
    private final List<byte[]> constants = new ArrayList<>();

    /** Per column: null (not reached), a constant, or the mark of a passed field. */
    private final byte[][] constantOf;

    private final int[] markOf;
    private final Conversion[] conversionOf;
    private int nextColumn;
    private int markCount;

    PlanCompiler(AvroRowMapping mapping, Schema writer) {
        this.mapping = mapping;
        this.writer = writer;
        this.mapped = mapping.mapped();
        this.n = mapped.size();
        this.constantOf = new byte[n][];
        this.markOf = new int[n];
        this.conversionOf = new Conversion[n];
        Arrays.fill(markOf, -1);
        ConversionCompiler.requireTuplesNotAlsoDescended(mapped);
        for (int c = 0; c < n; c++) {
            String path = UnionBranch.fieldPath(mapped.get(c).path()); // amount[long] reads field amount
            columnsByPath.computeIfAbsent(path, p -> new ArrayList<>()).add(c);
            for (int dot = path.indexOf('.'); dot >= 0; dot = path.indexOf('.', dot + 1)) {
                needed.add(path.substring(0, dot));
            }
            needed.add(path);
        }
    }

    RowPlan compile() {
        if (writer.getType() != Schema.Type.RECORD) {
            throw new AvroMappingException(
                    "", "", AvroTypeNames.describe(writer), "-", "the writer schema is not a record");
        }
        // Which reader paths the writer has, so that missing ones become constants before the walk.
        List<Item> items = new ArrayList<>();
        walk(writer, mapping.readerSchema(), "", items);
        for (int c = 0; c < n; c++) {
            if (!present.contains(UnionBranch.fieldPath(mapped.get(c).path()))) {
                constantOf[c] = defaultBytes(c);
            }
        }
        emitReady();
        for (Item item : items) {
            if (item.path == null) {
                // A field the reader holds is decoded by the object path, one only the writer has skipped.
                step(
                        RowPlan.SKIP,
                        -1,
                        -1,
                        null,
                        item.writer,
                        null,
                        item.reader == null ? null : ResolvedSkip.compile(item.writer, item.reader));
                continue;
            }
            List<Integer> columns = columnsByPath.get(item.path);
            int first = columns.get(0);
            for (int c : columns) {
                AvroRowMapping.Mapped m = mapped.get(c);
                conversionOf[c] =
                        new ConversionCompiler(m.path(), m.column().name()).compile(item.writer, item.reader, m.type());
            }
            if (columns.size() == 1 && first == nextColumn) {
                step(RowPlan.CONVERT, -1, first, conversionOf[first], null, null, null);
                nextColumn++;
            } else {
                int mark = markCount++;
                step(RowPlan.MARK, mark, -1, null, null, null, null);
                for (int c : columns) {
                    markOf[c] = mark;
                }
                if (first == nextColumn) {
                    step(RowPlan.CONVERT, -1, first, conversionOf[first], null, null, null);
                    markOf[first] = -1;
                    nextColumn++;
                } else {
                    // Passed as the conversion will read it from the mark: as the object path decodes the reader's
                    // field (the conversions read what the reader holds as Avro decodes it; inside a record read
                    // as a Tuple, what only the writer has is skipped as Avro skips it, a sized block jumped over).
                    step(RowPlan.SKIP, -1, -1, null, item.writer, null, ResolvedSkip.compile(item.writer, item.reader));
                }
            }
            emitReady();
        }
        if (nextColumn != n) {
            throw new IllegalStateException(
                    "plan ends before column " + mapped.get(nextColumn).column());
        }
        int size = ops.size();
        int[] opArray = new int[size];
        int[] marks = new int[size];
        int[] columnArray = new int[size];
        for (int i = 0; i < size; i++) {
            opArray[i] = ops.get(i);
            marks[i] = markArgs.get(i);
            columnArray[i] = columnOf.get(i);
        }
        return new RowPlan(
                opArray,
                marks,
                columnArray,
                conversions.toArray(new Conversion[0]),
                skips.toArray(new Schema[0]),
                resolvedSkips.toArray(new ResolvedSkip[0]),
                constants.toArray(new byte[0][]),
                mapping.columns().toArray(new ClickHouseColumn[0]),
                markCount);
    }

    /**
     * A writer field in writer order: mapped (reader path and schema) or skipped ({@code path} null; {@code
     * reader} the reader field's schema when the reader holds the field, null when only the writer has it).
     */
    private record Item(Schema writer, Schema reader, String path) {}

    private void walk(Schema writerRecord, Schema readerRecord, String prefix, List<Item> items) {
        for (Schema.Field wf : writerRecord.getFields()) {
            Schema.Field rf = readerField(readerRecord, wf);
            String path = rf == null ? null : prefix + rf.name();
            if (path == null || present.contains(path)) {
                // present already: a second writer field resolving to one reader field (a name and an
                // alias of it); Avro reads the first, so do we.
                items.add(new Item(wf.schema(), null, null));
                continue;
            }
            if (!needed.contains(path)) {
                items.add(new Item(wf.schema(), rf.schema(), null));
                continue;
            }
            if (columnsByPath.containsKey(path)) {
                present.add(path);
                items.add(new Item(wf.schema(), rf.schema(), path));
                continue;
            }
            // A prefix of mapped paths: only records are walked into.
            if (wf.schema().getType() != Schema.Type.RECORD || rf.schema().getType() != Schema.Type.RECORD) {
                AvroRowMapping.Mapped m = firstUnder(path);
                throw new AvroMappingException(
                        m.path(),
                        m.column().name(),
                        AvroTypeNames.describe(rf.schema()),
                        m.column().type(),
                        "the path goes through '" + path + "', which is not a record"
                                + (rf.schema().getType() == Schema.Type.UNION ? " (a union: not transcoded)" : ""));
            }
            present.add(path);
            walk(wf.schema(), rf.schema(), path + ".", items);
        }
    }

    private AvroRowMapping.Mapped firstUnder(String prefix) {
        for (AvroRowMapping.Mapped m : mapped) {
            if (m.path().startsWith(prefix + ".")) {
                return m;
            }
        }
        throw new IllegalStateException(prefix);
    }

    static Schema.Field readerField(Schema reader, Schema.Field writerField) {
        Schema.Field byName = reader.getField(writerField.name());
        if (byName != null) {
            return byName;
        }
        for (Schema.Field candidate : reader.getFields()) {
            if (candidate.aliases().contains(writerField.name())) {
                return candidate;
            }
        }
        return null;
    }

    private void emitReady() {
        while (nextColumn < n) {
            int c = nextColumn;
            if (constantOf[c] != null) {
                step(RowPlan.CONSTANT, -1, c, null, null, constantOf[c], null);
            } else if (markOf[c] >= 0) {
                step(RowPlan.CONVERT_AT, markOf[c], c, conversionOf[c], null, null, null);
            } else {
                return;
            }
            nextColumn++;
        }
    }

    private void step(
            int op, int mark, int column, Conversion conversion, Schema skip, byte[] constant, ResolvedSkip resolved) {
        if (op == RowPlan.SKIP && resolved != null) {
            op = RowPlan.SKIP_RESOLVED;
        } else if (op == RowPlan.SKIP) {
            // The common skips as their own steps, without interpreting the schema per record.
            switch (skip.getType()) {
                case INT, ENUM -> op = RowPlan.SKIP_INT;
                case LONG -> op = RowPlan.SKIP_VARINT;
                case FLOAT -> {
                    op = RowPlan.SKIP_BYTES;
                    mark = 4;
                }
                case DOUBLE -> {
                    op = RowPlan.SKIP_BYTES;
                    mark = 8;
                }
                case FIXED -> {
                    op = RowPlan.SKIP_BYTES;
                    mark = skip.getFixedSize();
                }
                case STRING, BYTES -> op = RowPlan.SKIP_LENGTH;
                default -> {}
            }
        }
        ops.add(op);
        markArgs.add(mark);
        columnOf.add(column);
        conversions.add(conversion);
        skips.add(skip);
        resolvedSkips.add(resolved);
        constants.add(constant);
    }

    /** The RowBinary bytes of column {@code c}'s reader default (the writer lacks its field). */
    private byte[] defaultBytes(int c) {
        AvroRowMapping.Mapped m = mapped.get(c);
        return ReaderDefaults.rowBinary(
                ReaderDefaults.of(mapping.readerSchema(), m.path(), present, writer.getFullName(), m), m);
    }
}
