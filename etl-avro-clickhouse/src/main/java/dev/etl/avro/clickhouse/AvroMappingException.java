package dev.etl.avro.clickhouse;

import dev.etl.error.ErrorClass;
import dev.etl.error.EtlException;

/**
 * A mapping cannot be compiled: the field path names no field, or the field's Avro type cannot be
 * written as the column's ClickHouse type (e.g. a {@code ["null", "string"]} union into a
 * non-Nullable {@code String}, a {@code double} into {@code Int64}, an enum symbol the column's
 * {@code Enum8} lacks). Thrown by {@link AvroRowMapping.Builder#build()} against the reader schema,
 * and when a writer schema is first met (the writer schema cannot be read as the reader schema). The
 * message names the field path, the column and both types.
 */
public final class AvroMappingException extends EtlException {
    private static final long serialVersionUID = 1L;

    private final String field;
    private final String column;
    private final String avroType;
    private final String columnType;

    AvroMappingException(String field, String column, String avroType, String columnType, String problem) {
        super(
                ErrorClass.ENCODE,
                "field '" + field + "' (Avro " + avroType + ") → column '" + column + "' (" + columnType + "): "
                        + problem,
                null);
        this.field = field;
        this.column = column;
        this.avroType = avroType;
        this.columnType = columnType;
    }

    /** The field path of the mapping, e.g. {@code customer.name}. */
    public String field() {
        return field;
    }

    /** The column of the mapping. */
    public String column() {
        return column;
    }

    /** The Avro type found at the path (JSON of its schema, shortened for named types), or "missing". */
    public String avroType() {
        return avroType;
    }

    /** The column's ClickHouse type as declared. */
    public String columnType() {
        return columnType;
    }
}
