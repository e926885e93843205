package dev.etl.avro.clickhouse;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.etl.avro.AvroWireFormat;
import dev.etl.clickhouse.ClickHouseColumn;
import dev.etl.clickhouse.ClickHouseTableSchema;
import dev.etl.record.Payload;
import dev.etl.sink.RowBuffer;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.SplittableRandom;
import org.apache.avro.Schema;
import org.apache.avro.generic.GenericData;
import org.apache.avro.generic.GenericRecord;
import org.junit.jupiter.api.Test;

/**
 * {@link AvroTableMapping}: which field each column of a table takes by name, what is left to the server,
 * the one error for every mistake, and that a derived mapping writes exactly the bytes of the same mapping
 * written by hand.
 */
class AvroTableMappingTest {
    /** The sample's order, with the customer as a nested record. */
    static final Schema ORDER = new Schema.Parser().parse("""
            {"type": "record", "name": "Order", "namespace": "shop", "fields": [
              {"name": "id", "type": "long"},
              {"name": "customer", "type": {"type": "record", "name": "Customer", "fields": [
                 {"name": "name", "type": "string"}]}},
              {"name": "status", "type": {"type": "enum", "name": "Status",
                  "symbols": ["NEW", "PAID", "SHIPPED", "CANCELLED"]}},
              {"name": "lines", "type": {"type": "array", "items": {"type": "record", "name": "Line",
                  "fields": [
                    {"name": "sku", "type": "string"},
                    {"name": "quantity", "type": "int"},
                    {"name": "price_cents", "type": "long"}]}}},
              {"name": "coupon", "type": ["null", "string"], "default": null},
              {"name": "updated_ms", "type": "long"}
            ]}""");

    private static final String STATUS = "Enum8('NEW' = 0, 'PAID' = 1, 'SHIPPED' = 2, 'CANCELLED' = 3)";

    /** A table from "name type" pairs; {@code defaults} have a DEFAULT expression. */
    private static ClickHouseTableSchema table(Set<String> defaults, String... columns) {
        List<ClickHouseColumn> list = new ArrayList<>();
        for (String c : columns) {
            int space = c.indexOf(' ');
            list.add(new ClickHouseColumn(c.substring(0, space), c.substring(space + 1)));
        }
        return ClickHouseTableSchema.of(list, defaults);
    }

    private static ClickHouseTableSchema table(String... columns) {
        return table(Set.of(), columns);
    }

    /** The sample's lines table: one row per order line, and the insert time left to the server. */
    static final ClickHouseTableSchema ORDER_LINES = table(
            Set.of("inserted_at"),
            "order_id UInt64",
            "line_no UInt16",
            "customer_name String",
            "status " + STATUS,
            "sku String",
            "quantity UInt32",
            "price_cents Decimal(18, 2)",
            "coupon Nullable(String)",
            "updated_ms Int64",
            "inserted_at DateTime");

    // tag::by-name[]
    /**
     * The orders' lines table, derived from its columns: each column takes the field of its name
     * (customer_name is customer.name; sku, quantity and price_cents are fields of each line), the
     * insert time is left to the table's DEFAULT, and only what names do not say is declared.
     */
    static AvroTableMapping orderLines(Schema readerSchema, ClickHouseTableSchema table) {
        return AvroTableMapping.derive(readerSchema, table)
                .source("order_id", "id") // a column whose field has another name
                .explode("lines") // one row per line: columns may name a line's fields
                .index("line_no") // the line's position in the array, from 0
                .dropWhen("status", "CANCELLED")
                .shardKey("id")
                .build(); // every mistake in one AvroTableMappingException
    }
    // end::by-name[]

    /** The same mapping written column by column. */
    private static AvroRowMapping orderLinesByHand() {
        return AvroRowMapping.builder(ORDER)
                .explode("lines")
                .column("order_id", "UInt64", "id")
                .index("line_no", "UInt16")
                .column("customer_name", "String", "customer.name")
                .column("status", STATUS)
                .column("sku", "String", "lines.sku")
                .column("quantity", "UInt32", "lines.quantity")
                .column("price_cents", "Decimal(18, 2)", "lines.price_cents")
                .column("coupon", "Nullable(String)")
                .column("updated_ms", "Int64")
                .dropWhen("status", "CANCELLED")
                .shardKey("id")
                .build();
    }

