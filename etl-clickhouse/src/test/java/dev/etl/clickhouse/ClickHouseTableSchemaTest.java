package dev.etl.clickhouse;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import org.junit.jupiter.api.Test;

class ClickHouseTableSchemaTest {
    private static final String COLUMNS = "id\tUInt64\t\n"
            + "inserted_at\tDateTime\tDEFAULT\tnow()\n"
            + "day\tDate\tMATERIALIZED\n"
            + "note\tString\tALIAS\n"
            + "odd\\tname\tEnum8(\\'a\\' = 1)\t\n";

    private static ClickHouseSinkConfig config() {
        return ClickHouseSinkConfig.builder()
                .table("db", "t")
                .shard("http://127.0.0.1:18123", "http://127.0.0.1:18124")
                .shard("http://127.0.0.1:18125")
                .build();
    }

    @Test
    void readsTheInsertableColumnsInTableOrderAndWhichHaveADefault() {
        FakeTransport t = new FakeTransport();
        List<String> asked = new ArrayList<>();
        t.queries = sql -> {
            asked.add(sql);
            return COLUMNS;
        };
        ClickHouseTableSchema schema = ClickHouseTableSchema.read(config(), t);
        assertThat(schema.insertable())
                .containsExactly(
                        new ClickHouseColumn("id", "UInt64"),
                        new ClickHouseColumn("inserted_at", "DateTime"),
                        new ClickHouseColumn("odd\tname", "Enum8('a' = 1)"));
        assertThat(schema.hasDefault("inserted_at")).isTrue();
        assertThat(schema.defaultExpression("inserted_at")).isEqualTo("now()");
        assertThat(schema.hasDefault("id")).isFalse();
        assertThat(schema.column("day")).as("MATERIALIZED is never inserted").isNull();
        assertThat(schema.column("note")).as("ALIAS is never inserted").isNull();
        assertThat(asked)
                .containsExactly(
                        "SELECT name, type, default_kind, default_expression FROM system.columns WHERE database = 'db' AND table = 't'"
                                + " FORMAT TabSeparated");
    }

    @Test
    void anUnreachableReplicaIsSkippedForTheNextOneEvenOnAnotherShard() {
        FakeTransport t = new FakeTransport();
        t.queries = sql -> COLUMNS;
        t.down("http://127.0.0.1:18123");
        t.down("http://127.0.0.1:18124");
        assertThat(ClickHouseTableSchema.read(config(), t).insertable()).hasSize(3);
        t.down("http://127.0.0.1:18125");
        assertThatThrownBy(() -> ClickHouseTableSchema.read(config(), t))
                .isInstanceOf(ClickHouseSchemaException.class)
                .hasMessageContaining("no replica of any ClickHouse shard is reachable to read the columns of db.t")
                .hasMessageContaining("http://127.0.0.1:18125 (java.net.ConnectException: Connection refused)");
    }

    @Test
    void aMissingTableFailsNamingTheReplica() {
        FakeTransport t = new FakeTransport();
        assertThatThrownBy(() -> ClickHouseTableSchema.read(config(), t))
                .isInstanceOf(ClickHouseSchemaException.class)
                .hasMessageContaining("table db.t does not exist on shard 0 replica http://127.0.0.1:18123");
    }

    @Test
    void anErrorAnswerFailsAtOnceInsteadOfAskingTheNextReplica() {
        List<String> asked = new ArrayList<>();
        ClickHouseTransport failing = new ClickHouseTransport() {
            @Override
            public long insert(java.net.URI replica, ClickHouseInsert insert, byte[] body, int length) {
                throw new AssertionError("no insert");
            }

            @Override
            public String query(java.net.URI replica, String sql) throws ClickHouseRequestException {
                asked.add(ClickHouseShardWriter.describe(replica));
                throw FakeTransport.http(
                        500, "Code: 516, e.displayText() = DB::Exception: default: Authentication failed");
            }
        };
        assertThatThrownBy(() -> ClickHouseTableSchema.read(config(), failing))
                .isInstanceOf(ClickHouseSchemaException.class)
                .hasMessageContaining("cannot read the columns of table db.t on shard 0 replica http://127.0.0.1:18123")
                .hasMessageContaining("Authentication failed");
        assertThat(asked).containsExactly("http://127.0.0.1:18123");
    }

    @Test
    void ofChecksItsParts() {
        ClickHouseColumn id = new ClickHouseColumn("id", "UInt64");
        assertThatThrownBy(() -> ClickHouseTableSchema.of(List.of(id, id), Set.of()))
                .hasMessageContaining("listed twice");
        assertThatThrownBy(() -> ClickHouseTableSchema.of(List.of(id), Set.of("ts")))
                .hasMessageContaining("not an insertable column");
    }
}
