package dev.etl.avro.clickhouse;

import dev.etl.avro.clickhouse.AvroColumnTypes.Server;
import dev.etl.avro.clickhouse.AvroColumnTypes.Unmappable;
import dev.etl.clickhouse.ClickHouseColumn;
import dev.etl.clickhouse.ClickHouseTableAlter.NewColumn;
import dev.etl.clickhouse.ClickHouseTableSchema;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import org.apache.avro.Schema;
import org.apache.avro.SchemaCompatibility;
import org.jspecify.annotations.Nullable;

/**
 * What a table gains when its topic's reader schema moves from one version to the next (auto-evolve): a
 * column per new leaf field of the new reader, typed by {@link AvroColumnTypes} and named by the YAML path
 * convention ({@code customer.tier} → {@code customer_tier}, a field of the exploded array's element
 * {@code lines.discount} → {@code lines_discount}), with a {@code DEFAULT} equal to the field's Avro default,
 * so rows inserted without the column (those encoded before the switch) get what the reader default gives
 * the old writers' records. And what it does not gain, each with a {@link Reason}: a new field with no
 * column type, a field whose type changed, a field removed (a column is never dropped or narrowed), or the
 * whole new schema when it cannot read the old one's records (a new field without a default).
 *
 * <p>A new field whose column exists already (added by hand, or by another instance) adds nothing: the
 * mapping derived from the new reader takes it by name. Immutable.
 */
public final class AvroTableEvolution {

    /** Why a field is not added; the tag is the metric's {@code reason}. */
    public enum Reason {
        /** The field's Avro type has no column type (see {@link AvroColumnTypes}). */
        UNMAPPABLE("unmappable"),
        /** The field exists in both readers with another type: the column is left as it is. */
        TYPE_CHANGED("type-changed"),
        /** The old reader has the field, the new one not: the column stays. */
        REMOVED("removed"),
        /** The new reader cannot read the old reader's records (a new field without a default). */
        INCOMPATIBLE("incompatible"),
        /** The field is inside an array of records that is not exploded. */
        IN_ARRAY("in-array");

        private final String tag;

        Reason(String tag) {
            this.tag = tag;
        }

        /** The metric tag. */
        public String tag() {
            return tag;
        }
    }

    /**
     * A field that is not added.
     *
     * @param field  its path ({@code customer.tier}), or the schema's name for {@link Reason#INCOMPATIBLE}
     * @param reason why
     * @param detail what exactly, for the log
     */
    public record Refusal(String field, Reason reason, String detail) {
        @Override
        public String toString() {
            return field + " (" + reason.tag() + ": " + detail + ")";
        }
    }

    /**
     * A field that becomes a column.
     *
     * @param field  its path in the new reader
     * @param column the column to add
     */
    public record Added(String field, NewColumn column) {}

    private final List<Added> added;
    private final List<Refusal> refused;

    private AvroTableEvolution(List<Added> added, List<Refusal> refused) {
        this.added = List.copyOf(added);
        this.refused = List.copyOf(refused);
    }

    /**
     * The columns {@code table} gains when its reader schema moves from {@code oldReader} to {@code newReader}.
     *
     * @param explode the path of the array the mapping explodes (its element's new fields are scalar columns),
     *                or null
     */
    public static AvroTableEvolution plan(
            Schema oldReader, Schema newReader, ClickHouseTableSchema table, @Nullable String explode, Server server) {
        Objects.requireNonNull(oldReader, "oldReader");
        Objects.requireNonNull(newReader, "newReader");
        Objects.requireNonNull(table, "table");
        Objects.requireNonNull(server, "server");
        List<Added> added = new ArrayList<>();
        List<Refusal> refused = new ArrayList<>();
        SchemaCompatibility.SchemaPairCompatibility compatibility =
                SchemaCompatibility.checkReaderWriterCompatibility(newReader, oldReader);
        if (compatibility.getType() != SchemaCompatibility.SchemaCompatibilityType.COMPATIBLE) {
            refused.add(new Refusal(
                    newReader.getFullName(),
                    Reason.INCOMPATIBLE,
                    "the new reader cannot read records of the old one: " + compatibility.getDescription()));
            return new AvroTableEvolution(added, refused);
        }
        new Walk(table, explode, server, added, refused).record(oldReader, newReader, "", null);
        removed(oldReader, newReader, "", refused);
        return new AvroTableEvolution(added, refused);
    }

    /** The columns to add, in the new reader's field order. */
    public List<NewColumn> columns() {
        return added.stream().map(Added::column).toList();
    }

    /** The fields that become columns, each with its column. */
    public List<Added> added() {
        return added;
    }

    /** The fields that do not, each with why. */
    public List<Refusal> refused() {
        return refused;
    }

    /** Whether there is any column to add. */
    public boolean addsColumns() {
        return !added.isEmpty();
    }