    @Test
    void columnsTakeTheFieldOfTheirNameAndTheRestIsDeclared() {
        AvroTableMapping derived = orderLines(ORDER, ORDER_LINES);

        assertThat(derived.sources())
                .containsExactly(
                        Map.entry("order_id", "id"),
                        Map.entry("line_no", AvroTableMapping.ELEMENT_INDEX),
                        Map.entry("customer_name", "customer.name"),
                        Map.entry("status", "status"),
                        Map.entry("sku", "lines.sku"),
                        Map.entry("quantity", "lines.quantity"),
                        Map.entry("price_cents", "lines.price_cents"),
                        Map.entry("coupon", "coupon"),
                        Map.entry("updated_ms", "updated_ms"));
        assertThat(derived.rowMapping().columns()).isEqualTo(orderLinesByHand().columns());
        assertThat(derived.leftToDefaults()).containsExactly("inserted_at");
        assertThat(derived.unstoredFields()).isEmpty();
    }

    @Test
    void theDerivedMappingWritesTheBytesOfTheSameMappingWrittenByHand() throws Exception {
        AvroRowTranscoder derived = AvroRowTranscoder.raw(
                        orderLines(ORDER, ORDER_LINES).rowMapping(), ORDER)
                .build();
        AvroRowTranscoder byHand =
                AvroRowTranscoder.raw(orderLinesByHand(), ORDER).build();
        SplittableRandom random = new SplittableRandom(33);
        int rows = 0;
        for (int i = 0; i < 300; i++) {
            GenericRecord order = order(random);
            byte[] body = AvroWireFormat.raw(ORDER, order);
            RowBuffer expected = new RowBuffer(64);
            RowBuffer actual = new RowBuffer(64);
            int n = byHand.encodeRows(new Payload().wrap(body), null, expected);
            assertThat(derived.encodeRows(new Payload().wrap(body), null, actual))
                    .as("order %s", order)
                    .isEqualTo(n);
            assertThat(actual.toByteArray()).as("order %s", order).isEqualTo(expected.toByteArray());
            assertThat(derived.shardKey(new Payload().wrap(body))).isEqualTo(order.get("id"));
            rows += n;
        }
        assertThat(rows).as("the seed writes rows").isPositive();
    }

    private static GenericRecord order(SplittableRandom random) {
        String[] text = {"", "a", "zürich", "東京", "x".repeat(130)};
        GenericData.Record customer =
                new GenericData.Record(ORDER.getField("customer").schema());
        customer.put("name", text[random.nextInt(text.length)]);
        GenericData.Record r = new GenericData.Record(ORDER);
        r.put("id", random.nextLong() >>> 1);
        r.put("customer", customer);
        Schema status = ORDER.getField("status").schema();
        r.put(
                "status",
                new GenericData.EnumSymbol(status, status.getEnumSymbols().get(random.nextInt(4))));
        Schema line = ORDER.getField("lines").schema().getElementType();
        List<GenericRecord> lines = new ArrayList<>();
        for (int i = random.nextInt(4); i > 0; i--) {
            GenericData.Record l = new GenericData.Record(line);
            l.put("sku", text[random.nextInt(text.length)] + i);
            l.put("quantity", random.nextInt(1000));
            l.put("price_cents", random.nextLong(-999_999_999_999_999_999L, 999_999_999_999_999_999L));
            lines.add(l);
        }
        r.put("lines", lines);
        r.put("coupon", random.nextBoolean() ? null : text[random.nextInt(text.length)]);
        r.put("updated_ms", random.nextLong());
        return r;
    }

    @Test
    void aNestedRecordsFieldIsNamedByItsPathWithDotsOrUnderscores() {
        AvroTableMapping derived = AvroTableMapping.derive(
                        ORDER, table("customer.name String", "id UInt64", "customer_name String"))
                .build();

        assertThat(derived.sources())
                .containsExactly(
                        Map.entry("customer.name", "customer.name"),
                        Map.entry("id", "id"),
                        Map.entry("customer_name", "customer.name"));
    }

