package dev.etl.avro.clickhouse;

import dev.etl.clickhouse.ClickHouseColumn;
import dev.etl.clickhouse.ClickHouseTableSchema;
import dev.etl.error.Suggestion;
import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.function.Consumer;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.apache.avro.Schema;
import org.jspecify.annotations.Nullable;

/**
 * An {@link AvroRowMapping} derived from a table's columns and a reader schema by column name: the table
 * is the mapping, and only what names do not say is declared.
 *
 * <pre>{@code
 * AvroTableMapping orders = AvroTableMapping.derive(Order.getClassSchema(), table)   // table: system.columns
 *         .source("order_id", "id")          // a column whose field has another name
 *         .explode("lines")                  // one row per line; columns may name the line's fields
 *         .index("line_no")                  // the line's position in the array
 *         .dropWhen("status", "CANCELLED")
 *         .shardKey("id")
 *         .build();                          // every problem in one AvroTableMappingException
 * AvroRowMapping mapping = orders.rowMapping();
 * }</pre>
 *
 * <p><b>Which field a column takes.</b> Every insertable column of the table, in table order, gets a source:
 * <ol>
 * <li>its {@link Builder#source source}, when one is given (a field path, or any source
 *     {@link AvroRowMapping.Builder#column(String, String, String)} takes), the element index when it is
 *     named by {@link Builder#index index}, or nothing when it is left to its {@code DEFAULT} by
 *     {@link Builder#serverDefault serverDefault};</li>
 * <li>else the field it names. A field's path is its name, with a dot for each nested record it is in
 *     ({@code customer.name}); inside the {@link Builder#explode exploded} array's elements both the full
 *     path ({@code lines.sku}) and the path within the element ({@code sku}) count. A column names a field
 *     when its name is the field's path, or the path with underscores for the dots ({@code customer_name}
 *     for {@code customer.name}), tried in this order: the path exactly, the underscore form exactly, the
 *     path ignoring case, the underscore form ignoring case. The first of these that any field meets
 *     decides; two fields meeting it (a record field and a field of the array's element both named
 *     {@code id}, or {@code a_b.c} and {@code a.b_c} for {@code a_b_c}) make the column ambiguous: give it
 *     a source. Paths go through records (and the exploded array's element record) only, not through
 *     unions, maps or other arrays;</li>
 * <li>else, when the table has a {@code DEFAULT} for it, the column is left out: the mapping's
 *     {@link AvroRowMapping#columns() columns} are the insert's column list, and the server computes the
 *     rest ({@link #leftToDefaults()});</li>
 * <li>else it is an error.</li>
 * </ol>
 * Each column is then compiled on its own against the reader schema, so that every field that cannot go
 * into its column's type is reported, not only the first; then the whole mapping, with the record
 * conditions and the shard key. Everything wrong is thrown at once by {@link Builder#build()} as one
 * {@link AvroTableMappingException}.
 *
 * <p><b>What the table does not store.</b> {@link #unstoredFields()} lists the reader's leaf fields that no
 * column reads, so that a pipeline can count and log them (a field the writer adds appears there once the
 * reader schema has it).
 *
 * <p>Immutable and thread-safe; the builder is not.
 */
public final class AvroTableMapping {
    /** How {@link #sources()} names an {@link Builder#index index} column's source. */
    public static final String ELEMENT_INDEX = "(element index)";

    private final AvroRowMapping rowMapping;
    private final Map<String, String> sources;
    private final List<String> leftToDefaults;
    private final List<String> unstoredFields;

    private AvroTableMapping(
            AvroRowMapping rowMapping,
            Map<String, String> sources,
            List<String> leftToDefaults,
            List<String> unstoredFields) {
        this.rowMapping = rowMapping;
        this.sources = Collections.unmodifiableMap(new LinkedHashMap<>(sources));
        this.leftToDefaults = List.copyOf(leftToDefaults);
        this.unstoredFields = List.copyOf(unstoredFields);
    }

