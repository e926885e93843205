package dev.etl.clickhouse.sharding;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.Map;
import org.junit.jupiter.api.Test;

class ShardingKeyTest {
    private static final Map<String, String> COLUMNS = Map.of(
            "order_id",
            "UInt64",
            "customer",
            "String",
            "day",
            "Date",
            "ts",
            "DateTime('UTC')",
            "n",
            "Int32",
            "tag",
            "LowCardinality(String)",
            "x",
            "Float64",
            "weird name",
            "UInt32");

    @Test
    void parsesTheSupportedExpressionForms() {
        assertThat(ShardingKey.parse("cityHash64(order_id)", COLUMNS::get))
                .isEqualTo(ShardingKey.cityHash64("order_id", KeyType.UINT64));
        assertThat(ShardingKey.parse(" murmurHash3_64( customer ) ", COLUMNS::get))
                .isEqualTo(ShardingKey.murmurHash3_64("customer", KeyType.STRING));
        assertThat(ShardingKey.parse("intHash64(n)", COLUMNS::get))
                .isEqualTo(ShardingKey.intHash64("n", KeyType.INT32));
        assertThat(ShardingKey.parse("n", COLUMNS::get)).isEqualTo(ShardingKey.raw("n", KeyType.INT32));
        assertThat(ShardingKey.parse("cityHash64(`weird name`)", COLUMNS::get).column())
                .isEqualTo("weird name");
        assertThat(ShardingKey.parse("cityHash64(tag)", COLUMNS::get).type()).isEqualTo(KeyType.STRING);
        assertThat(ShardingKey.parse("day", COLUMNS::get).type()).isEqualTo(KeyType.UINT16);
        assertThat(ShardingKey.parse("ts", COLUMNS::get).type()).isEqualTo(KeyType.UINT32);
    }

    @Test
    void refusesExpressionsItDoesNotReproduce() {
        assertThatThrownBy(() -> ShardingKey.parse("rand()", COLUMNS::get))
                .hasMessageContaining("'rand()' is not one this router reproduces");
        assertThatThrownBy(() -> ShardingKey.parse("sipHash64(customer)", COLUMNS::get))
                .hasMessageContaining("cityHash64(col), murmurHash3_64(col), intHash64(col)");
        assertThatThrownBy(() -> ShardingKey.parse("cityHash64(order_id, customer)", COLUMNS::get))
                .isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> ShardingKey.parse("cityHash64(missing)", COLUMNS::get))
                .hasMessageContaining("'missing', which the table does not have");
        assertThatThrownBy(() -> ShardingKey.parse("x", COLUMNS::get)).hasMessageContaining("Float64");
    }

    @Test
    void refusesCombinationsClickHouseRefuses() {
        assertThatThrownBy(() -> ShardingKey.intHash64("customer", KeyType.STRING))
                .hasMessageContaining("intHash64 takes integers only");
        assertThatThrownBy(() -> ShardingKey.raw("customer", KeyType.STRING))
                .hasMessageContaining("a raw key must be an integer");
    }

    @Test
    void printsTheExpression() {
        assertThat(ShardingKey.cityHash64("order_id", KeyType.UINT64).expression())
                .isEqualTo("cityHash64(order_id)");
        assertThat(ShardingKey.raw("order_id", KeyType.UINT64).expression()).isEqualTo("order_id");
    }

    @Test
    void keysOfTheWrongKindAreRefused() {
        assertThatThrownBy(
                        () -> ShardingKey.cityHash64("customer", KeyType.STRING).valueOf(1L))
                .isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("pass the key as text");
        assertThatThrownBy(
                        () -> ShardingKey.cityHash64("order_id", KeyType.UINT64).valueOf("1"))
                .isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("pass the key as a long");
    }

    @Test
    void textIsHashedAsTheUtf8TheSinkStores() {
        ShardingKey key = ShardingKey.cityHash64("customer", KeyType.STRING);
        String text = "a\uD800b€😀"; // a lone surrogate becomes '?', as RowBuffer.writeString writes it
        byte[] stored = text.getBytes(java.nio.charset.StandardCharsets.UTF_8);
        assertThat(key.valueOf(text)).isEqualTo(key.valueOf(stored, 0, stored.length));
        String longText = "ж".repeat(5000); // grows the scratch array
        byte[] longStored = longText.getBytes(java.nio.charset.StandardCharsets.UTF_8);
        assertThat(key.valueOf(longText)).isEqualTo(CityHash64.hash(longStored));
        assertThat(key.valueOf(new StringBuilder("abc"))).isEqualTo(key.valueOf("abc"));
    }
}
