package dev.etl.json.clickhouse;

import dev.etl.clickhouse.ClickHouseColumn;
import dev.etl.clickhouse.ClickHouseTableSchema;
import dev.etl.clickhouse.ColumnEncodeException;
import dev.etl.clickhouse.ColumnType;
import dev.etl.error.DeserializationException;
import dev.etl.error.ErrorClass;
import dev.etl.error.FatalPipelineException;
import dev.etl.error.Suggestion;
import dev.etl.record.Payload;
import dev.etl.record.RecordMeta;
import dev.etl.sink.MultiRowEncoder;
import dev.etl.sink.RowBuffer;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import org.jspecify.annotations.Nullable;

/**
 * Writes one RowBinary row per JSON object, by column name, straight from the JSON bytes: one pass
 * over the message, no tree, nothing allocated per message. A {@link MultiRowEncoder} of the raw
 * {@link Payload}, so a chain of JSON messages ends in a ClickHouse table without a row class:
 *
 * <pre>{@code
 * ClickHouseTableSchema table = ...;                                  // the table's insertable columns
 * JsonRowTranscoder.Builder orders = JsonRowTranscoder.builder(table)
 *         .field("customer_name", "customer.name")                    // nested objects by a dotted path
 *         .serverDefaults();                                         // DEFAULT columns left to the server
 * SinkDefinition sink = ClickHouseSink.definition("orders", "orders-pipeline", config, orders.columns(), registry);
 * ChainFactory chains = ctx -> Chains.from(ctx, Deserializer.payload())
 *         .filter("not-tombstone", Payload::isPresent)
 *         .sink("orders", orders.build(), KeyHashRouter.byRecordKey());   // build() per lane
 * }</pre>
 *
 * <p><b>The mapping.</b> Each column of the table takes the top-level field of its name; {@link
 * Builder#field} maps a column to another field, or to one inside nested objects by a dotted path
 * ({@code customer.name}). Names are matched by their UTF-8 bytes (a name written with escapes in the
 * message is decoded first), case-sensitively. Fields that no column takes are skipped (and counted:
 * {@link #unknownFields()}); a field given twice in an object takes its last value (on a dotted path too:
 * nothing inside an earlier object of the name is read).
 *
 * <p><b>A field missing from a message</b> (or, at a nested path, an object on the way that is missing,
 * null or not an object): a {@code Nullable} column is written NULL; any other column fails the record
 * with a {@link ColumnEncodeException} naming the column and the field. A column with a {@code DEFAULT}
 * expression is mapped by name like the others (a message that has the field gives its value), so a
 * message lacking it fails too: RowBinary cannot ask for the default row by row. To let the server
 * compute it, leave the column out of the insert with {@link Builder#serverDefault} or {@link
 * Builder#serverDefaults()}; then {@link #columns()} does not list it and a field of its name in a
 * message is skipped.
 *
 * <p><b>Values</b>, per column type ({@code LowCardinality(T)} as {@code T}): integers from a JSON
 * integer or a string holding one ({@code "12"}, as 64-bit integers are often written for JavaScript),
 * range-checked, never wrapped (a fraction or an exponent fails), {@code UInt8} also from true/false;
 * {@code Float32/64} from a number (correctly rounded to the type, a {@code Float32} never through a double)
 * or a string holding one or {@code NaN}, {@code Infinity} (or {@code +Infinity}), {@code -Infinity};
 * {@code Decimal(P, S)} exactly from the number's digits (or a string holding a number), more than S decimal places other than zeros or
 * more than P digits fail, never rounded; {@code Bool} from true/false; {@code String} from a string
 * (escapes decoded to UTF-8, {@code \\uXXXX} surrogate pairs as one character, a lone surrogate as
 * {@code ?}) or a number, true or false as written; {@code FixedString(N)} from a string of at most N
 * UTF-8 bytes, zero-padded; {@code Date}/{@code Date32} from {@code "YYYY-MM-DD"} or a number of days
 * since 1970-01-01; {@code DateTime} from an ISO-8601 string ({@code 2024-05-01T12:30:00Z}, an offset, or
 * none for UTC; a fraction is truncated) or a number of seconds since the epoch; {@code DateTime64(p)}
 * from an ISO-8601 string (fraction up to nanoseconds, truncated to the tick) or an integer number of
 * ticks, the column's unit (milliseconds for {@code DateTime64(3)}); {@code UUID} and {@code IPv4} from
 * their text; {@code Enum8/16} from the symbol; {@code Nullable(T)} from null or a T; {@code Array(T)} from
 * an array; {@code Map(String, V)} from an object, every field in message order. A number, a date, a
 * date-time, a UUID or an IPv4 address in a string is read from the bytes between its quotes, so one written
 * with an escape ({@code "\\u0031"}) fails; names, enum symbols and strings are decoded. {@code Int128/256},
 * {@code UInt128/256} and a {@code Decimal} value of more than 18 digits go through {@code BigInteger} and
 * allocate. Another type ({@code Tuple}, {@code IPv6}, {@code Map} with a key not a {@code String}, …) fails
 * the builder naming the column and its type.
 *
 * <p><b>Per lane.</b> Build one instance per lane, inside the {@code ChainFactory}: it owns the scanner
 * and the positions it records. The {@link Builder} compiles the mapping once (at its first {@link
 * Builder#build()} or {@link Builder#columns()}) and is shared. An instance called from a second thread
 * fails the pipeline with a {@link FatalPipelineException} saying so.
 *
 * <p><b>Errors</b>, thrown from {@link #encodeRows}/{@link #transcode} and handled by the sink stage's
 * policy (the stage cuts the partial row back out of the buffer): a {@link DeserializationException}
 * for a message that is not one JSON object (malformed JSON, another value at the top, trailing data,
 * nesting deeper than 256), naming the byte offset in the message and what was expected; a {@link
 * ColumnEncodeException} naming the column, its type, the field path and the value's byte offset for a
 * value the column cannot take or a missing field; a {@link DeserializationException} for a tombstone.
 */
