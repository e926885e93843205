package dev.etl.avro.clickhouse;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.etl.clickhouse.ColumnType;
import org.apache.avro.Schema;
import org.apache.avro.SchemaBuilder;
import org.junit.jupiter.api.Test;

/** The column types the transcoder takes from etl-clickhouse's one type parser, and those it refuses. */
class ColumnTypesTranscodedTest {
    private static final Schema READER = SchemaBuilder.record("Row")
            .fields()
            .requiredString("name")
            .requiredLong("id")
            .endRecord();

    @Test
    void lowCardinalityIsItsInnerTypeUnderTheNameItWasDeclaredWith() {
        ColumnType t = ConversionCompiler.columnType("Array(LowCardinality(String))");
        assertThat(t.kind()).isEqualTo(ColumnType.Kind.ARRAY);
        assertThat(t.inner().kind()).isEqualTo(ColumnType.Kind.STRING);
        assertThat(t.inner().name()).isEqualTo("LowCardinality(String)");
        assertThat(AvroRowMapping.builder(READER)
                        .column("name", "LowCardinality(String)")
                        .column("id", "UInt64")
                        .build())
                .isNotNull();
    }

    @Test
    void aTypeTheTranscoderDoesNotWriteIsRefusedNamingColumnAndType() {
        assertThatThrownBy(() -> AvroRowMapping.builder(READER).column("name", "Map(String, UInt128)"))
                .isInstanceOf(AvroMappingException.class)
                .hasMessageContaining("column 'name'")
                .hasMessageContaining("type 'UInt128' is not supported by the Avro transcoder");
        assertThatThrownBy(() -> AvroRowMapping.builder(READER).column("id", "Array(Int128)"))
                .isInstanceOf(AvroMappingException.class)
                .hasMessageContaining("ClickHouse type 'Array(Int128)': type 'Int128' is not supported");
        assertThatThrownBy(() -> AvroRowMapping.builder(READER).column("id", "Decimal(9, 12)"))
                .isInstanceOf(AvroMappingException.class)
                .hasMessageContaining("column 'id'")
                .hasMessageContaining("Decimal(9, 12) is out of range");
    }
}
