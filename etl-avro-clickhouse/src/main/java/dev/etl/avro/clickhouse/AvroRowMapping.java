package dev.etl.avro.clickhouse;

import dev.etl.clickhouse.ClickHouseColumn;
import dev.etl.clickhouse.ColumnType;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Objects;
import java.util.Set;
import org.apache.avro.Schema;

/**
 * Which Avro field goes into which ClickHouse column: one entry per column (the inserts name the
 * columns, in this order; {@link dev.etl.clickhouse.ClickHouseSink} validates
 * {@link #columns()} against {@code system.columns} by name at startup), each naming the column, its
 * ClickHouse type and the field path in the <em>reader</em> schema ({@code customer.name} for a
 * field of a nested record).
 *
 * <pre>{@code
 * AvroRowMapping orders = AvroRowMapping.builder(Order.getClassSchema())
 *         .column("id", "UInt64", "id")
 *         .column("customer", "String", "customer.name")
 *         .column("amount", "Decimal(18, 2)", "amount")          // bytes, logicalType decimal(18, 2)
 *         .column("ts", "DateTime64(3)", "created_at")           // long, logicalType timestamp-millis
 *         .column("coupon", "Nullable(String)", "coupon")        // ["null", "string"]
 *         .column("status", "Enum8('NEW' = 1, 'PAID' = 2)", "status")
 *         .column("tags", "Array(String)", "tags")
 *         .build();
 * }</pre>
 *
 * <p><b>What converts to what</b> (the reader schema's type and logical type decide what a value
 * means; the writer's is only how it is read, after Avro's promotions):
 * <ul>
 * <li>{@code int}, {@code long}: any Int8…Int64 or UInt8…UInt64 column (range-checked per value), Float32, Float64,
 *     Decimal(P ≤ 18, s) as the <em>unscaled</em> value (cents {@code 1999} into Decimal(18, 2) is
 *     19.99, as {@code RowBinaryEncoder.decimal64} takes it; more than P digits is an error);
 *     {@code int} with {@code date}: Date, Date32; {@code long} with {@code timestamp-millis},
 *     {@code -micros}, {@code -nanos} (or {@code local-timestamp-*}): DateTime (seconds, floor),
 *     DateTime64(p) (scaled to p digits; rounding down, overflow is an error);</li>
 * <li>{@code float}: Float32, Float64; {@code double}: Float64; {@code boolean}: Bool, UInt8;</li>
 * <li>{@code string}, {@code bytes}: String, FixedString(n) (zero-padded; longer is an error);
 *     {@code string} with {@code uuid}: UUID (the canonical 36-character form);
 *     {@code bytes}/{@code fixed} with {@code decimal(p, s)}: Decimal(P, s) (same scale; a value
 *     with more than P digits is an error); {@code fixed}: FixedString(n ≥ size), String;
 *     {@code fixed(16)} with {@code uuid}: UUID;</li>
 * <li>{@code enum}: Enum8/Enum16 by symbol name (every reader symbol must be a value of the column),
 *     String;</li>
 * <li>{@code string}: IPv4 (dotted quad), IPv6 (any RFC 4291 text form); {@code int} (the address's
 *     32 bits), {@code long} (unsigned), {@code fixed(4)}: IPv4; {@code fixed(16)}, 16 {@code bytes}: IPv6;</li>
 * <li>a union with {@code null}: Nullable(T) (null writes NULL); any other value into Nullable(T)
 *     writes it as not null; {@code array<E>}: Array(T) with E converted as above (Array(Array(T))
 *     too); {@code map<V>}: Map(K, T) with String, LowCardinality(String) or FixedString(n) keys;
 *     {@code LowCardinality(T)} is written as T;</li>
 * <li>{@code record}: Tuple(T1, …) (fields by position in the reader's order, or by name for a named
 *     Tuple; a field the writer lacks from the reader default);</li>
 * <li>a union of several types: Variant(T1, …) (each branch into the first type it converts to), or
 *     one branch per column with a path suffix: {@code amount[long]}, {@code amount[com.acme.Money]}
 *     into Nullable(T), the other branches writing NULL.</li>
 * </ul>
 * Records into other columns than Tuple (map their fields instead) and paths through a union are not
 * transcoded; a map is read whole into a Map column or counted by {@code length(...)} (below). Otherwise use the
 * object path ({@code AvroDeserializer} and a {@code RowBinaryEncoder}).
 *
 * <p><b>Computed columns.</b> The source of {@link Builder#column(String, String, String) column(column, type,
 * source)} is a field path or one of a closed set of expressions (a source containing {@code (}, {@code *} or
 * {@code '}, or starting with a digit or {@code -}, is an expression; Avro names cannot):
 * <ul>
 * <li>{@code length(path)}: the number of elements of the array or map at {@code path};</li>
 * <li>{@code sum(path)}: the sum over an array's elements ({@code lines.qty}: a field of each element of the
 *     array of records {@code lines}; or an array of numbers); {@code sum(a * b)}: of the product of two of the
 *     element's fields ({@code sum(lines.qty * lines.unit_cents)});</li>
 * <li>{@code a * b}: the product of two numbers of the row (record fields, fields of the exploded array's
 *     element, number literals);</li>
 * <li>a constant: {@code 0}, {@code -1}, {@code 2.5}, {@code 'web'} ({@code ''} is a quote), encoded at compile
 *     time (an integer into a Decimal is the unscaled value, as for an {@code int} field);</li>
 * <li>{@code now()}: the time the record is encoded into DateTime or DateTime64(p), one clock read per record
 *     (a replayed block is encoded again with new values under its old token, so the server keeps the first
 *     insert's values: the token decides; a server without dedup tokens, such as 18.16, compares content and
 *     stores the replay again);</li>
 * <li>an <b>array projection</b>: a path through an unexploded array of records into an {@code Array(T)}
 *     column, one value per element ({@code lines.sku} into {@code Array(String)}): a {@code Nested} column's
 *     sub-columns.</li>
 * </ul>
 * Integers ({@code int}/{@code long} after promotion) are computed in a {@code long} with exact overflow (a
 * {@link dev.etl.clickhouse.ColumnEncodeException} naming the column, as for a value out of range), floats in a
 * {@code double} (into Float32/Float64 only); integer results go to Int8…UInt64 (range-checked), Float32/64 or
 * Decimal(P ≤ 18, s) as the unscaled value. Operands that may be null (a union) or are decimals are refused at
 * build time. A missing field takes its reader default (folded at compile time); a missing array needs an empty
 * default (length 0, sum 0, an empty projection). A computed column compiles the mapping into the scanning
 * plan, which allocates nothing per record either.
 *
 * <p><b>Schema evolution.</b> A writer schema is resolved against the reader schema by Avro's
 * rules: fields by name or reader alias, promotions (int → long/float/double, long → float/double,
 * float → double, string ↔ bytes), enum symbols by name with the reader's default, union branches.
 * A mapped field the writer lacks is written as the reader field's default, encoded once at compile
 * time. Fields no column reads are passed over, whatever their type, with the object path's decision
 * ({@code GenericDatumReader(writer, reader)}): one the reader schema holds as Avro decodes it (an enum
 * index must name a symbol the reader takes, a union branch one the reader can read, an array or map is
 * read item by item whatever its blocks' byte sizes state), one only the writer has as Avro skips it
 * (unchecked, a sized block jumped over).
 *
 * <p>Immutable and thread-safe; share one instance between lanes.
 */
