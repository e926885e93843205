package dev.etl.it.clickhouse;

import static org.assertj.core.api.Assertions.assertThat;

import dev.etl.avro.clickhouse.AvroRowMapping;
import dev.etl.avro.clickhouse.AvroRowTranscoder;
import dev.etl.clickhouse.ClickHouseSink;
import dev.etl.clickhouse.ClickHouseSinkConfig;
import dev.etl.clickhouse.ValidationMode;
import dev.etl.sink.RowBuffer;
import dev.etl.sink.ShardWriter;
import dev.etl.test.infra.ClickHouseHttp;
import dev.etl.test.infra.ClickHouseTestDatabase;
import dev.etl.test.infra.InfraServer;
import dev.etl.test.infra.LocalInfra;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.StringJoiner;
import org.apache.avro.Schema;
import org.apache.avro.generic.GenericData;
import org.apache.avro.generic.GenericDatumWriter;
import org.apache.avro.generic.GenericRecord;
import org.apache.avro.io.BinaryEncoder;
import org.apache.avro.io.EncoderFactory;
import org.junit.jupiter.api.Test;

/**
 * The transcoder's computed columns against the local ClickHouse 18.16: orders with {@code n_lines UInt32}
 * ({@code length(lines)}), {@code total_cents Int64} ({@code sum(lines.qty * lines.unit_cents)}) and a
 * {@code lines Nested(sku String, qty UInt32)} column filled by array projection ({@code lines.sku},
 * {@code lines.qty}); the mapping's columns pass the sink's full validation against {@code system.columns} (where
 * the Nested column is {@code lines.sku Array(String)}, {@code lines.qty Array(UInt32)}), and the rows read back
 * as the orders say.
 */
@LocalInfra(InfraServer.CLICKHOUSE)
class ComputedColumnsTranscoderIT {
    static final Schema ORDER = new Schema.Parser().parse("""
            {"type": "record", "name": "Order", "namespace": "it", "fields": [
              {"name": "id", "type": "long"},
              {"name": "lines", "type": {"type": "array", "items": {"type": "record", "name": "Line",
                  "fields": [
                    {"name": "sku", "type": "string"},
                    {"name": "qty", "type": "int"},
                    {"name": "unit_cents", "type": "long"}]}}}
            ]}""");

    @Test
    void ordersWithLineCountTotalAndNestedLinesReadBackAsTheOrdersSay(ClickHouseTestDatabase db) throws IOException {
        String replica = db.endpoints().clickhouseShard(1).replicaUrl(1);
        new ClickHouseHttp(Duration.ofSeconds(2), Duration.ofMinutes(1))
                .execute(
                        replica,
                        "CREATE TABLE " + db.table("orders") + " (id UInt64, n_lines UInt32, total_cents Int64, "
                                + "lines Nested(sku String, qty UInt32)) ENGINE = MergeTree ORDER BY id");
        AvroRowMapping mapping = AvroRowMapping.builder(ORDER)
                .column("id", "UInt64")
                .column("n_lines", "UInt32", "length(lines)")
                .column("total_cents", "Int64", "sum(lines.qty * lines.unit_cents)")
                .column("lines.sku", "Array(String)", "lines.sku")
                .column("lines.qty", "Array(UInt32)", "lines.qty")
                .build();
        AvroRowTranscoder transcoder = AvroRowTranscoder.raw(mapping, ORDER).build();

        Random random = new Random(33);
        RowBuffer rows = new RowBuffer(1 << 16);
        StringBuilder expected = new StringBuilder();
        Schema lineSchema = ORDER.getField("lines").schema().getElementType();
        int count = 500;
        for (long id = 1; id <= count; id++) {
            GenericRecord order = new GenericData.Record(ORDER);
            order.put("id", id);
            List<GenericRecord> lines = new ArrayList<>();
            long total = 0;
            StringJoiner skus = new StringJoiner(",", "[", "]");
            StringJoiner qtys = new StringJoiner(",", "[", "]");
            for (int l = random.nextInt(5); l > 0; l--) {
                GenericRecord line = new GenericData.Record(lineSchema);
                String sku = "sku-" + random.nextInt(1000);
                int qty = random.nextInt(1, 50);
                long unit = random.nextInt(1, 1_000_000);
                line.put("sku", sku);
                line.put("qty", qty);
                line.put("unit_cents", unit);
                lines.add(line);
                total += qty * unit;
                skus.add("'" + sku + "'");
                qtys.add(Integer.toString(qty));
            }
            order.put("lines", lines);
            byte[] body = avro(order);
            assertThat(transcoder.transcode(body, 0, body.length, rows)).isEqualTo(1);
            expected.append(id)
                    .append('\t')
                    .append(lines.size())
                    .append('\t')
                    .append(total)
                    .append('\t')
                    .append(skus)
                    .append('\t')
                    .append(qtys)
                    .append('\n');
        }
        ClickHouseSinkConfig config = ClickHouseSinkConfig.builder()
                .table(db.name(), "orders")
                .shard(replica)
                .validation(ValidationMode.FULL)
                .socketTimeout(Duration.ofSeconds(30))
                .build();
        try (ShardWriter writer = ClickHouseSink.definition(
                        "orders", "it", config, mapping.columns(), new SimpleMeterRegistry())
                .writers()
                .apply(0)) {
            writer.write(ItBatch.of(0, 1, rows, count));
        }
        String stored = ClickHouseHttp.query(
                replica,
                "SELECT id, n_lines, total_cents, lines.sku, lines.qty FROM " + db.table("orders")
                        + " ORDER BY id FORMAT TabSeparated");
        assertThat(stored).isEqualTo(expected.toString());
    }

    private static byte[] avro(GenericRecord record) throws IOException {
        ByteArrayOutputStream bytes = new ByteArrayOutputStream();
        BinaryEncoder encoder = EncoderFactory.get().directBinaryEncoder(bytes, null);
        new GenericDatumWriter<GenericRecord>(ORDER).write(record, encoder);
        encoder.flush();
        return bytes.toByteArray();
    }
}
