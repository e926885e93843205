package dev.etl.avro.clickhouse;

import dev.etl.clickhouse.ColumnType;
import org.apache.avro.Schema;
import org.apache.avro.Schema.Type;

/** Avro's union resolution at compile time: which branch of a reader union reads a writer type. */
final class ReaderBranches {
    private ReaderBranches() {}

    /**
     * The reader branch a writer type resolves to, in Avro's order: the same type (same full name for
     * named types), then the first branch it promotes to.
     */
    static Schema resolve(Schema readerUnion, Schema writer, String field, String column, ColumnType type) {
        Type w = writer.getType();
        for (Schema branch : readerUnion.getTypes()) {
            if (branch.getType() == w && (!named(w) || branch.getFullName().equals(writer.getFullName()))) {
                return branch;
            }
        }
        for (Schema branch : readerUnion.getTypes()) {
            if (branch.getType() == w && named(w) && branch.getName().equals(writer.getName())) {
                return branch;
            }
        }
        for (Schema branch : readerUnion.getTypes()) {
            if (promotes(w, branch.getType())) {
                return branch;
            }
        }
        throw new AvroMappingException(
                field,
                column,
                AvroTypeNames.describe(readerUnion) + " (written as " + AvroTypeNames.describe(writer) + ")",
                type.name(),
                "no branch of the reader union reads a writer " + AvroTypeNames.describe(writer));
    }

    private static boolean named(Type t) {
        return t == Type.RECORD || t == Type.ENUM || t == Type.FIXED;
    }

    private static boolean promotes(Type writer, Type reader) {
        return switch (writer) {
            case INT -> reader == Type.LONG || reader == Type.FLOAT || reader == Type.DOUBLE;
            case LONG -> reader == Type.FLOAT || reader == Type.DOUBLE;
            case FLOAT -> reader == Type.DOUBLE;
            case STRING -> reader == Type.BYTES;
            case BYTES -> reader == Type.STRING;
            default -> false;
        };
    }
}
