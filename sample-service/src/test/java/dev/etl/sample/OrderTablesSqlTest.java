package dev.etl.sample;

import static org.assertj.core.api.Assertions.assertThat;

import dev.etl.clickhouse.ClickHouseColumn;
import dev.etl.clickhouse.RowBinaryEncoder;
import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * The sample's DDL and its encoders agree, without a server: each {@code sql/*.sql} file's columns,
 * in order, are the columns of the encoder that writes the table (names, and types as the server
 * spells them: {@code Decimal64(2)} is {@code Decimal(18, 2)}; enum values in code order). The sink's
 * startup validation ({@code validation: full}) checks the same against {@code system.columns} of
 * every replica.
 */
class OrderTablesSqlTest {

    @ParameterizedTest
    @CsvSource({"orders.sql, orders", "order_headers.sql, headers", "cancelled_orders.sql, cancelled"})
    void eachTablesColumnsAreItsEncodersColumns(String file, String encoder) throws IOException {
        List<String> expected = encoder(encoder).columns().stream()
                .map(OrderTablesSqlTest::spelled)
                .toList();
        assertThat(columns("/sql/" + file)).containsExactlyElementsOf(expected);
    }

    static RowBinaryEncoder<?> encoder(String table) {
        return switch (table) {
            case "orders" -> OrderLineRow.ENCODER;
            case "headers" -> OrderHeaderRow.HEADER_ENCODER;
            case "cancelled" -> OrderHeaderRow.CANCELLED_ENCODER;
            default -> throw new IllegalArgumentException(table);
        };
    }

    static String spelled(ClickHouseColumn column) {
        return column.name() + " " + enumByCode(column.type().replace(" ", ""));
    }

    /** "name type" of each column line between "CREATE TABLE ... (" and ") ENGINE", whitespace-free types. */
    static List<String> columns(String resource) throws IOException {
        String sql;
        try (InputStream in = OrderTablesSqlTest.class.getResourceAsStream(resource)) {
            assertThat(in).as(resource).isNotNull();
            sql = new String(in.readAllBytes(), StandardCharsets.UTF_8);
        }
        List<String> columns = new ArrayList<>();
        boolean inside = false;
        for (String line : sql.split("\n")) {
            String trimmed = line.strip();
            if (trimmed.startsWith("CREATE TABLE")) {
                inside = true;
            } else if (trimmed.startsWith(")")) {
                inside = false;
            } else if (inside && !trimmed.isEmpty()) {
                String[] nameAndType = trimmed.replaceAll(",$", "").split("\\s+", 2);
                columns.add(nameAndType[0] + " " + enumByCode(serverSpelling(nameAndType[1].replace(" ", ""))));
            }
        }
        return columns;
    }

    /** An Enum8 with its values in code order (an encoder's come from a Map: any order); else as is. */
    static String enumByCode(String type) {
        Matcher m = Pattern.compile("Enum8\\((.*)\\)").matcher(type);
        if (!m.matches()) {
            return type;
        }
        List<String> values = new ArrayList<>(List.of(m.group(1).split(",")));
        values.sort(Comparator.comparingInt((String v) -> Integer.parseInt(v.substring(v.lastIndexOf('=') + 1))));
        return "Enum8(" + String.join(",", values) + ")";
    }

    /** The aliases the DDL uses, as system.columns reports them. */
    static String serverSpelling(String type) {
        return type.replaceAll("Decimal64\\((\\d+)\\)", "Decimal(18,$1)");
    }
}