public final class AvroRowMapping {
    private final Schema reader;
    private final List<Mapped> mapped;
    private final List<ClickHouseColumn> columns;
    private final String explode;
    private final List<RecordCondition> conditions;
    private final String shardKey;

    /**
     * One column: its declared name and type, parsed type, its source as written ({@code null} for an
     * {@link Builder#index index} column: a reader field path, or an expression) and parsed.
     */
    record Mapped(ClickHouseColumn column, ColumnType type, String path, ColumnSource source) {
        boolean isIndex() {
            return path == null;
        }

        /** Whether the column's value is set by the chain through an {@link AvroView} slot. */
        boolean isSlot() {
            return source instanceof ColumnSource.Slot;
        }

        /** Whether the column is an expression (computed) or a slot, not a field path. */
        boolean isComputed() {
            return source != null && !(source instanceof ColumnSource.Path);
        }
    }

    /** A record filter: records whose field at {@code path} equals one of {@code values} are dropped (or kept). */
    record RecordCondition(String path, List<Object> values, boolean keep) {}

    private AvroRowMapping(Builder b) {
        this.reader = b.reader;
        this.mapped = List.copyOf(b.mapped);
        this.columns = this.mapped.stream().map(Mapped::column).toList();
        this.explode = b.explode;
        this.conditions = List.copyOf(b.conditions);
        this.shardKey = b.shardKey;
    }