public final class JsonRowTranscoder implements MultiRowEncoder<Payload> {
    private static final VarHandle OWNER;

    static {
        try {
            OWNER = MethodHandles.lookup().findVarHandle(JsonRowTranscoder.class, "owner", Thread.class);
        } catch (ReflectiveOperationException e) {
            throw new ExceptionInInitializerError(e);
        }
    }

    private final Plan plan;
    private final JsonScanner in = new JsonScanner();
    /** Per slot: where its value starts in the message's array, -1 when the message has none. */
    private final int[] starts;
    /** Per slot: one past where its value ends. */
    private final int[] ends;

    private long unknownFields;
    /** The thread of the first call; set once (CAS), then read plainly on every call. */
    @SuppressWarnings("unused") // accessed through OWNER as well
    private @Nullable Thread owner;

    private JsonRowTranscoder(Plan plan) {
        this.plan = plan;
        this.starts = new int[plan.slots];
        this.ends = new int[plan.slots];
    }

    /**
     * A builder for {@code table}: every column it lists as insertable is mapped to the field of its
     * name until {@link Builder#field} says otherwise.
     */
    public static Builder builder(ClickHouseTableSchema table) {
        return new Builder(Objects.requireNonNull(table, "table"));
    }

    /** The insert's columns, in table order: the table's insertable columns but those left to the server. */
    public List<ClickHouseColumn> columns() {
        return plan.insertColumns;
    }

    /** Fields this instance skipped because no column takes them, over every message so far. */
    public long unknownFields() {
        return unknownFields;
    }

    @Override
    public int encodeRows(Payload value, RecordMeta meta, RowBuffer out) {
        if (!value.isPresent()) {
            throw DeserializationException.of(
                    -1,
                    "a tombstone (absent value) has no row: filter tombstones before "
                            + "the sink (.filter(\"not-tombstone\", Payload::isPresent))",
                    null);
        }
        return transcode(value.array(), value.offset(), value.length(), out);
    }

    /** Appends the message's one row. */
    @Override
    public void encode(Payload value, RecordMeta meta, RowBuffer out) {
        encodeRows(value, meta, out);
    }

