package dev.etl.clickhouse;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.etl.clickhouse.sharding.DistributedPlacement;
import dev.etl.clickhouse.sharding.KeyType;
import dev.etl.clickhouse.sharding.PlacementCheck;
import dev.etl.clickhouse.sharding.PlacementCheckMode;
import dev.etl.clickhouse.sharding.ShardPlacementException;
import dev.etl.clickhouse.sharding.ShardWeights;
import dev.etl.clickhouse.sharding.ShardingKey;
import dev.etl.sink.ShardWriter;
import dev.etl.sink.SinkDefinition;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.util.ArrayList;
import java.util.List;
import java.util.function.Function;
import org.junit.jupiter.api.Test;

class ClickHouseSinkTest {
    private static final List<ClickHouseColumn> COLUMNS = List.of(new ClickHouseColumn("id", "UInt64"));

    private static FakeTransport server(String columnsTsv) {
        FakeTransport t = new FakeTransport();
        t.queries = sql -> {
            if (sql.contains("version()")) {
                return "18.16.1\n";
            }
            if (sql.contains("system.settings") || sql.contains("merge_tree_settings")) {
                return "";
            }
            if (sql.contains("system.tables")) {
                return "ReplicatedMergeTree\tReplicatedMergeTree ORDER BY id\n";
            }
            return columnsTsv;
        };
        return t;
    }

    private static ClickHouseSinkConfig config() {
        return ClickHouseSinkConfig.builder()
                .table("db", "t")
                .shard("http://127.0.0.1:18123")
                .shard("http://127.0.0.1:18125")
                .build();
    }

    @Test
    void anOwnedTransportIsClosedAfterTheLastWriterAndSurvivesARestart() {
        FakeTransport t = server("id\tUInt64\t\n");
        SinkDefinition sink =
                ClickHouseSink.definition("s", "p", config(), COLUMNS, new SimpleMeterRegistry(), t, true);
        ShardWriter w0 = sink.writers().apply(0);
        ShardWriter w1 = sink.writers().apply(1);
        w0.close();
        w0.close(); // idempotent: does not count twice
        assertThat(t.closes).hasValue(0);
        w1.close();
        assertThat(t.closes).hasValue(1);
        // writers created again (a restarted pipeline) reuse the transport, which rebuilds its clients
        sink.writers().apply(0).close();
        assertThat(t.closes).hasValue(2);
    }

    @Test
    void aNativeSinkRefusesAColumnItCannotSendWhenItIsDefined() {
        FakeTransport t = server("id\tUInt64\t\n");
        ClickHouseSinkConfig nativeConfig = ClickHouseSinkConfig.builder()
                .table("db", "t")
                .shard("http://127.0.0.1:18123")
                .format(InsertFormat.NATIVE)
                .build();
        List<ClickHouseColumn> columns = List.of(
                new ClickHouseColumn("id", "UInt64"), new ClickHouseColumn("state", "AggregateFunction(uniq, UInt64)"));
        assertThatThrownBy(
                        () -> ClickHouseSink.definition("s", "p", nativeConfig, columns, new SimpleMeterRegistry(), t))
                .isInstanceOf(UnsupportedNativeTypeException.class)
                .hasMessageStartingWith("column 'state' (AggregateFunction(uniq, UInt64)) cannot be sent in the Native "
                        + "insert format: type 'AggregateFunction(uniq, UInt64)' is not supported");
        assertThatThrownBy(() ->
                        ClickHouseSink.definition("s", "p", nativeConfig, List.of(), new SimpleMeterRegistry(), t))
                .isInstanceOf(UnsupportedNativeTypeException.class)
                .hasMessageContaining("needs the sink's columns");
        assertThat(t.inserts).isEmpty();
        ShardWriter w = ClickHouseSink.definition("s", "p", nativeConfig, COLUMNS, new SimpleMeterRegistry(), t)
                .writers()
                .apply(0);
        w.write(new TestBatch("s", 0, 1, new byte[8], 8, 1, "tok", 1));
        assertThat(t.inserts.get(0).insert().statement()).endsWith("FORMAT Native");
        assertThat(t.inserts.get(0).length()).isEqualTo(2 + 10 + 8); // counts, "id" "UInt64", one UInt64
    }