    /**
     * Starts deriving the mapping of {@code table}'s insertable columns from the fields of
     * {@code readerSchema} (a record).
     */
    public static Builder derive(Schema readerSchema, ClickHouseTableSchema table) {
        Objects.requireNonNull(readerSchema, "readerSchema");
        Objects.requireNonNull(table, "table");
        if (readerSchema.getType() != Schema.Type.RECORD) {
            throw new IllegalArgumentException("the reader schema must be a record, not " + readerSchema.getType());
        }
        return new Builder(readerSchema, table);
    }

    /** The derived mapping, compiled: its columns are the insert's column list, in table order. */
    public AvroRowMapping rowMapping() {
        return rowMapping;
    }

    /**
     * Each written column's source, in table order: the field path matched or the source given, or
     * {@value #ELEMENT_INDEX} for an index column (for a startup log line).
     */
    public Map<String, String> sources() {
        return sources;
    }

    /** The insertable columns left to their {@code DEFAULT} expression (no field matched them), in table order. */
    public List<String> leftToDefaults() {
        return leftToDefaults;
    }

    /**
     * The reader schema's leaf fields (paths through records and the exploded array's element) that no
     * column reads, in schema order. A column given a computed source reads the field paths it names.
     */
    public List<String> unstoredFields() {
        return unstoredFields;
    }

    @Override
    public String toString() {
        return "AvroTableMapping[" + rowMapping.readerSchema().getFullName() + " -> " + sources
                + (leftToDefaults.isEmpty() ? "" : ", defaults " + leftToDefaults)
                + (unstoredFields.isEmpty() ? "" : ", not stored " + unstoredFields) + "]";
    }

    /** Says what names do not; {@link #build()} derives the rest. Not thread-safe. */
    public static final class Builder {
        private final Schema reader;
        private final ClickHouseTableSchema table;
        private final Map<String, String> overrides = new LinkedHashMap<>();
        private final Set<String> indexColumns = new LinkedHashSet<>();
        private final Set<String> serverDefaults = new LinkedHashSet<>();
        /** The conditions and the key, applied to the whole mapping (not to a column compiled alone). */
        private final List<Consumer<AvroRowMapping.Builder>> recordSteps = new ArrayList<>();
        /** Problems of the calls themselves (an array exploded twice), reported with the others. */
        private final List<String> callProblems = new ArrayList<>();

        private @Nullable String explode;

        private Builder(Schema reader, ClickHouseTableSchema table) {
            this.reader = reader;
            this.table = table;
        }

        /**
         * Writes {@code column} from {@code source} rather than from the field it names: a field path
         * ({@code customer.name}), or any source {@link AvroRowMapping.Builder#column(String, String, String)}
         * takes. A column the table lacks is an error of {@link #build()}.
         */
        public Builder source(String column, String source) {
            Objects.requireNonNull(column, "column");
            Objects.requireNonNull(source, "source");
            if (overrides.put(column, source) != null) {
                callProblems.add("source('" + column + "', ...) is given twice");
            }
            return this;
        }

        /**
         * Writes one row per element of the array of records at {@code arrayPath}, as
         * {@link AvroRowMapping.Builder#explode} does; columns may then name the element's fields (by their
         * path in the element or their full path).
         */
        public Builder explode(String arrayPath) {
            Objects.requireNonNull(arrayPath, "arrayPath");
            if (explode != null) {
                callProblems.add("explode('" + arrayPath + "'): the mapping explodes '" + explode
                        + "' already (at most one array per mapping)");
            } else {
                explode = arrayPath;
            }
            return this;
        }

        /** Writes {@code column} (an integer column of the table) as the exploded element's position, from 0. */
        public Builder index(String column) {
            indexColumns.add(Objects.requireNonNull(column, "column"));
            return this;
        }

        /**
         * Leaves {@code column} to the table's {@code DEFAULT} expression even when a field names it: it is not
         * in the mapping's columns, so the insert leaves it to the server (an insert time the server should
         * set, not the producer's field of the same name). A column without a {@code DEFAULT}, or one the
         * table lacks, is an error of {@link #build()}.
         */
        public Builder serverDefault(String column) {
            serverDefaults.add(Objects.requireNonNull(column, "column"));
            return this;
        }

