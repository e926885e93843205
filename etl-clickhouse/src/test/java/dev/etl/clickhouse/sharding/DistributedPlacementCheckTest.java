package dev.etl.clickhouse.sharding;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.etl.clickhouse.ClickHouseTransport;
import java.net.URI;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

class DistributedPlacementCheckTest {

    private static PlacementReport report(int mismatched, List<String> problems) {
        List<PlacementReport.Mismatch> mismatches =
                mismatched == 0 ? List.of() : List.of(new PlacementReport.Mismatch("42", 1, 0, 0));
        return PlacementReport.builder()
                .table("shop.orders")
                .cluster("etl")
                .expression("cityHash64(order_id)")
                .keyColumn("order_id")
                .keyType("UInt64")
                .pipeline("KeyHashRouter")
                .serverWeights(List.of(1, 1))
                .pipelineShards(2)
                .checked(1000)
                .mismatched(mismatched)
                .mismatches(mismatches)
                .problems(problems)
                .build();
    }

    @Test
    void bindsEachKeyToTheColumnWithItsType() {
        String sql = PlacementKeySql.bound("order_id", "UInt64", KeyType.UINT64, List.of(1L, -1L), "x");
        assertThat(sql)
                .isEqualTo("SELECT idx, x FROM (SELECT arrayJoin(arrayEnumerate(keys)) AS idx, keys[idx] AS "
                        + "`order_id` FROM (SELECT [CAST('1' AS UInt64), CAST('18446744073709551615' AS UInt64)] AS keys)) "
                        + "ORDER BY idx FORMAT TabSeparated");
        assertThat(PlacementKeySql.bound("d", "Date", KeyType.UINT16, List.of(17000), "x"))
                .contains("[CAST(CAST('17000' AS UInt16) AS Date)]");
        assertThat(PlacementKeySql.bound("i", "Int32", KeyType.INT32, List.of(0xFFFF_FFFFL), "x"))
                .contains("[CAST('-1' AS Int32)]"); // the value the column stores
        assertThat(PlacementKeySql.bound("s", "String", KeyType.STRING, List.of("a'\\é", new byte[] {0, -1}), "x"))
                .contains("[unhex('61275cc3a9'), unhex('00ff')]");
    }

    @Test
    void failModeThrowsWithTheReportsMessage() {
        PlacementReport bad = report(498, List.of());
        assertThatThrownBy(() -> DistributedPlacementCheck.enforce(bad, PlacementCheckMode.FAIL))
                .isInstanceOf(ShardPlacementException.class)
                .hasMessageContaining("does not match Distributed table shop.orders")
                .hasMessageContaining("sharding key cityHash64(order_id) over order_id UInt64")
                .hasMessageContaining("pipeline KeyHashRouter over 2 shards")
                .hasMessageContaining("498 of 1000 sample keys on another shard")
                .hasMessageContaining("key 42 -> pipeline shard 1 (shard_num 2), server shard 0 (shard_num 1, slot 0)")
                .satisfies(
                        e -> assertThat(((ShardPlacementException) e).report()).isSameAs(bad));
    }

    @Test
    void warnAndOffModesReturnTheReport() {
        PlacementReport bad = report(1, List.of());
        assertThat(DistributedPlacementCheck.enforce(bad, PlacementCheckMode.WARN))
                .isSameAs(bad);
        assertThat(DistributedPlacementCheck.enforce(bad, PlacementCheckMode.OFF))
                .isSameAs(bad);
        PlacementReport good = report(0, List.of());
        assertThat(good.matches()).isTrue();
        assertThat(DistributedPlacementCheck.enforce(good, PlacementCheckMode.FAIL))
                .isSameAs(good);
    }

    @Test
    void aStructuralProblemAloneIsAMismatch() {
        PlacementReport r = report(0, List.of()).toBuilder()
                .addProblems(List.of("sink shard 0 is shard_num 2"))
                .build();
        assertThat(r.matches()).isFalse();
        assertThat(r.message()).contains("sink shard 0 is shard_num 2");
    }

    @Test
    void shardOrderProblemsNameTheShardThatIsElsewhere() {
        URI a = URI.create("http://a:8123");
        URI b = URI.create("http://b:8123");
        ClickHouseTransport transport = new ClickHouseTransport() {
            @Override
            public long insert(URI replica, dev.etl.clickhouse.ClickHouseInsert insert, byte[] body, int length) {
                throw new UnsupportedOperationException();
            }

            @Override
            public String query(URI replica, String sql) {
                return replica.equals(a) ? "2\n" : "1\n"; // swapped
            }
        };
        List<String> problems =
                DistributedPlacementCheck.shardOrderProblems(transport, List.of(List.of(a), List.of(b)), "etl");
        assertThat(problems).hasSize(2);
        assertThat(problems.get(0)).contains("sink shard 0 (replica http://a:8123) is shard_num 2 of cluster etl");
        ClickHouseTransport unknown = DistributedTableTest.answering(Map.of());
        assertThat(DistributedPlacementCheck.shardOrderProblems(unknown, List.of(List.of(a)), "etl"))
                .isEmpty();
    }

    @Test
    void keySamplesAreSeededAndValidForTheirType() {
        assertThat(KeySample.integers(KeyType.INT8, 500, 1))
                .isEqualTo(KeySample.integers(KeyType.INT8, 500, 1))
                .allMatch(k -> k >= -128 && k <= 127)
                .contains(-128L, 127L, -1L, 0L);
        assertThat(KeySample.integers(KeyType.UINT16, 500, 1))
                .allMatch(k -> k >= 0 && k <= 65535)
                .contains(65535L);
        assertThat(KeySample.strings(300, 7))
                .isEqualTo(KeySample.strings(300, 7))
                .startsWith("")
                .anyMatch(s -> s.length() > 64)
                .anyMatch(s -> s.codePoints().anyMatch(Character::isSupplementaryCodePoint));
    }
}
