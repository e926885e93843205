package dev.etl.avro.clickhouse;

import dev.etl.error.ErrorClass;
import dev.etl.error.EtlException;
import java.util.List;

/**
 * A mapping cannot be derived from a table and a reader schema ({@link AvroTableMapping.Builder#build()}):
 * one exception for every problem found, so that a startup fails once with the whole list rather than once
 * per mistake. Its message has one line per problem: each column that no field matches and that has no
 * {@code DEFAULT} (with "did you mean" the closest field), each column two fields match equally, each
 * {@code source}/{@code index} naming a column the table does not have, each column whose field cannot be
 * written as the column's type (the {@link AvroMappingException} message), each record condition, shard key
 * or exploded array that cannot be read; and, as information, the reader fields that no column would store.
 */
public final class AvroTableMappingException extends EtlException {
    private static final long serialVersionUID = 1L;

    private final List<String> problems;
    private final List<String> unmatchedColumns;
    private final List<String> unstoredFields;

    AvroTableMappingException(
            String readerName, List<String> problems, List<String> unmatchedColumns, List<String> unstoredFields) {
        super(ErrorClass.ENCODE, message(readerName, problems, unstoredFields), null);
        this.problems = List.copyOf(problems);
        this.unmatchedColumns = List.copyOf(unmatchedColumns);
        this.unstoredFields = List.copyOf(unstoredFields);
    }

    private static String message(String readerName, List<String> problems, List<String> unstoredFields) {
        StringBuilder m = new StringBuilder("the table's columns cannot be derived from the reader schema ")
                .append(readerName)
                .append(" (")
                .append(problems.size())
                .append(problems.size() == 1 ? " problem):" : " problems):");
        for (String p : problems) {
            m.append("\n  - ").append(p);
        }
        m.append("\nreader fields no column stores: ")
                .append(unstoredFields.isEmpty() ? "none" : String.join(", ", unstoredFields));
        return m.toString();
    }

    /** Each problem, one line each, in the order of the message (table order first, then the rest). */
    public List<String> problems() {
        return problems;
    }

    /** The columns no field matched and the table gives no {@code DEFAULT}, in table order. */
    public List<String> unmatchedColumns() {
        return unmatchedColumns;
    }

    /** The reader fields (leaf paths) no column would read, in reader schema order: information, not a problem. */
    public List<String> unstoredFields() {
        return unstoredFields;
    }
}