        /**
         * Drops the records whose field at {@code fieldPath} equals one of {@code values}, as
         * {@link AvroRowMapping.Builder#dropWhen} does. A string value for an int, long or boolean field is
         * read as that type ({@code "7"}, {@code "true"}), as configuration files spell them.
         */
        public Builder dropWhen(String fieldPath, Object... values) {
            Object[] typed = asFieldType(fieldPath, values);
            recordSteps.add(b -> b.dropWhen(fieldPath, typed));
            return this;
        }

        /** Keeps only the records whose field at {@code fieldPath} equals one of {@code values}; see {@link #dropWhen}. */
        public Builder keepWhen(String fieldPath, Object... values) {
            Object[] typed = asFieldType(fieldPath, values);
            recordSteps.add(b -> b.keepWhen(fieldPath, typed));
            return this;
        }

        /** Names the int or long field the transcoder's shard key reads; see {@link AvroRowMapping.Builder#shardKey}. */
        public Builder shardKey(String fieldPath) {
            Objects.requireNonNull(fieldPath, "fieldPath");
            recordSteps.add(b -> b.shardKey(fieldPath));
            return this;
        }

        /**
         * The condition's values as the field's type takes them: a string for an int or long field as a
         * number, for a boolean as a Boolean (configuration spells every value as a string); others as given,
         * for {@link RecordFilter} to judge.
         */
        private Object[] asFieldType(String fieldPath, Object[] values) {
            Objects.requireNonNull(fieldPath, "fieldPath");
            for (Object v : values) {
                Objects.requireNonNull(v, "value of " + fieldPath);
            }
            Schema field = reader;
            for (String name : fieldPath.split("\\.", -1)) {
                Schema.Field f = field.getType() == Schema.Type.RECORD ? field.getField(name) : null;
                if (f == null) {
                    return values.clone(); // no such field: the mapping's build says so
                }
                field = f.schema();
            }
            Object[] typed = values.clone();
            for (int i = 0; i < typed.length; i++) {
                if (!(typed[i] instanceof String s)) {
                    continue;
                }
                String v = s.strip();
                switch (field.getType()) {
                    case INT, LONG -> {
                        try {
                            typed[i] = Long.parseLong(v);
                        } catch (NumberFormatException e) {
                            // left a string: the filter says it is not an integer number
                        }
                    }
                    case BOOLEAN -> {
                        if (v.equalsIgnoreCase("true") || v.equalsIgnoreCase("false")) {
                            typed[i] = Boolean.parseBoolean(v);
                        }
                    }
                    default -> {}
                }
            }
            return typed;
        }