    /**
     * Appends the row of the JSON object in {@code array[offset, offset + length)} to {@code out}.
     *
     * @return 1, the rows appended
     */
    public int transcode(byte[] array, int offset, int length, RowBuffer out) {
        if (owner != Thread.currentThread()) {
            claimOwner();
        }
        JsonScanner in = this.in;
        in.wrap(array, offset, length);
        Arrays.fill(starts, -1);
        try {
            int p = in.skipWhitespace(offset);
            if (p >= in.limit || array[p] != '{') {
                throw p >= in.limit
                        ? in.malformed(p, "an empty message has no JSON object")
                        : in.malformed(p, "expected a JSON object, found " + JsonScanner.describe(array[p]));
            }
            p = in.skipWhitespace(scanObject(p, plan.root, 1));
            if (p != in.limit) {
                throw in.malformed(p, "unexpected " + JsonScanner.describe(array[p]) + " after the JSON object");
            }
        } catch (JsonScanner.Malformed e) {
            throw DeserializationException.of(-1, "malformed JSON: " + e.getMessage(), null);
        }
        writeRow(out);
        return 1;
    }

    /** Records the value positions of the mapped fields of the object at {@code p}; returns its end. */
    private int scanObject(int p, FieldNames names, int depth) {
        JsonScanner in = this.in;
        byte[] b = in.bytes;
        in.checkDepth(p, depth);
        p = in.skipWhitespace(p + 1);
        if (in.at(p, "a field name or '}'") == '}') {
            return p + 1;
        }
        while (true) {
            if (in.at(p, "a field name") != '"') {
                throw in.malformed(p, "expected a field name, found " + JsonScanner.describe(b[p]));
            }
            int nameEnd = in.skipString(p);
            FieldNames.Entry field = in.find(names, p, nameEnd);
            p = in.skipWhitespace(in.colon(in.skipWhitespace(nameEnd)) + 1);
            int valueEnd;
            if (field == null) {
                unknownFields++;
                valueEnd = in.skipValue(p, depth);
            } else {
                FieldNames below = field.below;
                if (below == null) {
                    valueEnd = in.skipValue(p, depth);
                } else {
                    // A repeated field takes its last value: nothing an earlier object of its name held is read.
                    for (int s : field.slotsBelow) {
                        starts[s] = -1;
                    }
                    valueEnd = p < in.limit && b[p] == '{' ? scanObject(p, below, depth + 1) : in.skipValue(p, depth);
                }
                int slot = field.slot;
                if (slot >= 0) {
                    starts[slot] = p;
                    ends[slot] = valueEnd;
                }
            }
            p = in.skipWhitespace(valueEnd);
            int c = in.at(p, "',' or '}'");
            if (c == '}') {
                return p + 1;
            }
            if (c != ',') {
                throw in.malformed(p, "expected ',' or '}' in an object, found " + JsonScanner.describe(c));
            }
            p = in.skipWhitespace(p + 1);
        }
    }

    private void writeRow(RowBuffer out) {
        Plan plan = this.plan;
        ValueWriter[] writers = plan.writers;
        int[] slotOf = plan.slotOf;
        int column = 0;
        try {
            for (; column < writers.length; column++) {
                int slot = slotOf[column];
                int start = starts[slot];
                if (start >= 0) {
                    writers[column].write(in, start, ends[slot], out);
                } else if (writers[column].nullable()) {
                    out.writeByte(1);
                } else {
                    throw missing(column);
                }
            }
        } catch (ValueRejected e) {
            int slot = slotOf[column];
            throw new ColumnEncodeException(
                    plan.insertColumns.get(column),
                    e.getMessage() + " (field '" + plan.paths[column] + "' at byte " + in.offsetOf(starts[slot]) + ")",
                    null);
        }
    }

    private ColumnEncodeException missing(int column) {
        ClickHouseColumn c = plan.insertColumns.get(column);
        String problem = "the message (" + (in.limit - in.base) + " bytes) has no field '" + plan.paths[column] + "'";
        if (plan.table.hasDefault(c.name())) {
            problem += "; the column has a DEFAULT, which RowBinary cannot ask for row by row: to have the server "
                    + "compute it, leave the column out of the insert (JsonRowTranscoder.Builder.serverDefault(\""
                    + c.name() + "\") or serverDefaults())";
        }
        return new ColumnEncodeException(c, problem, null);
    }

