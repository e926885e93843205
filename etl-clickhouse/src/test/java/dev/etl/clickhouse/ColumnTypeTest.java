package dev.etl.clickhouse;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.etl.clickhouse.ColumnType.Kind;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

class ColumnTypeTest {

    @Test
    void readsTheTypesThisProjectWritesWithTheirArguments() {
        assertThat(ColumnType.parse("UInt64").kind()).isEqualTo(Kind.UINT64);
        assertThat(ColumnType.parse(" FixedString( 16 ) ").length()).isEqualTo(16);
        ColumnType dec = ColumnType.parse("Decimal64(2)");
        assertThat(dec.kind()).isEqualTo(Kind.DECIMAL);
        assertThat(dec.precision()).isEqualTo(18);
        assertThat(dec.scale()).isEqualTo(2);
        assertThat(dec.fixedWidth()).isEqualTo(8);
        ColumnType ts = ColumnType.parse("DateTime64(3, 'Europe/Berlin')");
        assertThat(ts.precision()).isEqualTo(3);
        assertThat(ts.timeZone()).isEqualTo("Europe/Berlin");
        assertThat(ColumnType.parse("Enum8('a' = 1, 'b' = -2)").enumValues())
                .containsExactly(Map.entry("a", 1), Map.entry("b", -2));
        assertThat(ColumnType.parse("Enum16('x', 'y')").enumValues())
                .containsExactly(Map.entry("x", 1), Map.entry("y", 2));
        ColumnType arr = ColumnType.parse("Array(Nullable(String))");
        assertThat(arr.inner().kind()).isEqualTo(Kind.NULLABLE);
        assertThat(arr.inner().inner().kind()).isEqualTo(Kind.STRING);
        ColumnType map = ColumnType.parse("Map(LowCardinality(String), UInt64)");
        assertThat(map.arguments()).extracting(ColumnType::kind).containsExactly(Kind.LOW_CARDINALITY, Kind.UINT64);
        ColumnType tuple = ColumnType.parse("Tuple(id UInt64, `a b` String, Float64)");
        assertThat(tuple.elementNames()).containsExactly("id", "a b", null);
        assertThat(tuple.arguments())
                .extracting(ColumnType::kind)
                .containsExactly(Kind.UINT64, Kind.STRING, Kind.FLOAT64);
    }

    @Test
    void namesItDoesNotWriteAreOtherAndStillCompare() {
        ColumnType agg = ColumnType.parse("AggregateFunction(quantiles(0.5, 0.9), UInt64)");
        assertThat(agg.kind()).isEqualTo(Kind.OTHER);
        assertThat(agg.canonical()).isEqualTo("AggregateFunction(quantiles(0.5,0.9),UInt64)");
        assertThat(ColumnType.sameType("SimpleAggregateFunction(sum, UInt64)", "SimpleAggregateFunction(sum,UInt64)"))
                .isTrue();
        assertThat(ColumnType.sameType("Nested(a UInt8)", "Nested(a  UInt8)")).isTrue();
    }

    @Test
    void canonicalSpellingsAreEqualForTheSameWireType() {
        assertThat(ColumnType.sameType("Decimal(18, 2)", "Decimal64(2)")).isTrue();
        assertThat(ColumnType.sameType("Decimal(10)", "Decimal(10, 0)")).isTrue();
        assertThat(ColumnType.sameType("DateTime", "DateTime('UTC')")).isTrue();
        assertThat(ColumnType.sameType("Enum8('a' = 1, 'b' = 2)", "Enum8('b' = 2, 'a' = 1)"))
                .isTrue();
        assertThat(ColumnType.sameType("Enum8('a', 'b')", "Enum8('a' = 1, 'b' = 2)"))
                .isTrue();
        assertThat(ColumnType.sameType("LowCardinality(String)", "String")).isFalse();
        assertThat(ColumnType.sameType("Tuple(a String)", "Tuple(b String)")).isFalse();
        assertThat(ColumnType.parse("Array(Decimal128(4))")).isEqualTo(ColumnType.parse("Array(Decimal(38, 4))"));
    }

    @Test
    void withoutLowCardinalityKeepsTheWrittenNames() {
        ColumnType t =
                ColumnType.parse("Array(LowCardinality(Nullable(String)))").withoutLowCardinality();
        assertThat(t.inner().kind()).isEqualTo(Kind.NULLABLE);
        assertThat(t.inner().name()).isEqualTo("LowCardinality(Nullable(String))");
        ColumnType plain = ColumnType.parse("Array(String)");
        assertThat(plain.withoutLowCardinality()).isSameAs(plain);
    }

    @Test
    void refusesNamingTheTypeAndWhere() {
        for (String bad : List.of(
                "FixedString(0)",
                "Decimal(80, 2)",
                "DateTime64(10)",
                "Map(String)",
                "Nullable(Nullable(UInt8))",
                "Enum8('a' = 300)",
                "Enum8('a' = 1, 'a' = 2)",
                "Array(UInt8",
                "UInt8(3)",
                "")) {
            assertThatThrownBy(() -> ColumnType.parse(bad))
                    .as(bad)
                    .isInstanceOf(IllegalArgumentException.class)
                    .hasMessageStartingWith("ClickHouse type '" + bad + "': ")
                    .hasMessageContaining(" at character ");
        }
    }
}