        /**
         * Derives every column's source and compiles the mapping against the reader schema.
         *
         * @throws AvroTableMappingException listing every problem found (see the class comment), with the
         *         fields no column would store
         */
        public AvroTableMapping build() {
            ReaderFields fields = new ReaderFields(reader, explode);
            boolean explodes = explode != null && fields.explodes();

            // First every column's source, so that "did you mean" can prefer the fields nothing reads.
            List<Derivation> derivations = new ArrayList<>();
            for (ClickHouseColumn column : table.insertable()) {
                derivations.add(derive(column, fields));
            }
            Set<String> read = new LinkedHashSet<>();
            for (Derivation d : derivations) {
                if (d.source() != null) {
                    read.addAll(fields.leavesReadBy(d.source()));
                }
            }
            List<String> unstored = new ArrayList<>(fields.leaves());
            unstored.removeAll(read);

            // Then the problems in table order, each column compiled on its own.
            List<String> problems = new ArrayList<>();
            List<String> unmatched = new ArrayList<>();
            List<String> leftToDefaults = new ArrayList<>();
            List<Derivation> written = new ArrayList<>();
            for (Derivation d : derivations) {
                String name = d.column().name();
                switch (d.kind()) {
                    case DEFAULT -> leftToDefaults.add(name);
                    case UNMATCHED -> {
                        unmatched.add(name);
                        String suggestion = fields.closest(name, unstored);
                        problems.add(describe(d.column()) + ": no field of that name or path, and no DEFAULT"
                                + (suggestion == null ? "" : "; did you mean '" + suggestion + "'?"));
                    }
                    case PROBLEM -> problems.add(d.problem());
                    case FIELD, INDEX -> {
                        String problem = compileAlone(d, explodes);
                        if (problem != null) {
                            String source = d.source();
                            problems.add(
                                    source != null && overrides.containsKey(name)
                                            ? "source('" + name + "', '" + source + "'): " + problem
                                                    + unknownPathHint(source, fields)
                                            : problem);
                        } else {
                            written.add(d);
                        }
                    }
                }
            }

            for (Map.Entry<String, String> o : overrides.entrySet()) {
                if (table.column(o.getKey()) == null) {
                    problems.add("source('" + o.getKey() + "', '" + o.getValue() + "'): the table has no insertable"
                            + " column '" + o.getKey() + "'" + didYouMean(o.getKey(), columnNames()));
                }
            }
            unknownColumns("index", indexColumns, problems);
            unknownColumns("serverDefault", serverDefaults, problems);
            problems.addAll(callProblems);
            if (explode != null && !explodes) {
                problems.add("explode('" + explode + "'): the reader schema " + reader.getFullName()
                        + " has no array of records at '" + explode + "'"
                        + didYouMean(explode, fields.arraysOfRecords()));
            }

            AvroRowMapping mapping = null;
            if (!written.isEmpty()) {
                try {
                    mapping = whole(written, explodes);
                } catch (AvroMappingException | IllegalArgumentException | IllegalStateException e) {
                    problems.add(e.getMessage());
                }
            } else if (problems.isEmpty()) {
                problems.add("no column to write: the table's insertable columns " + columnNames()
                        + " all have a DEFAULT and no field matches any of them");
            }
            if (!problems.isEmpty() || mapping == null) {
                throw new AvroTableMappingException(reader.getFullName(), problems, unmatched, unstored);
            }
            Map<String, String> sources = new LinkedHashMap<>();
            for (Derivation d : written) {
                sources.put(d.column().name(), d.kind() == Kind.INDEX ? ELEMENT_INDEX : d.source());
            }
            return new AvroTableMapping(mapping, sources, leftToDefaults, unstored);
        }

        /** What a column is written from: a source given or matched, the index, its default, or a problem. */
        private enum Kind {
            FIELD,
            INDEX,
            DEFAULT,
            UNMATCHED,
            PROBLEM
        }

        /** One column's derivation ({@code source} for {@link Kind#FIELD}, {@code problem} for {@link Kind#PROBLEM}). */
        private record Derivation(
                ClickHouseColumn column,
                Kind kind,
                @Nullable String source,
                @Nullable String problem) {}

        private Derivation derive(ClickHouseColumn column, ReaderFields fields) {
            String name = column.name();
            List<String> declared = new ArrayList<>();
            String override = overrides.get(name);
            if (override != null) {
                declared.add("source('" + name + "', '" + override + "')");
            }
            if (indexColumns.contains(name)) {
                declared.add("index('" + name + "')");
            }
            if (serverDefaults.contains(name)) {
                declared.add("serverDefault('" + name + "')");
            }
            if (declared.size() > 1) {
                return new Derivation(
                        column,
                        Kind.PROBLEM,
                        null,
                        describe(column) + ": " + String.join(" and ", declared) + " are given");
            }
            if (override != null) {
                return new Derivation(column, Kind.FIELD, override, null);
            }
            if (indexColumns.contains(name)) {
                return new Derivation(column, Kind.INDEX, null, null);
            }
            if (serverDefaults.contains(name)) {
                return table.hasDefault(name)
                        ? new Derivation(column, Kind.DEFAULT, null, null)
                        : new Derivation(
                                column,
                                Kind.PROBLEM,
                                null,
                                describe(column) + ": serverDefault('" + name + "') is given, but the table has no"
                                        + " DEFAULT for it");
            }
            List<String> matches = fields.match(name);
            if (matches.size() == 1) {
                return new Derivation(column, Kind.FIELD, matches.get(0), null);
            }
            if (matches.size() > 1) {
                return new Derivation(
                        column,
                        Kind.PROBLEM,
                        null,
                        describe(column) + ": fields " + quoted(matches)
                                + " all match its name; give its source (source('" + name + "', <field path>))");
            }
            return new Derivation(column, table.hasDefault(name) ? Kind.DEFAULT : Kind.UNMATCHED, null, null);
        }