    @Test
    void aShardsWritersShareOneValidationWhileAnyIsOpen() {
        FakeTransport t = server("id\tUInt64\t\n");
        java.util.concurrent.atomic.AtomicInteger columnReads = new java.util.concurrent.atomic.AtomicInteger();
        Function<String, String> answers = t.queries;
        t.queries = sql -> {
            if (sql.contains("system.columns")) {
                columnReads.incrementAndGet();
            }
            return answers.apply(sql);
        };
        ClickHouseSinkConfig three = config().toBuilder().writersPerShard(3).build();
        SinkDefinition sink = ClickHouseSink.definition("s", "p", three, COLUMNS, new SimpleMeterRegistry(), t, true);
        assertThat(sink.writersPerShard()).isEqualTo(3);
        List<ShardWriter> writers = new ArrayList<>();
        for (int i = 0; i < 3; i++) {
            writers.add(sink.writers().apply(0));
        }
        int once = columnReads.get();
        assertThat(once).as("shard 0 validated (each replica's columns read)").isPositive();
        writers.add(sink.writers().apply(1));
        int twoShards = columnReads.get();
        assertThat(twoShards).as("shard 1 validated too").isGreaterThan(once);
        writers.forEach(ShardWriter::close);
        sink.writers().apply(0).close();
        assertThat(columnReads.get())
                .as("after every writer closed, the next run validates again")
                .isEqualTo(twoShards + once);
    }

    @Test
    void writersPerShardIsBetweenOneAndSixtyFour() {
        assertThat(config().writersPerShard()).isEqualTo(ClickHouseSinkConfig.DEFAULT_WRITERS_PER_SHARD);
        assertThatThrownBy(() -> config().toBuilder().writersPerShard(0).build())
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessage("writers-per-shard must be between 1 and 64, got 0");
        assertThatThrownBy(() -> config().toBuilder().writersPerShard(65).build())
                .isInstanceOf(IllegalArgumentException.class);
    }

    @Test
    void aFailedValidationDoesNotLeakAWriterCount() {
        FakeTransport t = server("id\tInt64\t\n");
        SinkDefinition sink =
                ClickHouseSink.definition("s", "p", config(), COLUMNS, new SimpleMeterRegistry(), t, true);
        assertThatThrownBy(() -> sink.writers().apply(0)).isInstanceOf(ClickHouseSchemaException.class);
        assertThat(t.closes).hasValue(1);
    }

    @Test
    void aTransportPassedInIsTheCallersToClose() {
        FakeTransport t = server("id\tUInt64\t\n");
        SinkDefinition sink = ClickHouseSink.definition("s", "p", config(), COLUMNS, new SimpleMeterRegistry(), t);
        sink.writers().apply(0).close();
        assertThat(t.closes).hasValue(0);
    }

    private static final DistributedPlacement PLACEMENT =
            new DistributedPlacement(ShardingKey.cityHash64("id", KeyType.UINT64), ShardWeights.uniform(2));

    private static ClickHouseSinkConfig checked(PlacementCheckMode mode) {
        return ClickHouseSinkConfig.builder()
                .table("db", "t")
                .shard("http://127.0.0.1:18123")
                .shard("http://127.0.0.1:18125")
                .placementCheck(PlacementCheck.of("db", "dist", PLACEMENT, mode))
                .build();
    }

    /** Records the statements that mention the Distributed table. */
    private static List<String> recordDistributedQueries(FakeTransport t) {
        List<String> seen = new ArrayList<>();
        Function<String, String> answers = t.queries;
        t.queries = sql -> {
            if (sql.contains("'dist'")) {
                seen.add(sql);
            }
            return answers.apply(sql);
        };
        return seen;
    }

    @Test
    void underFailAPlacementThatCannotBeCheckedFailsTheFirstWriterBeforeValidation() {
        FakeTransport t = server("id\tUInt64\t\n"); // "dist" is answered as a ReplicatedMergeTree: not Distributed
        SinkDefinition sink = ClickHouseSink.definition(
                "s", "p", checked(PlacementCheckMode.FAIL), COLUMNS, new SimpleMeterRegistry(), t, true);
        assertThatThrownBy(() -> sink.writers().apply(0))
                .isInstanceOf(ShardPlacementException.class)
                .hasMessageContaining("placement could not be checked")
                .hasMessageContaining("db.dist on http://127.0.0.1:18123 is ReplicatedMergeTree, not Distributed");
        assertThat(t.closes).hasValue(1);
    }

    @Test
    void underWarnTheSinkStartsAndTheCheckRunsOncePerDefinition() {
        FakeTransport t = server("id\tUInt64\t\n");
        List<String> seen = recordDistributedQueries(t);
        SinkDefinition sink = ClickHouseSink.definition(
                "s", "p", checked(PlacementCheckMode.WARN), COLUMNS, new SimpleMeterRegistry(), t);
        sink.writers().apply(0).close();
        sink.writers().apply(1).close();
        assertThat(seen).hasSize(1);
    }

    @Test
    void underOffNothingIsAsked() {
        FakeTransport t = server("id\tUInt64\t\n");
        List<String> seen = recordDistributedQueries(t);
        SinkDefinition sink = ClickHouseSink.definition(
                "s", "p", checked(PlacementCheckMode.OFF), COLUMNS, new SimpleMeterRegistry(), t);
        sink.writers().apply(0).close();
        assertThat(seen).isEmpty();
        assertThat(checked(PlacementCheckMode.OFF).toString()).contains("placementCheck=PlacementCheck[database=db");
        assertThat(config().placementCheck()).isNull();
    }
}
