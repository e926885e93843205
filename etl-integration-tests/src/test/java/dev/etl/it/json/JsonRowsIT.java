package dev.etl.it.json;

import static org.assertj.core.api.Assertions.assertThat;

import dev.etl.clickhouse.ClickHouseColumn;
import dev.etl.clickhouse.ClickHouseSink;
import dev.etl.clickhouse.ClickHouseSinkConfig;
import dev.etl.clickhouse.ClickHouseTableSchema;
import dev.etl.json.clickhouse.JsonRowTranscoder;
import dev.etl.sink.RowBuffer;
import dev.etl.sink.SealedBatch;
import dev.etl.sink.ShardWriter;
import dev.etl.sink.SinkDefinition;
import dev.etl.test.infra.ClickHouseHttp;
import dev.etl.test.infra.ClickHouseTestDatabase;
import dev.etl.test.infra.InfraEndpoints;
import dev.etl.test.infra.InfraServer;
import dev.etl.test.infra.LocalInfra;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.Set;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * JSON objects written by {@link JsonRowTranscoder} into the local ClickHouse 18.16 cluster and read back: the
 * server takes the rows (its startup check accepts the transcoder's columns) and stores what the JSON said.
 * Types of 18.16 only (no DateTime64, Map or Bool there; those are checked byte for byte in the module's tests).
 */
@LocalInfra(InfraServer.CLICKHOUSE)
class JsonRowsIT {
    private static final String COLUMNS = "(id UInt64, customer String, status Enum8('new' = 1, 'paid' = 2), "
            + "amount Decimal(18, 2), ts DateTime, day Date, tags Array(String), coupon Nullable(String), "
            + "score Float64, trace UUID, code FixedString(3), small Int8, big UInt64)";

    private static final ClickHouseTableSchema TABLE = ClickHouseTableSchema.of(
            List.of(
                    new ClickHouseColumn("id", "UInt64"),
                    new ClickHouseColumn("customer", "String"),
                    new ClickHouseColumn("status", "Enum8('new' = 1, 'paid' = 2)"),
                    new ClickHouseColumn("amount", "Decimal(18, 2)"),
                    new ClickHouseColumn("ts", "DateTime"),
                    new ClickHouseColumn("day", "Date"),
                    new ClickHouseColumn("tags", "Array(String)"),
                    new ClickHouseColumn("coupon", "Nullable(String)"),
                    new ClickHouseColumn("score", "Float64"),
                    new ClickHouseColumn("trace", "UUID"),
                    new ClickHouseColumn("code", "FixedString(3)"),
                    new ClickHouseColumn("small", "Int8"),
                    new ClickHouseColumn("big", "UInt64")),
            Set.of());

    private static final List<String> MESSAGES = List.of("""
            {"id": 1, "customer": {"name": "Ann \\"A\\" \\u00e9\\ud83d\\ude00", "tier": 1}, "status": "new",
             "amount": 12.5, "ts": "2024-05-01T12:30:00Z", "day": "2024-05-01", "tags": ["a", "b\\tc"],
             "score": 0.1, "trace": "123e4567-e89b-12d3-a456-426614174000", "code": "ab", "small": -128,
             "big": "18446744073709551615", "ignored": {"x": [1, 2, {"y": null}]}}""", """
            {"big": 0, "small": 127, "code": "xyz", "trace": "00000000-0000-0000-0000-000000000001",
             "score": -1.5e-3, "coupon": "SPRING", "tags": [], "day": 19000, "ts": 1714566600,
             "amount": "-0.07", "status": "paid", "customer": {"name": "Bob"}, "id": 2}""");

    private static ClickHouseTestDatabase db;
    private static InfraEndpoints infra;

    @BeforeAll
    static void createTable(ClickHouseTestDatabase database) {
        db = database;
        infra = database.endpoints();
        db.execute("CREATE TABLE " + db.table("json_orders") + " ON CLUSTER " + db.cluster() + " " + COLUMNS
                + " ENGINE = ReplicatedMergeTree('/clickhouse/tables/{shard}/" + db.name()
                + "/json_orders', '{replica}') ORDER BY id");
    }

    @Test
    void jsonRowsLandAndReadBackAsTheMessagesSaid() {
        JsonRowTranscoder.Builder orders = JsonRowTranscoder.builder(TABLE).field("customer", "customer.name");
        ClickHouseSinkConfig.Builder config =
                ClickHouseSinkConfig.builder().table(db.name(), "json_orders").socketTimeout(Duration.ofSeconds(30));
        for (InfraEndpoints.ClickHouseShard shard : infra.clickhouseShards()) {
            config.shard(shard.replicaUrls().toArray(String[]::new));
        }
        SinkDefinition sink =
                ClickHouseSink.definition("json", "it", config.build(), orders.columns(), new SimpleMeterRegistry());
        JsonRowTranscoder transcoder = orders.build();
        RowBuffer rows = new RowBuffer(1024);
        for (String message : MESSAGES) {
            byte[] bytes = message.getBytes(StandardCharsets.UTF_8);
            transcoder.transcode(bytes, 0, bytes.length, rows);
        }
        try (ShardWriter shard0 = sink.writers().apply(0)) {
            shard0.write(new Batch(rows.toByteArray(), MESSAGES.size()));
        }
        for (String url : infra.clickhouseShard(1).replicaUrls()) {
            ClickHouseHttp.query(url, "SYSTEM SYNC REPLICA " + db.table("json_orders"));
        }
        for (int replica = 1; replica <= 2; replica++) {
            assertThat(ClickHouseHttp.query(
                            infra.clickhouseShard(1).replicaUrl(replica),
                            "SELECT id, customer, status, amount, toUnixTimestamp(ts), day, tags, coupon, score, trace,"
                                    + " code, small, big FROM " + db.table("json_orders")
                                    + " ORDER BY id FORMAT TabSeparated"))
                    .isEqualTo("1\tAnn \"A\" é😀\tnew\t12.50\t1714566600\t2024-05-01\t['a','b\\tc']\t\\N\t0.1\t"
                            + "123e4567-e89b-12d3-a456-426614174000\tab\\0\t-128\t18446744073709551615\n"
                            + "2\tBob\tpaid\t-0.07\t1714566600\t2022-01-08\t[]\tSPRING\t-0.0015\t"
                            + "00000000-0000-0000-0000-000000000001\txyz\t127\t0\n");
        }
    }

    /** One sealed batch of the rows (the engine's shard worker seals them in a pipeline). */
    private record Batch(byte[] bytes, int rowCount) implements SealedBatch {
        @Override
        public String sinkName() {
            return "json";
        }

        @Override
        public int shard() {
            return 0;
        }

        @Override
        public long sequence() {
            return 0;
        }

        @Override
        public int byteCount() {
            return bytes.length;
        }

        @Override
        public String dedupToken() {
            return "json-rows-it-" + bytes.length;
        }

        @Override
        public int attempt() {
            return 1;
        }
    }
}