    /**
     * {@code table} with the new columns at its end (each with a {@code DEFAULT} when it has an expression):
     * what the table will be after the ALTER, to derive the new mapping against before altering anything.
     */
    public ClickHouseTableSchema evolved(ClickHouseTableSchema table) {
        List<ClickHouseColumn> columns = new ArrayList<>(table.insertable());
        Set<String> withDefault = new HashSet<>();
        for (ClickHouseColumn c : table.insertable()) {
            if (table.hasDefault(c.name())) {
                withDefault.add(c.name());
            }
        }
        for (Added a : added) {
            columns.add(a.column().column());
            if (!a.column().defaultExpression().isEmpty()) {
                withDefault.add(a.column().column().name());
            }
        }
        return ClickHouseTableSchema.of(columns, withDefault);
    }

    @Override
    public String toString() {
        return "AvroTableEvolution[added " + added + ", refused " + refused + "]";
    }

    /** The walk of the new reader's fields against the old reader's. */
    private record Walk(
            ClickHouseTableSchema table,
            @Nullable String explode,
            Server server,
            List<Added> added,
            List<Refusal> refused) {

        /**
         * The fields of record {@code next} under {@code prefix}; {@code old} is the old reader's record there
         * (null when the record itself is new), {@code defaults} the new record's default (its fields' values)
         * when it is new and has one.
         */
        void record(@Nullable Schema old, Schema next, String prefix, @Nullable Map<?, ?> defaults) {
            for (Schema.Field field : next.getFields()) {
                Schema.Field before = old != null ? counterpart(old, field) : null;
                String path = prefix + field.name();
                Object value = defaults != null
                        ? defaults.get(field.name())
                        : field.hasDefaultValue() ? field.defaultVal() : null;
                Schema schema = field.schema();
                if (schema.getType() == Schema.Type.RECORD) {
                    record(
                            before != null && before.schema().getType() == Schema.Type.RECORD ? before.schema() : null,
                            schema,
                            path + ".",
                            before == null && value instanceof Map<?, ?> map ? map : null);
                } else if (schema.getType() == Schema.Type.ARRAY
                        && schema.getElementType().getType() == Schema.Type.RECORD) {
                    Schema oldElement = before != null
                                    && before.schema().getType() == Schema.Type.ARRAY
                                    && before.schema().getElementType().getType() == Schema.Type.RECORD
                            ? before.schema().getElementType()
                            : null;
                    if (path.equals(explode) && oldElement != null) {
                        record(oldElement, schema.getElementType(), path + ".", null);
                    } else if (before == null || oldElement == null) {
                        refused.add(new Refusal(path, Reason.UNMAPPABLE, "an array of records"));
                    } else {
                        List<Added> inside = new ArrayList<>();
                        new Walk(table, null, server, inside, refused)
                                .record(oldElement, schema.getElementType(), path + ".", null);
                        inside.forEach((a) -> refused.add(new Refusal(
                                a.field(),
                                Reason.IN_ARRAY,
                                "a field of the elements of " + path + ", an array that is not exploded")));
                    }
                } else if (before == null) {
                    add(path, schema, value);
                } else {
                    changed(path, before.schema(), schema);
                }
            }
        }

        private void add(String path, Schema schema, @Nullable Object value) {
            String name = path.replace('.', '_');
            if (table.column(name) != null || table.column(path) != null) {
                return; // the column is there: the derived mapping takes the field by name
            }
            String type;
            try {
                type = AvroColumnTypes.type(schema, server);
            } catch (Unmappable e) {
                refused.add(new Refusal(path, Reason.UNMAPPABLE, e.getMessage()));
                return;
            }
            added.add(new Added(
                    path,
                    new NewColumn(
                            new ClickHouseColumn(name, type),
                            AvroColumnTypes.defaultExpression(schema, value, server))));
        }

        private void changed(String path, Schema before, Schema after) {
            String was;
            String is;
            try {
                was = AvroColumnTypes.type(before, server);
                is = AvroColumnTypes.type(after, server);
            } catch (Unmappable e) {
                was = before.toString();
                is = after.toString();
            }
            if (!was.equals(is)) {
                refused.add(new Refusal(
                        path,
                        Reason.TYPE_CHANGED,
                        "was " + before + ", is " + after + ": the column keeps its type (never changed)"));
            }
        }
    }

    /** The field of {@code old} that {@code field} is: same name, or one names the other as an alias. */
    static Schema.@Nullable Field counterpart(Schema old, Schema.Field field) {
        Schema.Field same = old.getField(field.name());
        if (same != null) {
            return same;
        }
        for (Schema.Field candidate : old.getFields()) {
            if (field.aliases().contains(candidate.name())
                    || candidate.aliases().contains(field.name())) {
                return candidate;
            }
        }
        return null;
    }

    /** Leaf fields of {@code old} the new reader lacks (by name or alias), through records. */
    private static void removed(Schema old, Schema next, String prefix, List<Refusal> refused) {
        for (Schema.Field field : old.getFields()) {
            Schema.Field after = counterpart(next, field);
            String path = prefix + field.name();
            if (after == null) {
                refused.add(new Refusal(path, Reason.REMOVED, "the column stays; new rows get its default"));
            } else if (field.schema().getType() == Schema.Type.RECORD
                    && after.schema().getType() == Schema.Type.RECORD) {
                removed(field.schema(), after.schema(), path + ".", refused);
            }
        }
    }
}