    /** Starts a mapping whose field paths name fields of {@code readerSchema} (a record). */
    public static Builder builder(Schema readerSchema) {
        Objects.requireNonNull(readerSchema, "readerSchema");
        if (readerSchema.getType() != Schema.Type.RECORD) {
            throw new IllegalArgumentException("the reader schema must be a record, not " + readerSchema.getType());
        }
        return new Builder(readerSchema);
    }

    /** The reader schema the field paths refer to. */
    public Schema readerSchema() {
        return reader;
    }

    /** The columns in wire order, with their ClickHouse types as declared (for the sink's validation). */
    public List<ClickHouseColumn> columns() {
        return columns;
    }

    List<Mapped> mapped() {
        return mapped;
    }

    /** The exploded array's reader path, or null (one row per record). */
    String explode() {
        return explode;
    }

    List<RecordCondition> conditions() {
        return conditions;
    }

    /** The names of the {@link Builder#computed(String, String) slot columns}, in column order (a slot's index). */
    List<String> slotColumns() {
        return mapped.stream()
                .filter(Mapped::isSlot)
                .map(m -> m.column().name())
                .toList();
    }

    /** The field {@link AvroRowTranscoder#shardKey} reads, or null. */
    String shardKey() {
        return shardKey;
    }

    /** Whether the plan needs the scanning form (several rows, filters, a key) rather than the single pass. */
    boolean scans() {
        return explode != null
                || !conditions.isEmpty()
                || shardKey != null
                || mapped.stream()
                        .anyMatch(m ->
                                m.isIndex() || m.isComputed() || ScanCompiler.firstArray(reader, m.path(), false) >= 0);
    }

    /**
     * Compiles the plan for one writer schema.
     *
     * @throws AvroMappingException when a mapped field cannot be read from {@code writer} or written
     *         to its column
     */
    Plan compile(Schema writer) {
        return scans() ? new ScanCompiler(this, writer).compile() : new PlanCompiler(this, writer).compile();
    }

    /** Compiles the scanning plan for one writer schema with what {@code view}'s handles read ({@link AvroView}). */
    ScanPlan compileView(Schema writer, AvroView.Fields view) {
        return new ScanCompiler(this, writer, view).compile();
    }

    @Override
    public String toString() {
        return "AvroRowMapping[" + reader.getFullName() + (explode != null ? " exploding " + explode : "") + " -> "
                + columns + "]";
    }

    /** Declares columns in wire order. Not thread-safe. */
    public static final class Builder {
        private final Schema reader;
        private final List<Mapped> mapped = new ArrayList<>();
        private final Set<String> names = new HashSet<>();
        private final List<RecordCondition> conditions = new ArrayList<>();
        private String explode;
        private String shardKey;

        private Builder(Schema reader) {
            this.reader = reader;
        }

        /**
         * Adds column {@code column} of ClickHouse type {@code type} (as the server spells it, e.g.
         * {@code Nullable(Decimal(18, 2))}), written from the reader field at {@code fieldPath}
         * (dot-separated through nested records), or computed by the expression {@code fieldPath} is (see
         * <em>Computed columns</em> above).
         *
         * @throws AvroMappingException when the expression is malformed (naming the position)
         */
        public Builder column(String column, String type, String fieldPath) {
            Objects.requireNonNull(fieldPath, "fieldPath");
            return add(column, type, fieldPath);
        }

        /**
         * Adds column {@code column} of ClickHouse type {@code type} whose value the chain computes in Java and
         * sets through the {@link AvroView record view} ({@link AvroView#set(AvroView.Slot, long) set(slot, value)},
         * the slot from {@link AvroView.Fields#slot(String) fields.slot(column)}), for each record, before the
         * view reaches {@link AvroRowTranscoder#viewEncoder()}. The type is a number: Int8…Int64, UInt8…UInt64
         * (range-checked), Float32/Float64, Decimal(P ≤ 18, s) as the unscaled value, optionally Nullable. A record
         * whose slot was not set fails its encode with a {@link dev.etl.clickhouse.ColumnEncodeException} naming the
         * column (no silent zero); the {@link AvroRowTranscoder payload path} has no view, so it cannot fill the column.
         *
         * @throws AvroMappingException when {@code type} is not a number type
         */
        public Builder computed(String column, String type) {
            Objects.requireNonNull(column, "column");
            Objects.requireNonNull(type, "type");
            if (!names.add(column)) {
                throw new IllegalArgumentException("column '" + column + "' declared twice");
            }
            ColumnType parsed;
            try {
                parsed = ConversionCompiler.columnType(type);
                NumberColumn.of(parsed, false);
            } catch (IllegalArgumentException e) {
                throw new AvroMappingException("(set by the chain)", column, "-", type, e.getMessage());
            }
            mapped.add(new Mapped(
                    new ClickHouseColumn(column, type), parsed, "(set by the chain)", new ColumnSource.Slot()));
            return this;
        }

