package dev.etl.it.clickhouse;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowableOfType;

import dev.etl.clickhouse.ClickHouseSink;
import dev.etl.clickhouse.ClickHouseSinkConfig;
import dev.etl.clickhouse.InsertFormat;
import dev.etl.clickhouse.RowBinaryEncoder;
import dev.etl.clickhouse.ValidationMode;
import dev.etl.error.SinkWriteException;
import dev.etl.sink.RowBuffer;
import dev.etl.sink.ShardWriter;
import dev.etl.sink.SinkDefinition;
import dev.etl.test.infra.ClickHouseHttp;
import dev.etl.test.infra.ClickHouseTestDatabase;
import dev.etl.test.infra.InfraEndpoints;
import dev.etl.test.infra.InfraServer;
import dev.etl.test.infra.LocalInfra;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.time.Duration;
import java.util.Arrays;
import java.util.stream.IntStream;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * Rows the server always refuses (issue 30 item 5), against the local ClickHouse 18.16 cluster: a
 * ReplicatedMergeTree table with {@code chk UInt8 MATERIALIZED throwIf(amount < 0)} refuses a whole insert
 * (HTTP 500, code 395) when one of its rows has a negative amount, and before the isolation that code was
 * retried forever. The shard writer writes every good row of the batch exactly once, names exactly the bad
 * rows, and a second write of the same batch (a replay after a crash, by a new writer) stores nothing new:
 * its pieces are the same bytes, which 18.16's block checksums drop.
 */
@LocalInfra(InfraServer.CLICKHOUSE)
class ClickHouseRejectedRowsIT {

    record Order(long id, long amount, String note) {}

    static final RowBinaryEncoder<Order> ENCODER = RowBinaryEncoder.<Order>builder()
            .uint64("id", Order::id)
            .int64("amount", Order::amount)
            .string("note", Order::note)
            .build();

    private static final int ROWS = 500;
    private static final int[] BAD = {7, 123, 124, 400};

    private static ClickHouseTestDatabase db;
    private static InfraEndpoints infra;

    @BeforeAll
    static void createTables(ClickHouseTestDatabase database) {
        db = database;
        infra = database.endpoints();
        for (String table : new String[] {"checked_rb", "checked_native"}) {
            db.execute("CREATE TABLE " + db.table(table) + " ON CLUSTER " + db.cluster()
                    + " (id UInt64, amount Int64, note String, chk UInt8 MATERIALIZED throwIf(amount < 0))"
                    + " ENGINE = ReplicatedMergeTree('/clickhouse/tables/{shard}/" + db.name() + "/" + table
                    + "', '{replica}') ORDER BY id");
        }
    }

    private static boolean isBad(int row) {
        return Arrays.stream(BAD).anyMatch(b -> b == row);
    }

    private static SinkDefinition sink(String table, InsertFormat format) {
        ClickHouseSinkConfig.Builder b = ClickHouseSinkConfig.builder()
                .table(db.name(), table)
                .format(format)
                .validation(ValidationMode.FULL) // MATERIALIZED columns are not part of an insert
                .breaker(2, Duration.ofSeconds(30))
                .socketTimeout(Duration.ofSeconds(30));
        for (InfraEndpoints.ClickHouseShard shard : infra.clickhouseShards()) {
            b.shard(shard.replicaUrls().toArray(String[]::new));
        }
        return ClickHouseSink.definition("orders", "it", b.build(), ENCODER, new SimpleMeterRegistry());
    }

    private static ItBatch batch() {
        RowBuffer out = new RowBuffer(1024);
        for (int i = 0; i < ROWS; i++) {
            ENCODER.encode(new Order(1 + i, isBad(i) ? -i : i * 10L, "order " + i), out);
        }
        return ItBatch.of(0, 42, out, ROWS);
    }

    /** One write of the batch by a new writer (as a process after a restart would); returns the refusal. */
    private static SinkWriteException write(String table, InsertFormat format) {
        try (ShardWriter writer = sink(table, format).writers().apply(0)) {
            return catchThrowableOfType(SinkWriteException.class, () -> writer.write(batch()));
        }
    }

    private static String query(int replica, String sql) {
        return ClickHouseHttp.query(infra.clickhouseShard(1).replicaUrl(replica), sql);
    }

    private static void assertEveryGoodRowStoredOnce(String table) {
        for (String url : infra.clickhouseShard(1).replicaUrls()) {
            ClickHouseHttp.query(url, "SYSTEM SYNC REPLICA " + db.table(table));
        }
        long goodIds = IntStream.range(0, ROWS)
                .filter(i -> !isBad(i))
                .mapToLong(i -> 1 + i)
                .sum();
        for (int replica = 1; replica <= 2; replica++) {
            assertThat(query(
                            replica,
                            "SELECT count(), uniqExact(id), sum(id), countIf(amount < 0) FROM " + db.table(table)
                                    + " FORMAT TabSeparated"))
                    .as("replica %d", replica)
                    .isEqualTo((ROWS - BAD.length) + "\t" + (ROWS - BAD.length) + "\t" + goodIds + "\t0\n");
        }
    }

    @Test
    void everyGoodRowIsWrittenOnceTheBadOnesAreNamedAndAReplayStoresNothingNew() {
        for (int run = 1; run <= 2; run++) {
            SinkWriteException e = write("checked_rb", InsertFormat.ROW_BINARY);
            assertThat(e).as("run %d", run).isNotNull();
            assertThat(e.isRejection()).as("run %d: %s", run, e.getMessage()).isTrue();
            assertThat(e.isTransient()).isFalse();
            assertThat(e.rejectedRows()).containsExactly(BAD);
            assertThat(e)
                    .hasMessageContaining("refused 4 of the 500 rows of batch 42")
                    .hasMessageContaining("Code: 395")
                    .hasMessageContaining("throwIf");
            assertEveryGoodRowStoredOnce("checked_rb");
        }
    }

    @Test
    void nativePiecesToo() {
        for (int run = 1; run <= 2; run++) {
            SinkWriteException e = write("checked_native", InsertFormat.NATIVE);
            assertThat(e).as("run %d", run).isNotNull();
            assertThat(e.rejectedRows()).as("run %d: %s", run, e.getMessage()).containsExactly(BAD);
            assertEveryGoodRowStoredOnce("checked_native");
        }
    }
}