    @Test
    void anExactNameComesBeforeTheUnderscorePathAndCaseIsIgnoredLast() {
        Schema schema = new Schema.Parser().parse("""
                {"type": "record", "name": "R", "fields": [
                  {"name": "a", "type": {"type": "record", "name": "A", "fields": [{"name": "b", "type": "long"}]}},
                  {"name": "a_b", "type": "long"},
                  {"name": "Code", "type": "long"},
                  {"name": "CODE", "type": "long"},
                  {"name": "Flag", "type": "long"}
                ]}""");

        AvroTableMapping derived = AvroTableMapping.derive(
                        schema, table("a_b Int64", "A_B Int64", "Code Int64", "flag Int64", "A.B Int64"))
                .build();

        assertThat(derived.sources())
                .containsExactly(
                        Map.entry("a_b", "a_b"), // the field named a_b, not the path a.b
                        Map.entry("A_B", "a_b"), // ignoring case, the exact name before the path
                        Map.entry("Code", "Code"), // case first: CODE is not ambiguous with it
                        Map.entry("flag", "Flag"),
                        Map.entry("A.B", "a.b"));
        assertThatThrownBy(() ->
                        AvroTableMapping.derive(schema, table("code Int64")).build())
                .isInstanceOf(AvroTableMappingException.class)
                .hasMessageContaining("column 'code' (Int64): fields 'Code', 'CODE' all match its name");
    }

    @Test
    void aColumnMatchingARecordFieldAndAnElementFieldIsAmbiguousUnlessGivenASource() {
        Schema schema = new Schema.Parser().parse("""
                {"type": "record", "name": "Order", "fields": [
                  {"name": "id", "type": "long"},
                  {"name": "lines", "type": {"type": "array", "items": {"type": "record", "name": "Line",
                      "fields": [{"name": "id", "type": "long"}, {"name": "sku", "type": "string"}]}}}
                ]}""");
        ClickHouseTableSchema lines = table("id Int64", "sku String");

        assertThatThrownBy(() ->
                        AvroTableMapping.derive(schema, lines).explode("lines").build())
                .isInstanceOf(AvroTableMappingException.class)
                .hasMessageContaining("column 'id' (Int64): fields 'id', 'lines.id' all match its name; give its"
                        + " source (source('id', <field path>))");
        assertThat(AvroTableMapping.derive(schema, lines)
                        .explode("lines")
                        .source("id", "lines.id")
                        .build()
                        .sources())
                .containsExactly(Map.entry("id", "lines.id"), Map.entry("sku", "lines.sku"));
        // Without the explode, element fields are not candidates: id is the order's.
        assertThat(AvroTableMapping.derive(schema, table("id Int64")).build().sources())
                .containsExactly(Map.entry("id", "id"));
    }

    @Test
    void anElementFieldIsNamedByItsPathInTheElementOrItsFullPath() {
        AvroTableMapping derived = AvroTableMapping.derive(
                        ORDER, table("id UInt64", "lines_sku String", "lines.quantity UInt32", "price_cents Int64"))
                .explode("lines")
                .build();

        assertThat(derived.sources())
                .containsExactly(
                        Map.entry("id", "id"),
                        Map.entry("lines_sku", "lines.sku"),
                        Map.entry("lines.quantity", "lines.quantity"),
                        Map.entry("price_cents", "lines.price_cents"));
    }

    @Test
    void aSourceOverridesTheFieldOfTheSameName() {
        AvroTableMapping derived = AvroTableMapping.derive(ORDER, table("id UInt64", "updated_ms Int64"))
                .source("updated_ms", "id")
                .build();

        assertThat(derived.sources()).containsExactly(Map.entry("id", "id"), Map.entry("updated_ms", "id"));
        assertThat(derived.unstoredFields())
                .containsExactly("customer.name", "status", "lines", "coupon", "updated_ms");
    }

    @Test
    void aSourceNamingAMissingFieldSaysWhichSourceAndTheClosestField() {
        assertThatThrownBy(() -> AvroTableMapping.derive(ORDER, table("id UInt64", "updated Int64"))
                        .source("updated", "updated_mss")
                        .build())
                .isInstanceOf(AvroTableMappingException.class)
                .satisfies(e -> assertThat(((AvroTableMappingException) e).problems())
                        .singleElement(org.assertj.core.api.InstanceOfAssertFactories.STRING)
                        .startsWith("source('updated', 'updated_mss'): ")
                        .endsWith("; did you mean 'updated_ms'?"));
    }