    /**
     * First call (records the calling thread) or a call from another thread (fails). A plain read that
     * sees {@code null} only means this thread has not seen the owner yet; the CAS decides.
     */
    private void claimOwner() {
        Thread current = Thread.currentThread();
        Thread previous = (Thread) OWNER.compareAndExchange(this, null, current);
        if (previous == null || previous == current) {
            return;
        }
        throw new FatalPipelineException(
                ErrorClass.ENCODE,
                "JsonRowTranscoder " + this + " is used by threads '" + previous.getName() + "' and '"
                        + current.getName() + "': one instance must serve one lane (it reuses its scanner, so "
                        + "sharing it corrupts rows). Call build() inside the ChainFactory lambda and share the "
                        + "JsonRowTranscoder.Builder instead",
                null);
    }

    @Override
    public String toString() {
        return "JsonRowTranscoder" + plan.insertColumns;
    }

    /** The compiled mapping: immutable, shared by every lane's transcoder. */
    private static final class Plan {
        final ClickHouseTableSchema table;
        final List<ClickHouseColumn> insertColumns;
        final ValueWriter[] writers;
        final int[] slotOf;
        final String[] paths;
        final FieldNames root;
        final int slots;

        Plan(ClickHouseTableSchema table, Map<String, String> fields, Set<String> serverDefaults) {
            this.table = table;
            List<ClickHouseColumn> columns = new ArrayList<>();
            List<ValueWriter> writerList = new ArrayList<>();
            // By segments: a column named "a.b" (one field of that name) and a path "a.b" (b inside a) differ.
            Map<List<String>, Integer> slotByPath = new LinkedHashMap<>();
            List<Integer> slotList = new ArrayList<>();
            List<String> pathList = new ArrayList<>();
            FieldNames rootNames = new FieldNames();
            for (ClickHouseColumn c : table.insertable()) {
                if (serverDefaults.contains(c.name())) {
                    continue;
                }
                ValueWriter writer;
                try {
                    writer = ValueWriter.of(ColumnType.parse(c.type()));
                } catch (IllegalArgumentException e) {
                    throw new JsonMappingException(c.name(), c.type(), e.getMessage());
                }
                if (writer == null) {
                    throw new JsonMappingException(
                            c.name(),
                            c.type(),
                            "the JSON transcoder does not write this type (it writes "
                                    + ValueWriter.SUPPORTED + "); leave the column to its DEFAULT, or map the "
                                    + "topic with code");
                }
                String path = fields.getOrDefault(c.name(), c.name());
                List<String> segments = fields.containsKey(c.name()) ? List.of(path.split("\\.", -1)) : List.of(path);
                Integer slot = slotByPath.get(segments);
                if (slot == null) {
                    slot = slotByPath.size();
                    slotByPath.put(segments, slot);
                    FieldNames level = rootNames;
                    for (int i = 0; i < segments.size() - 1; i++) {
                        FieldNames.Entry e = level.entry(segments.get(i));
                        if (e.below == null) {
                            e.below = new FieldNames();
                        }
                        level = e.below;
                    }
                    level.entry(segments.get(segments.size() - 1)).slot = slot;
                }
                columns.add(c);
                writerList.add(writer);
                slotList.add(slot);
                pathList.add(path);
            }
            this.insertColumns = List.copyOf(columns);
            this.writers = writerList.toArray(new ValueWriter[0]);
            this.slotOf = slotList.stream().mapToInt(Integer::intValue).toArray();
            this.paths = pathList.toArray(new String[0]);
            this.root = rootNames;
            this.slots = slotByPath.size();
            slotsBelow(rootNames);
        }

        /** Sets the {@link FieldNames.Entry#slotsBelow} of every entry; returns the slots at and below {@code names}. */
        private static List<Integer> slotsBelow(FieldNames names) {
            List<Integer> all = new ArrayList<>();
            for (FieldNames.Entry e : names.entries()) {
                if (e.slot >= 0) {
                    all.add(e.slot);
                }
                if (e.below != null) {
                    List<Integer> below = slotsBelow(e.below);
                    e.slotsBelow = below.stream().mapToInt(Integer::intValue).toArray();
                    all.addAll(below);
                }
            }
            return all;
        }
    }