        private Builder add(String column, String type, String fieldPath) {
            Objects.requireNonNull(column, "column");
            Objects.requireNonNull(type, "type");
            if (!names.add(column)) {
                throw new IllegalArgumentException("column '" + column + "' declared twice");
            }
            ColumnType parsed;
            ColumnSource source;
            try {
                parsed = ConversionCompiler.columnType(type);
                source = fieldPath == null ? null : ColumnSource.parse(fieldPath);
            } catch (IllegalArgumentException e) {
                throw new AvroMappingException(
                        fieldPath == null ? "(element index)" : fieldPath, column, "-", type, e.getMessage());
            }
            mapped.add(new Mapped(new ClickHouseColumn(column, type), parsed, fieldPath, source));
            return this;
        }

        /** Adds a column written from the reader field of the same name. */
        public Builder column(String column, String type) {
            return column(column, type, column);
        }

        /**
         * Writes one row per element of the array at {@code arrayPath} (an array of records in the
         * reader schema) instead of one per record: an order becomes its lines. Columns whose path
         * starts with {@code arrayPath + "."} read the element's fields ({@code lines.sku}); the others
         * read the record's, repeated on every row of it. A record whose array is empty has no row.
         * At most one array per mapping.
         */
        public Builder explode(String arrayPath) {
            Objects.requireNonNull(arrayPath, "arrayPath");
            if (explode != null) {
                throw new IllegalStateException("explode('" + arrayPath + "'): the mapping explodes '" + explode
                        + "' already (at most one array per mapping)");
            }
            explode = arrayPath;
            return this;
        }

        /**
         * Adds a column holding the element's position in the {@link #explode exploded} array, from 0
         * (an order's line number); {@code type} is an integer type (UInt8…UInt64, Int8…Int64).
         */
        public Builder index(String column, String type) {
            return add(column, type, null);
        }

        /**
         * Drops the records whose field at {@code fieldPath} equals one of {@code values}: they write
         * no row, and their offsets commit like any other's. The field (not inside the exploded array)
         * is an enum (values are symbol names), a string, an int or long (values are numbers) or a
         * boolean. The field is read, not decoded: filtering this way costs no object. Several
         * conditions all apply.
         */
        public Builder dropWhen(String fieldPath, Object... values) {
            return condition(fieldPath, values, false);
        }

        /** Keeps only the records whose field at {@code fieldPath} equals one of {@code values}; see {@link #dropWhen}. */
        public Builder keepWhen(String fieldPath, Object... values) {
            return condition(fieldPath, values, true);
        }

        private Builder condition(String fieldPath, Object[] values, boolean keep) {
            Objects.requireNonNull(fieldPath, "fieldPath");
            if (values.length == 0) {
                throw new IllegalArgumentException(
                        (keep ? "keepWhen" : "dropWhen") + "('" + fieldPath + "'): name at least one value");
            }
            for (Object v : values) {
                Objects.requireNonNull(v, "value of " + fieldPath);
            }
            conditions.add(new RecordCondition(fieldPath, List.of(values), keep));
            return this;
        }

        /**
         * Names the int or long field (not inside the exploded array) that
         * {@link AvroRowTranscoder#shardKey} reads, so that rows are sharded by it
         * ({@link AvroRowTranscoder#shardKeyRouter()}) exactly as {@code KeyHashRouter.byKey} shards
         * objects by the same value.
         */
        public Builder shardKey(String fieldPath) {
            shardKey = Objects.requireNonNull(fieldPath, "fieldPath");
            return this;
        }

        /**
         * Builds the mapping and compiles it against the reader schema as writer, so every mapping
         * error shows here rather than at the first record.
         *
         * @throws AvroMappingException naming the field, the column and both types
         */
        public AvroRowMapping build() {
            if (mapped.isEmpty()) {
                throw new IllegalStateException("a mapping needs at least one column");
            }
            AvroRowMapping mapping = new AvroRowMapping(this);
            mapping.compile(reader);
            return mapping;
        }
    }
}