    @Test
    void columnsWithADefaultAndNoFieldAreLeftToTheServer() {
        ClickHouseTableSchema orders = table(
                Set.of("inserted_at", "coupon"),
                "id UInt64",
                "inserted_at DateTime",
                "coupon Nullable(String)",
                "updated_ms Int64");

        AvroTableMapping derived = AvroTableMapping.derive(ORDER, orders).build();

        assertThat(derived.leftToDefaults())
                .as("a DEFAULT column a field matches is written")
                .containsExactly("inserted_at");
        assertThat(derived.rowMapping().columns())
                .containsExactly(
                        new ClickHouseColumn("id", "UInt64"),
                        new ClickHouseColumn("coupon", "Nullable(String)"),
                        new ClickHouseColumn("updated_ms", "Int64"));
    }

    @Test
    void aColumnAFieldNamesIsLeftToItsDefaultOnlyWhenDeclared() {
        ClickHouseTableSchema orders = table(Set.of("updated_ms"), "id UInt64", "updated_ms Int64");

        AvroTableMapping derived = AvroTableMapping.derive(ORDER, orders)
                .serverDefault("updated_ms")
                .build();

        assertThat(derived.sources()).containsExactly(Map.entry("id", "id"));
        assertThat(derived.leftToDefaults()).containsExactly("updated_ms");
        assertThat(derived.unstoredFields()).contains("updated_ms");
        assertThatThrownBy(() -> AvroTableMapping.derive(ORDER, orders)
                        .serverDefault("id")
                        .serverDefault("updated")
                        .build())
                .isInstanceOfSatisfying(
                        AvroTableMappingException.class,
                        e -> assertThat(e.problems())
                                .containsExactly(
                                        "column 'id' (UInt64): serverDefault('id') is given, but the table has no DEFAULT for it",
                                        "serverDefault('updated'): the table has no insertable column 'updated'; did you mean"
                                                + " 'updated_ms'?"));
    }

    @Test
    void everyMistakeIsInOneMessage() {
        ClickHouseTableSchema orders = table(
                Set.of("inserted_at"),
                "id UInt64",
                "custmer_name String",
                "total_cents Int64",
                "status " + STATUS,
                "inserted_at DateTime");

        assertThatThrownBy(() -> AvroTableMapping.derive(ORDER, orders)
                        .source("statsu", "status")
                        .build())
                .isInstanceOfSatisfying(AvroTableMappingException.class, e -> {
                    assertThat(e.unmatchedColumns()).containsExactly("custmer_name", "total_cents");
                    assertThat(e.unstoredFields()).containsExactly("customer.name", "lines", "coupon", "updated_ms");
                    assertThat(e.problems()).hasSize(3);
                })
                .hasMessage("""
                        the table's columns cannot be derived from the reader schema shop.Order (3 problems):
                          - column 'custmer_name' (String): no field of that name or path, and no DEFAULT; did you mean 'customer.name'?
                          - column 'total_cents' (Int64): no field of that name or path, and no DEFAULT
                          - source('statsu', 'status'): the table has no insertable column 'statsu'; did you mean 'status'?
                        reader fields no column stores: customer.name, lines, coupon, updated_ms""");
    }

    @Test
    void anIndexOrASecondArrayTheTableCannotTakeIsReportedWithTheRest() {
        assertThatThrownBy(() -> AvroTableMapping.derive(ORDER, table("id UInt64", "line_no UInt16"))
                        .explode("lines")
                        .explode("lines")
                        .index("line_nr")
                        .source("line_no", "id")
                        .build())
                .isInstanceOfSatisfying(
                        AvroTableMappingException.class,
                        e -> assertThat(e.problems())
                                .containsExactly(
                                        "index('line_nr'): the table has no insertable column 'line_nr'; did you mean 'line_no'?",
                                        "explode('lines'): the mapping explodes 'lines' already (at most one array per mapping)"));
        assertThatThrownBy(() -> AvroTableMapping.derive(ORDER, table("line_no UInt16"))
                        .index("line_no")
                        .build())
                .hasMessageContaining("an index column needs an exploded array");
    }

    @Test
    void aTableWhoseEveryColumnIsLeftToItsDefaultHasNoColumnToWrite() {
        assertThatThrownBy(() -> AvroTableMapping.derive(ORDER, table(Set.of("inserted_at"), "inserted_at DateTime"))
                        .build())
                .isInstanceOf(AvroTableMappingException.class)
                .hasMessageContaining("no column to write: the table's insertable columns [inserted_at] all have a"
                        + " DEFAULT and no field matches any of them");
    }

