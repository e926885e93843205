package dev.etl.it.clickhouse;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.etl.clickhouse.ClickHouseColumn;
import dev.etl.clickhouse.ClickHouseSchemaException;
import dev.etl.clickhouse.ClickHouseSink;
import dev.etl.clickhouse.ClickHouseSinkConfig;
import dev.etl.clickhouse.ClickHouseSinkConfig.Transport;
import dev.etl.clickhouse.ClickHouseTableSchema;
import dev.etl.clickhouse.InsertFormat;
import dev.etl.clickhouse.RowBinaryEncoder;
import dev.etl.clickhouse.ValidationMode;
import dev.etl.sink.RowBuffer;
import dev.etl.sink.ShardWriter;
import dev.etl.sink.SinkDefinition;
import dev.etl.test.infra.ClickHouseHttp;
import dev.etl.test.infra.ClickHouseTestDatabase;
import dev.etl.test.infra.InfraEndpoints;
import dev.etl.test.infra.InfraServer;
import dev.etl.test.infra.LocalInfra;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.util.List;
import java.util.Locale;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * Inserts that name their columns against the local ClickHouse 18.16 cluster (issue 33): an encoder whose
 * columns are in another order than the table's and that leaves out the columns with a {@code DEFAULT}
 * expression ({@code inserted_at DateTime DEFAULT now()}, {@code total Int64 DEFAULT qty * price}) writes
 * rows that read back with the server's computed values, with either transport and either format; a
 * table column left out without a {@code DEFAULT} fails startup naming it; a retried batch is dropped as
 * a duplicate where the defaults are deterministic, and what 18.16 does when one is {@code now()}.
 */
@LocalInfra(InfraServer.CLICKHOUSE)
class ClickHouseColumnListIT {

    record Line(long id, String sku, long qty, long price) {}

    /** The table's order is id, inserted_at, qty, price, total, sku: this one is neither. */
    static final RowBinaryEncoder<Line> ENCODER = RowBinaryEncoder.<Line>builder()
            .string("sku", Line::sku)
            .int64("price", Line::price)
            .uint64("id", Line::id)
            .int64("qty", Line::qty)
            .build();

    private static final String DEFAULTS = "(id UInt64, inserted_at DateTime DEFAULT now(), qty Int64, price Int64, "
            + "total Int64 DEFAULT qty * price, sku String)";

    private static ClickHouseTestDatabase db;
    private static InfraEndpoints infra;

    @BeforeAll
    static void createTables(ClickHouseTestDatabase database) {
        db = database;
        infra = database.endpoints();
        for (Transport transport : Transport.values()) {
            for (InsertFormat format : InsertFormat.values()) {
                replicated(table(transport, format), DEFAULTS);
            }
        }
        replicated("no_default", "(id UInt64, qty Int64, price Int64, note String, sku String, coupon String)");
        replicated("deterministic", "(id UInt64, qty Int64, price Int64, total Int64 DEFAULT qty * price, sku String)");
        replicated("now_default", DEFAULTS);
    }

    private static void replicated(String table, String columns) {
        ItTables.replicated(db, table, columns);
    }

    private static String table(Transport transport, InsertFormat format) {
        return "defaults_" + transport.name().toLowerCase(Locale.ROOT) + "_"
                + format.name().toLowerCase(Locale.ROOT);
    }

    private static ClickHouseSinkConfig.Builder config(String table) {
        return ItTables.config(db, table).validation(ValidationMode.FULL);
    }

    private static SinkDefinition sink(ClickHouseSinkConfig config) {
        return ClickHouseSink.definition("orders", "it", config, ENCODER, new SimpleMeterRegistry());
    }

    private static RowBuffer rows(long fromId, int count) {
        RowBuffer out = new RowBuffer(1024);
        for (long id = fromId; id < fromId + count; id++) {
            ENCODER.encode(new Line(id, "sku-" + id, id % 7 + 1, 100 * id + 5), out);
        }
        return out;
    }

    private static String query(int replica, String sql) {
        return ClickHouseHttp.query(infra.clickhouseShard(1).replicaUrl(replica), sql);
    }

    private static void syncReplicas(String table) {
        ItTables.syncReplicas(db, table);
    }

    static List<Arguments> transportsAndFormats() {
        return List.of(
                Arguments.of(Transport.HTTP, InsertFormat.ROW_BINARY),
                Arguments.of(Transport.CLIENT_V2, InsertFormat.ROW_BINARY),
                Arguments.of(Transport.HTTP, InsertFormat.NATIVE),
                Arguments.of(Transport.CLIENT_V2, InsertFormat.NATIVE));
    }

