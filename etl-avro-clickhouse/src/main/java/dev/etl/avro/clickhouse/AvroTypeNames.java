package dev.etl.avro.clickhouse;

import java.util.stream.Collectors;
import org.apache.avro.LogicalType;
import org.apache.avro.LogicalTypes;
import org.apache.avro.Schema;

/** Short names of Avro types for {@link AvroMappingException} messages. */
final class AvroTypeNames {
    private AvroTypeNames() {}

    /** A short name of an Avro type: {@code long(timestamp-millis)}, {@code enum Kind}, {@code ["null", string]}. */
    static String describe(Schema s) {
        return switch (s.getType()) {
            case UNION ->
                s.getTypes().stream().map(AvroTypeNames::describe).collect(Collectors.joining(", ", "[", "]"));
            case ARRAY -> "array<" + describe(s.getElementType()) + ">";
            case MAP -> "map<" + describe(s.getValueType()) + ">";
            case RECORD -> "record " + s.getFullName();
            case ENUM -> "enum " + s.getFullName() + s.getEnumSymbols();
            case FIXED -> "fixed " + s.getFullName() + "(" + s.getFixedSize() + ")" + logical(s);
            default -> s.getType().getName() + logical(s);
        };
    }

    private static String logical(Schema s) {
        LogicalType l = s.getLogicalType();
        if (l == null) {
            return "";
        }
        if (l instanceof LogicalTypes.Decimal d) {
            return "(decimal " + d.getPrecision() + "," + d.getScale() + ")";
        }
        return "(" + l.getName() + ")";
    }
}