    @Test
    void everyFieldThatCannotGoIntoItsColumnIsReported() {
        ClickHouseTableSchema orders =
                table("id UInt64", "customer_name UInt64", "coupon String", "status Enum8('NEW' = 0)");

        assertThatThrownBy(() -> AvroTableMapping.derive(ORDER, orders).build())
                .isInstanceOfSatisfying(
                        AvroTableMappingException.class,
                        e -> assertThat(e.problems())
                                .hasSize(3)
                                .satisfiesExactly(
                                        p -> assertThat(p)
                                                .startsWith(
                                                        "field 'customer.name' (Avro string) → column 'customer_name'"),
                                        p -> assertThat(p)
                                                .startsWith("field 'coupon' (Avro [null, string]) → column 'coupon'"),
                                        p -> assertThat(p).startsWith("field 'status' (Avro ")));
    }

    @Test
    void conditionsShardKeyAndExplodeAreCheckedWithTheColumns() {
        assertThatThrownBy(() -> AvroTableMapping.derive(ORDER, table("id UInt64", "nope String"))
                        .explode("line")
                        .dropWhen("status", "LOST")
                        .build())
                .isInstanceOfSatisfying(
                        AvroTableMappingException.class,
                        e -> assertThat(e.problems())
                                .satisfiesExactly(
                                        p -> assertThat(p).startsWith("column 'nope' (String): no field"),
                                        p -> assertThat(p)
                                                .isEqualTo(
                                                        "explode('line'): the reader schema shop.Order has no array of"
                                                                + " records at 'line'; did you mean 'lines'?"),
                                        p -> assertThat(p).contains("'LOST' is not a symbol of")));
    }

    @Test
    void conditionValuesSpelledAsStringsAreReadAsTheFieldsType() throws Exception {
        AvroRowMapping mapping = AvroTableMapping.derive(ORDER, table("id UInt64"))
                .dropWhen("id", "7")
                .build()
                .rowMapping();
        AvroRowTranscoder transcoder = AvroRowTranscoder.raw(mapping, ORDER).build();
        GenericRecord order = order(new SplittableRandom(1));

        order.put("id", 7L);
        assertThat(transcoder.encodeRows(new Payload().wrap(AvroWireFormat.raw(ORDER, order)), null, new RowBuffer(8)))
                .isZero();
        order.put("id", 8L);
        assertThat(transcoder.encodeRows(new Payload().wrap(AvroWireFormat.raw(ORDER, order)), null, new RowBuffer(8)))
                .isOne();
    }

    @Test
    void aComputedSourceReadsTheFieldPathsItNames() {
        AvroTableMapping.ReaderFields fields = new AvroTableMapping.ReaderFields(ORDER, null);
        assertThat(fields.leaves()).containsExactly("id", "customer.name", "status", "lines", "coupon", "updated_ms");
        assertThat(fields.leavesReadBy("sum(lines.quantity * lines.price_cents)"))
                .containsExactly("lines");
        assertThat(fields.leavesReadBy("customer")).containsExactly("customer.name");
        assertThat(fields.leavesReadBy("coalesce(coupon, 'updated_ms') + id[long]"))
                .containsExactly("id", "coupon");

        AvroTableMapping.ReaderFields exploded = new AvroTableMapping.ReaderFields(ORDER, "lines");
        assertThat(exploded.leaves())
                .containsExactly(
                        "id",
                        "customer.name",
                        "status",
                        "lines.sku",
                        "lines.quantity",
                        "lines.price_cents",
                        "coupon",
                        "updated_ms");
        assertThat(exploded.leavesReadBy("length(lines)"))
                .containsExactly("lines.sku", "lines.quantity", "lines.price_cents");
    }

    @Test
    void fieldsNoColumnReadsAreListed() {
        Map<String, String> expected = new LinkedHashMap<>();
        expected.put("id", "id");
        AvroTableMapping derived =
                AvroTableMapping.derive(ORDER, table("id UInt64")).build();
        assertThat(derived.sources()).isEqualTo(expected);
        assertThat(derived.unstoredFields())
                .containsExactly("customer.name", "status", "lines", "coupon", "updated_ms");
    }
}