    @ParameterizedTest
    @MethodSource("transportsAndFormats")
    void columnsLeftOutGetTheServersDefaultsAndTheOthersLandByName(Transport transport, InsertFormat format) {
        String table = table(transport, format);
        long before = Long.parseLong(query(1, "SELECT toUnixTimestamp(now())").strip());
        try (ShardWriter shard0 = sink(config(table)
                        .transport(transport)
                        .format(format)
                        .build())
                .writers()
                .apply(0)) {
            shard0.write(ItBatch.of(0, 0, rows(1, 20), 20));
        }
        long after = Long.parseLong(query(1, "SELECT toUnixTimestamp(now())").strip());
        syncReplicas(table);
        for (int replica = 1; replica <= 2; replica++) {
            assertThat(query(
                            replica,
                            "SELECT count(), sum(total = qty * price), sum(total), min(sku), max(id) FROM "
                                    + db.table(table)))
                    .as("replica %d", replica)
                    .isEqualTo("20\t20\t" + expectedTotal(1, 20) + "\tsku-1\t20\n");
            assertThat(query(
                            replica,
                            "SELECT qty, price, total, sku FROM " + db.table(table)
                                    + " WHERE id = 3 FORMAT TabSeparated"))
                    .isEqualTo("4\t305\t1220\tsku-3\n");
            String[] insertedAt = query(
                            replica,
                            "SELECT min(toUnixTimestamp(inserted_at)), max(toUnixTimestamp(inserted_at)) FROM "
                                    + db.table(table))
                    .strip()
                    .split("\t");
            assertThat(Long.parseLong(insertedAt[0])).isBetween(before, after);
            assertThat(Long.parseLong(insertedAt[1])).isBetween(before, after);
        }
    }

    private static long expectedTotal(long fromId, int count) {
        long sum = 0;
        for (long id = fromId; id < fromId + count; id++) {
            sum += (id % 7 + 1) * (100 * id + 5);
        }
        return sum;
    }

    @Test
    void aTableColumnLeftOutWithoutADefaultFailsStartupNamingEveryOne() {
        assertThatThrownBy(() -> sink(config("no_default").build()).writers().apply(0))
                .isInstanceOf(ClickHouseSchemaException.class)
                .hasMessageContaining(db.table("no_default"))
                .hasMessageContaining("does not match the encoder (FULL validation)")
                .hasMessageContaining("the insert would store the type's zero value in [note, coupon]")
                .hasMessageContaining("map them, or give them a DEFAULT");
        assertThat(query(1, "SELECT count() FROM " + db.table("no_default"))).isEqualTo("0\n");
    }

    @Test
    void theTableSchemaIsReadFromTheServer() {
        ClickHouseTableSchema schema =
                ClickHouseTableSchema.read(config("deterministic").build());
        assertThat(schema.insertable())
                .containsExactly(
                        new ClickHouseColumn("id", "UInt64"),
                        new ClickHouseColumn("qty", "Int64"),
                        new ClickHouseColumn("price", "Int64"),
                        new ClickHouseColumn("total", "Int64"),
                        new ClickHouseColumn("sku", "String"));
        assertThat(schema.hasDefault("total")).isTrue();
        assertThat(schema.hasDefault("qty")).isFalse();
    }

    /**
     * 18.16 has no {@code insert_deduplication_token}: a Replicated table drops a block whose written part
     * has the checksums of one of its last blocks, computed after the server filled in the defaults. With
     * deterministic defaults, the same batch (same rows, same column list) written again is the same part.
     */
    @Test
    void aRetriedBatchIsDroppedWhenTheDefaultsAreDeterministic() throws InterruptedException {
        ItBatch batch = ItBatch.of(0, 0, rows(1, 10), 10);
        try (ShardWriter shard0 =
                sink(config("deterministic").build()).writers().apply(0)) {
            shard0.write(batch);
            Thread.sleep(1_100); // a second later: only a DEFAULT of now() would make it differ
            shard0.write(batch.retry());
            shard0.write(batch.retry().retry());
        }
        syncReplicas("deterministic");
        assertThat(query(1, "SELECT count(), sum(total) FROM " + db.table("deterministic")))
                .isEqualTo("10\t" + expectedTotal(1, 10) + "\n");
    }

    /**
     * What 18.16 does with {@code DEFAULT now()} (and any other default that differs from one insert to the
     * next): the retried batch's part differs in that column, so it is not a duplicate and is stored again.
     * The same holds for a {@code MATERIALIZED now()} column, with or without a column list. Servers with
     * {@code insert_deduplication_token} (the writer then sends the batch's token) drop it by the token.
     */
    @Test
    void onAServerWithoutDedupTokensARetryInAnotherSecondIsNotDroppedWhenADefaultIsNow() throws InterruptedException {
        ItBatch batch = ItBatch.of(0, 0, rows(1, 10), 10);
        try (ShardWriter shard0 = sink(config("now_default").build()).writers().apply(0)) {
            shard0.write(batch);
            Thread.sleep(1_100);
            shard0.write(batch.retry());
        }
        syncReplicas("now_default");
        assertThat(query(1, "SELECT count(), uniqExact(inserted_at) FROM " + db.table("now_default")))
                .isEqualTo("20\t2\n");
    }
}