        private void unknownColumns(String declaration, Set<String> names, List<String> problems) {
            for (String name : names) {
                if (table.column(name) == null) {
                    problems.add(declaration + "('" + name + "'): the table has no insertable column '" + name + "'"
                            + didYouMean(name, columnNames()));
                }
            }
        }

        private List<String> columnNames() {
            return table.insertable().stream().map(ClickHouseColumn::name).toList();
        }

        /** Compiles one column alone (with the exploded array), so that each column's problem shows. */
        private @Nullable String compileAlone(Derivation column, boolean explodes) {
            try {
                AvroRowMapping.Builder b = AvroRowMapping.builder(reader);
                if (explodes) {
                    b.explode(Objects.requireNonNull(explode));
                }
                add(b, column);
                b.build();
                return null;
            } catch (AvroMappingException | IllegalArgumentException | IllegalStateException e) {
                return e.getMessage();
            }
        }

        /** The mapping of the columns that compiled alone, with the array, the conditions and the key. */
        private AvroRowMapping whole(List<Derivation> columns, boolean explodes) {
            AvroRowMapping.Builder b = AvroRowMapping.builder(reader);
            if (explodes) {
                b.explode(Objects.requireNonNull(explode));
            }
            for (Derivation d : columns) {
                add(b, d);
            }
            for (Consumer<AvroRowMapping.Builder> step : recordSteps) {
                step.accept(b);
            }
            return b.build();
        }

        private static void add(AvroRowMapping.Builder b, Derivation d) {
            if (d.kind() == Kind.INDEX) {
                b.index(d.column().name(), d.column().type());
            } else {
                b.column(d.column().name(), d.column().type(), Objects.requireNonNull(d.source()));
            }
        }

        private static String describe(ClickHouseColumn column) {
            return "column '" + column.name() + "' (" + column.type() + ")";
        }
    }

    private static String quoted(List<String> names) {
        return String.join(", ", names.stream().map(n -> "'" + n + "'").toList());
    }

    /** "did you mean" for a declared source that is a plain field path the reader schema does not have. */
    private static String unknownPathHint(String source, ReaderFields fields) {
        if (!ReaderFields.PATH.matcher(source).matches() || fields.leaves().contains(source)) {
            return "";
        }
        return didYouMean(source, fields.leaves());
    }

    private static String didYouMean(String name, List<String> candidates) {
        String closest = Suggestion.closest(name, candidates);
        return closest == null || !near(name, closest) ? "" : "; did you mean '" + closest + "'?";
    }

    /** Whether {@code candidate} is close enough to {@code name} to be a suggestion rather than noise. */
    private static boolean near(String name, String candidate) {
        return Suggestion.distance(name, candidate) <= Math.max(2, (name.length() + 1) / 2);
    }

    /**
     * The reader schema's fields by path: every field reached through records and through the exploded
     * array's element record, with the keys a column name is matched against.
     */
    static final class ReaderFields {
        /** A token of a source that may name a field path (a call's name is followed by a parenthesis). */
        private static final Pattern PATH = Pattern.compile("[A-Za-z_][A-Za-z0-9_]*(?:\\.[A-Za-z_][A-Za-z0-9_]*)*");

        private static final Pattern QUOTED = Pattern.compile("'(?:[^'\\\\]|\\\\.)*'");

        /** A field: its full path, its path within the exploded element (or null), its schema. */
        private record Field(String path, @Nullable String inElement, Schema schema, boolean leaf) {}

        private final @Nullable String explode;
        private final List<Field> fields = new ArrayList<>();
        private boolean explodes;

        ReaderFields(Schema reader, @Nullable String explode) {
            this.explode = explode;
            walk(reader, "", null);
        }

