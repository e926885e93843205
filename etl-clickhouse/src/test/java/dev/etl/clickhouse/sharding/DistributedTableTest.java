package dev.etl.clickhouse.sharding;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.etl.clickhouse.ClickHouseInsert;
import dev.etl.clickhouse.ClickHouseTransport;
import java.net.URI;
import java.util.Map;
import org.junit.jupiter.api.Test;

class DistributedTableTest {

    @Test
    void splitsEngineArgumentsAtTopLevelCommas() {
        assertThat(DistributedTable.engineArguments("Distributed(etl, shop, orders_local, cityHash64(id))"))
                .containsExactly("etl", "shop", "orders_local", "cityHash64(id)");
        assertThat(DistributedTable.engineArguments("Distributed('etl', 'sh,op', orders, cityHash64(a, b), 'pol')"))
                .containsExactly("'etl'", "'sh,op'", "orders", "cityHash64(a, b)", "'pol'");
        assertThat(DistributedTable.engineArguments("Distributed(etl, shop, orders)"))
                .hasSize(3);
    }

    @Test
    void readsClusterLocalTableKeyAndColumnsFromTheServer() throws Exception {
        ClickHouseTransport transport = answering(Map.of(
                "FROM system.tables",
                        "Distributed\tDistributed(\\'etl\\', \\'shop\\', \\'orders_local\\', cityHash64(id))\n",
                "FROM system.columns", "id\tUInt64\ncustomer\tString\n"));
        DistributedTable t = DistributedTable.read(transport, URI.create("http://ch:8123"), "shop", "orders");
        assertThat(t.cluster()).isEqualTo("etl");
        assertThat(t.localDatabase()).isEqualTo("shop");
        assertThat(t.localTable()).isEqualTo("orders_local");
        assertThat(t.shardingExpression()).isEqualTo("cityHash64(id)");
        assertThat(t.columnTypes()).containsEntry("id", "UInt64").containsEntry("customer", "String");
        assertThat(t.shardingKey()).isEqualTo(ShardingKey.cityHash64("id", KeyType.UINT64));
        assertThat(t.qualifiedName()).isEqualTo("shop.orders");
    }

    @Test
    void refusesATableThatIsNotDistributed() {
        ClickHouseTransport transport = answering(Map.of("FROM system.tables", "MergeTree\tMergeTree ORDER BY id\n"));
        assertThatThrownBy(() -> DistributedTable.read(transport, URI.create("http://ch:8123"), "shop", "orders_local"))
                .hasMessageContaining("is MergeTree, not Distributed");
        ClickHouseTransport none = answering(Map.of());
        assertThatThrownBy(() -> DistributedTable.read(none, URI.create("http://ch:8123"), "shop", "nope"))
                .hasMessageContaining("does not exist");
    }

    @Test
    void aTableWithoutShardingKeyHasNoShardingKey() {
        DistributedTable t = new DistributedTable("shop", "orders", "etl", "shop", "l", null, Map.of());
        assertThatThrownBy(t::shardingKey).hasMessageContaining("has no sharding key");
    }

    /** Answers a query with the value of the first key it contains, else an empty body. */
    static ClickHouseTransport answering(Map<String, String> answers) {
        return new ClickHouseTransport() {
            @Override
            public long insert(URI replica, ClickHouseInsert insert, byte[] body, int length) {
                throw new UnsupportedOperationException();
            }

            @Override
            public String query(URI replica, String sql) {
                return answers.entrySet().stream()
                        .filter(e -> sql.contains(e.getKey()))
                        .map(Map.Entry::getValue)
                        .findFirst()
                        .orElse("");
            }
        };
    }
}
