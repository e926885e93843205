package dev.etl.avro.clickhouse;

import java.io.ByteArrayOutputStream;
import java.util.List;
import org.apache.avro.Schema;
import org.apache.avro.Schema.Type;

/**
 * What an {@link AvroView} reads for one writer schema: per reader leaf (of the record, and of each array of
 * records' elements) the mark the scan put it in, or where its reader default lies in {@link #defaults}, and how
 * the writer's value is read (its type after the union, the null branch, the enum symbols resolved to reader
 * ordinals). Compiled with the writer's {@link ScanPlan} by {@link ScanCompiler}; immutable, shared by lanes.
 */
final class ViewPlan {
    static final int OTHER = 0;
    static final int INT = 1;
    static final int LONG = 2;
    static final int FLOAT = 3;
    static final int DOUBLE = 4;
    static final int BOOLEAN = 5;
    static final int STRING = 6;
    static final int ENUM = 7;
    static final int NULL = 8;
    static final int ARRAY = 9;

    /** {@link Level#nullBranch}: the writer's value is not a union. */
    static final int NOT_UNION = -2;

    final Level record;
    final Array[] arrays;
    /** The reader defaults of the leaves the writer lacks, Avro-encoded one after the other. */
    final byte[] defaults;
    /** The plan's mark count (the view's cursor indexes arrays with the element steps' marks). */
    final int markCount;

    ViewPlan(Level record, Array[] arrays, byte[] defaults, int markCount) {
        this.record = record;
        this.arrays = arrays;
        this.defaults = defaults;
        this.markCount = markCount;
    }

    /** One level's leaves, by the leaf index of {@link AvroView.LeafSet}. */
    static final class Level {
        /** The scan's mark of the leaf, or {@code -(position in defaults) - 1}. */
        final int[] marks;

        final int[] ops;
        /** The writer union's null branch, -1 when it has none, {@link #NOT_UNION} when it is no union. */
        final int[] nullBranch;
        /** The writer union's one non-null branch (or -1). */
        final int[] valueBranch;

        final int[][] enumOrdinals;
        /** Why a leaf cannot be read, or null. */
        final String[] unsupported;

        Level(int n) {
            marks = new int[n];
            ops = new int[n];
            nullBranch = new int[n];
            valueBranch = new int[n];
            enumOrdinals = new int[n][];
            unsupported = new String[n];
        }

        /**
         * Compiles leaf {@code i}: read from {@code mark} as {@code writer} wrote it for {@code reader}; or, with
         * {@code mark} negative, the reader default's bytes at {@code -mark - 1} (written with the reader schema).
         */
        void leaf(int i, int mark, Schema writer, Schema reader) {
            marks[i] = mark;
            Schema value = writer;
            nullBranch[i] = NOT_UNION;
            valueBranch[i] = -1;
            if (writer.getType() == Type.UNION) {
                nullBranch[i] = -1;
                List<Schema> branches = writer.getTypes();
                for (int b = 0; b < branches.size(); b++) {
                    if (branches.get(b).getType() == Type.NULL) {
                        nullBranch[i] = b;
                    } else if (valueBranch[i] < 0) {
                        valueBranch[i] = b;
                    } else {
                        unsupported[i] = "the writer's union " + AvroTypeNames.describe(writer)
                                + " has several non-null branches";
                    }
                }
                value = valueBranch[i] >= 0 ? branches.get(valueBranch[i]) : branches.get(0);
            }
            Schema readerValue = AvroView.LeafSet.valueType(reader);
            ops[i] = switch (value.getType()) {
                case INT -> INT;
                case LONG -> LONG;
                case FLOAT -> FLOAT;
                case DOUBLE -> DOUBLE;
                case BOOLEAN -> BOOLEAN;
                case STRING, BYTES -> STRING;
                case ENUM -> ENUM;
                case NULL -> NULL;
                case ARRAY -> ARRAY;
                default -> OTHER;
            };
            if (ops[i] == ENUM) {
                if (readerValue.getType() != Type.ENUM) {
                    ops[i] = OTHER;
                    unsupported[i] = "the writer's enum is read as " + AvroTypeNames.describe(reader);
                } else {
                    List<String> symbols = value.getEnumSymbols();
                    int[] ordinals = new int[symbols.size()];
                    for (int s = 0; s < ordinals.length; s++) {
                        String symbol = symbols.get(s);
                        ordinals[s] = readerValue.hasEnumSymbol(symbol)
                                ? readerValue.getEnumOrdinal(symbol)
                                : readerValue.getEnumDefault() != null
                                        ? readerValue.getEnumOrdinal(readerValue.getEnumDefault())
                                        : -1;
                    }
                    enumOrdinals[i] = ordinals;
                }
            }
        }
    }

    /** An array of records: the element steps from its mark (null when the writer lacks it), the element's leaves. */
    static final class Array {
        final String path;
        final Computed.Iter iter;
        final Level element;

        Array(String path, Computed.Iter iter, Level element) {
            this.path = path;
            this.iter = iter;
            this.element = element;
        }
    }

    /** Collects reader defaults' Avro bytes; {@link #add} returns the encoded position for {@link Level#marks}. */
    static final class Defaults {
        private final ByteArrayOutputStream bytes = new ByteArrayOutputStream();

        int add(Schema schema, Object value) {
            int position = bytes.size();
            byte[] encoded = ReaderDefaults.avroBytes(schema, value);
            bytes.write(encoded, 0, encoded.length);
            return -position - 1;
        }

        byte[] toByteArray() {
            // Padding: the cursor's fast varint reads load 8 bytes where it can.
            byte[] b = bytes.toByteArray();
            return java.util.Arrays.copyOf(b, b.length + 8);
        }
    }
}