        private void walk(Schema record, String prefix, @Nullable String elementPrefix) {
            for (Schema.Field f : record.getFields()) {
                String path = prefix + f.name();
                String inElement = elementPrefix == null ? null : elementPrefix + f.name();
                Schema s = f.schema();
                boolean exploded = elementPrefix == null
                        && path.equals(explode)
                        && s.getType() == Schema.Type.ARRAY
                        && s.getElementType().getType() == Schema.Type.RECORD;
                boolean intoRecord = s.getType() == Schema.Type.RECORD;
                fields.add(new Field(path, inElement, s, !intoRecord && !exploded));
                if (intoRecord) {
                    walk(s, path + ".", inElement == null ? null : inElement + ".");
                } else if (exploded) {
                    explodes = true;
                    walk(s.getElementType(), path + ".", "");
                }
            }
        }

        /** Whether the exploded array is an array of records of the reader schema (outside the array). */
        boolean explodes() {
            return explodes;
        }

        /** The leaf paths in schema order. */
        List<String> leaves() {
            return fields.stream().filter(Field::leaf).map(Field::path).toList();
        }

        /** The arrays of records outside other arrays (what {@code explode} may name). */
        List<String> arraysOfRecords() {
            return fields.stream()
                    .filter(f -> f.inElement() == null
                            && f.schema().getType() == Schema.Type.ARRAY
                            && f.schema().getElementType().getType() == Schema.Type.RECORD)
                    .map(Field::path)
                    .toList();
        }

        /** The paths of the fields {@code column} names, by the first rule any field meets (see the class comment). */
        List<String> match(String column) {
            for (int rule = 0; rule < 4; rule++) {
                Set<String> found = new LinkedHashSet<>();
                for (Field f : fields) {
                    if (meets(column, f.path(), rule)
                            || (f.inElement() != null && meets(column, f.inElement(), rule))) {
                        found.add(f.path());
                    }
                }
                if (!found.isEmpty()) {
                    return List.copyOf(found);
                }
            }
            return List.of();
        }

        private static boolean meets(String column, String path, int rule) {
            return switch (rule) {
                case 0 -> column.equals(path);
                case 1 -> column.equals(path.replace('.', '_'));
                case 2 -> column.equalsIgnoreCase(path);
                default -> column.equalsIgnoreCase(path.replace('.', '_'));
            };
        }

        /**
         * The field path nearest to {@code column}, among {@code preferred} first (the fields nothing reads),
         * else among all; null when none is near.
         */
        @Nullable
        String closest(String column, List<String> preferred) {
            String found = closestAmong(column, preferred);
            return found != null
                    ? found
                    : closestAmong(column, fields.stream().map(Field::path).toList());
        }

        private @Nullable String closestAmong(String column, List<String> paths) {
            Map<String, String> pathByKey = new LinkedHashMap<>();
            for (Field f : fields) {
                if (!paths.contains(f.path())) {
                    continue;
                }
                pathByKey.putIfAbsent(f.path(), f.path());
                pathByKey.putIfAbsent(f.path().replace('.', '_'), f.path());
                if (f.inElement() != null) {
                    pathByKey.putIfAbsent(f.inElement(), f.path());
                    pathByKey.putIfAbsent(f.inElement().replace('.', '_'), f.path());
                }
            }
            String key = Suggestion.closest(column, pathByKey.keySet());
            return key == null || !near(column, key) ? null : pathByKey.get(key);
        }

        /**
         * The leaf paths a source reads: each field path it names (a plain path, or a path inside a computed
         * source), and every leaf under it or above it (a path into an array's element reads the array).
         */
        Set<String> leavesReadBy(String source) {
            Set<String> named = new LinkedHashSet<>();
            String text = QUOTED.matcher(source).replaceAll(" ");
            Matcher m = PATH.matcher(text);
            while (m.find()) {
                int after = m.end();
                while (after < text.length() && text.charAt(after) == ' ') {
                    after++;
                }
                if (after < text.length() && text.charAt(after) == '(') {
                    continue; // a call: length(lines), sum(...)
                }
                named.add(m.group());
            }
            Set<String> read = new LinkedHashSet<>();
            for (String leaf : leaves()) {
                for (String p : named) {
                    if (leaf.equals(p) || leaf.startsWith(p + ".") || p.startsWith(leaf + ".")) {
                        read.add(leaf);
                    }
                }
            }
            return read;
        }
    }
}