    /**
     * The mapping of one table: which field each column takes and which columns are left to the server.
     * Configure it, then call {@link #build()} once per lane; the first {@code build()} (or {@link
     * #columns()}) compiles the mapping, after which the builder is fixed and shared by the lanes
     * (thread-safe from then on).
     */
    public static final class Builder {
        private final ClickHouseTableSchema table;
        private final Map<String, String> fields = new LinkedHashMap<>();
        private final Set<String> serverDefaults = new LinkedHashSet<>();
        private boolean allServerDefaults;
        private @Nullable Plan plan;

        private Builder(ClickHouseTableSchema table) {
            this.table = table;
        }

        /**
         * Maps {@code column} to the field at {@code fieldPath} instead of the top-level field of its name:
         * a field name, or names joined by '.' through nested objects ({@code customer.address.city}).
         *
         * @throws JsonMappingException when the table has no insertable column {@code column}, or the path
         *         has an empty segment
         */
        public synchronized Builder field(String column, String fieldPath) {
            Objects.requireNonNull(column, "column");
            Objects.requireNonNull(fieldPath, "fieldPath");
            checkOpen();
            ClickHouseColumn c = existing(column);
            for (String segment : fieldPath.split("\\.", -1)) {
                if (segment.isEmpty()) {
                    throw new JsonMappingException(
                            column,
                            c.type(),
                            "field path '" + fieldPath + "' has an empty segment (names are joined by single dots)");
                }
            }
            fields.put(column, fieldPath);
            return this;
        }

        /**
         * Leaves {@code column}, which has a {@code DEFAULT} expression, out of the insert: the server
         * computes it for every row, and a field of its name in a message is skipped.
         *
         * @throws JsonMappingException when the table has no such insertable column or it has no DEFAULT
         */
        public synchronized Builder serverDefault(String column) {
            Objects.requireNonNull(column, "column");
            checkOpen();
            ClickHouseColumn c = existing(column);
            if (!table.hasDefault(column)) {
                throw new JsonMappingException(
                        column, c.type(), "has no DEFAULT expression, so the insert must " + "carry it");
            }
            serverDefaults.add(column);
            return this;
        }

        /**
         * Leaves every column with a {@code DEFAULT} expression that {@link #field} does not map out of the
         * insert, as {@link #serverDefault} does for one.
         */
        public synchronized Builder serverDefaults() {
            checkOpen();
            allServerDefaults = true;
            return this;
        }

        /**
         * The insert's columns, in table order (compiles the mapping): what the sink's column list is built
         * from.
         *
         * @throws JsonMappingException when a mapped column's type is not one the transcoder writes
         */
        public List<ClickHouseColumn> columns() {
            return compiled().insertColumns;
        }

        /**
         * A transcoder for one lane (the first call compiles the mapping).
         *
         * @throws JsonMappingException when a mapped column's type is not one the transcoder writes
         */
        public JsonRowTranscoder build() {
            return new JsonRowTranscoder(compiled());
        }

        private synchronized Plan compiled() {
            Plan p = plan;
            if (p == null) {
                Set<String> left = new LinkedHashSet<>(serverDefaults);
                if (allServerDefaults) {
                    for (ClickHouseColumn c : table.insertable()) {
                        if (table.hasDefault(c.name()) && !fields.containsKey(c.name())) {
                            left.add(c.name());
                        }
                    }
                }
                for (String column : left) {
                    if (fields.containsKey(column)) {
                        throw new JsonMappingException(
                                column,
                                existing(column).type(),
                                "is both mapped to field '" + fields.get(column) + "' and left to its server DEFAULT");
                    }
                }
                p = new Plan(table, fields, left);
                plan = p;
            }
            return p;
        }

        private void checkOpen() {
            if (plan != null) {
                throw new IllegalStateException(
                        "the mapping is compiled (build() or columns() was called): configure it before");
            }
        }

        private ClickHouseColumn existing(String column) {
            ClickHouseColumn c = table.column(column);
            if (c == null) {
                List<String> names =
                        table.insertable().stream().map(ClickHouseColumn::name).toList();
                String closest = Suggestion.closest(column, names);
                throw new JsonMappingException(
                        column,
                        "",
                        "the table has no insertable column of that name"
                                + (closest != null ? " (did you mean '" + closest + "'?)" : "") + "; its columns: "
                                + names);
            }
            return c;
        }

        @Override
        public String toString() {
            return "JsonRowTranscoder.Builder[" + table + ", fields " + fields + "]";
        }
    }
}
