package dev.etl.it.clickhouse;

import static org.assertj.core.api.Assertions.assertThat;

import dev.etl.clickhouse.ClickHouseSink;
import dev.etl.clickhouse.ClickHouseSinkConfig;
import dev.etl.clickhouse.ColumnLayouts;
import dev.etl.clickhouse.InsertFormat;
import dev.etl.clickhouse.RowBinaryEncoder;
import dev.etl.clickhouse.ValidationMode;
import dev.etl.sink.RowBuffer;
import dev.etl.sink.ShardWriter;
import dev.etl.test.infra.ClickHouseHttp;
import dev.etl.test.infra.ClickHouseTestDatabase;
import dev.etl.test.infra.InfraEndpoints;
import dev.etl.test.infra.InfraServer;
import dev.etl.test.infra.LocalInfra;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.util.Locale;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * Column layouts against the local ClickHouse 18.16 cluster (issue 33 item 3): a sink defined with
 * {@link ColumnLayouts} inserts each batch with the columns of its layout. The table has a column with a
 * {@code DEFAULT} ({@code note}); layout 0 leaves it out (the server fills in its default), layout 1,
 * registered while the writer runs, names it; a batch of layout 0 encoded before the switch and written
 * after it still lands with the old list; a retried layout-1 batch is dropped as a duplicate.
 */
@LocalInfra(InfraServer.CLICKHOUSE)
class ClickHouseColumnLayoutsIT {
    record Line(long id, String sku, String note) {}

    static final RowBinaryEncoder<Line> LAYOUT_0 = RowBinaryEncoder.<Line>builder()
            .uint64("id", Line::id)
            .string("sku", Line::sku)
            .build();

    /** Layout 1: one more column, last (as auto-evolve adds it). */
    static final RowBinaryEncoder<Line> LAYOUT_1 = RowBinaryEncoder.<Line>builder()
            .uint64("id", Line::id)
            .string("sku", Line::sku)
            .string("note", Line::note)
            .build();

    private static ClickHouseTestDatabase db;
    private static InfraEndpoints infra;

    @BeforeAll
    static void createTables(ClickHouseTestDatabase database) {
        db = database;
        infra = database.endpoints();
        for (InsertFormat format : InsertFormat.values()) {
            ItTables.replicated(db, table(format), "(id UInt64, sku String, note String DEFAULT 'none')");
        }
    }

    private static String table(InsertFormat format) {
        return "layouts_" + format.name().toLowerCase(Locale.ROOT);
    }

    private static RowBuffer rows(RowBinaryEncoder<Line> encoder, long fromId, int count) {
        RowBuffer out = new RowBuffer(1024);
        for (long id = fromId; id < fromId + count; id++) {
            encoder.encode(new Line(id, "sku-" + id, "note-" + id), out);
        }
        return out;
    }

    private static String query(int replica, String sql) {
        return ClickHouseHttp.query(infra.clickhouseShard(1).replicaUrl(replica), sql);
    }

    @ParameterizedTest
    @EnumSource(InsertFormat.class)
    void batchesOfEachLayoutLandWithTheirOwnColumnList(InsertFormat format) {
        String table = table(format);
        ColumnLayouts layouts = ColumnLayouts.of(LAYOUT_0.columns());
        ClickHouseSinkConfig config = ItTables.config(db, table)
                .validation(ValidationMode.FULL)
                .format(format)
                .build();
        try (ShardWriter shard0 = ClickHouseSink.definition("orders", "it", config, layouts, new SimpleMeterRegistry())
                .writers()
                .apply(0)) {
            shard0.write(ItBatch.of(0, 0, rows(LAYOUT_0, 1, 10), 10));
            ItBatch encodedBeforeTheSwitch = ItBatch.of(0, 1, rows(LAYOUT_0, 11, 5), 5);

            int one = layouts.register(LAYOUT_1.columns()); // the table already has the column
            assertThat(one).isEqualTo(1);
            ItBatch evolved = ItBatch.of(0, 2, rows(LAYOUT_1, 100, 10), 10).inLayout(one);
            shard0.write(evolved);
            shard0.write(encodedBeforeTheSwitch); // layout 0, written after the switch
            shard0.write(evolved.retry()); // the same bytes and statement: a duplicate, dropped
        }
        ItTables.syncReplicas(db, table);
        for (int replica = 1; replica <= 2; replica++) {
            assertThat(query(
                            replica,
                            "SELECT count(), countIf(note = 'none'), countIf(note = concat('note-', toString(id))), "
                                    + "min(id), max(id) FROM " + db.table(table)))
                    .as("replica %d", replica)
                    .isEqualTo("25\t15\t10\t1\t109\n");
            assertThat(query(
                            replica,
                            "SELECT sku, note FROM " + db.table(table) + " WHERE id IN (3, 12, 104) ORDER BY id"))
                    .isEqualTo("sku-3\tnone\nsku-12\tnone\nsku-104\tnote-104\n");
        }
    }
}
