package dev.etl.it.avro;

import static org.assertj.core.api.Assertions.assertThat;

import dev.etl.avro.AvroWireFormat;
import dev.etl.avro.clickhouse.AvroRowMapping;
import dev.etl.avro.clickhouse.AvroRowTranscoder;
import dev.etl.sink.RowBuffer;
import dev.etl.test.infra.ClickHouseHttp;
import dev.etl.test.infra.ClickHouseTestDatabase;
import dev.etl.test.infra.InfraServer;
import dev.etl.test.infra.LocalInfra;
import java.io.IOException;
import java.net.URI;
import java.net.URLEncoder;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import org.apache.avro.Schema;
import org.apache.avro.generic.GenericData;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * The transcoder's composite types on our ClickHouse 18.16 servers: a record into {@code Tuple(...)} (18.16 has
 * unnamed tuples; a tuple in a tuple too), nested arrays {@code Array(Array(T))} and {@code LowCardinality} (18.16 needs
 * {@code allow_experimental_low_cardinality_type = 1} on the host that creates the table, not on inserts). The
 * server takes the transcoded rows, reads them back as the values written, and its own {@code FORMAT RowBinary}
 * of the table is byte for byte what the transcoder wrote. (Map, IPv4 in these forms, IPv6 and Variant are newer
 * than 18.16: byte-exact unit tests in etl-avro-clickhouse cover them. An {@code Array(Tuple(...))} column is not
 * tested here: 18.16 flattens it into parallel arrays when it creates the table, as it does {@code Nested}, so
 * RowBinary then takes one array per element.)
 */
@LocalInfra(InfraServer.CLICKHOUSE)
class AvroTranscoderTypesIT {
    private static final Schema SCHEMA = new Schema.Parser().parse("""
            {"type": "record", "name": "Shipment", "namespace": "dev.etl.it.avro", "fields": [
              {"name": "id", "type": "long"},
              {"name": "to", "type": {"type": "record", "name": "Address", "fields": [
                {"name": "zip", "type": "int"},
                {"name": "city", "type": "string"},
                {"name": "lines", "type": {"type": "array", "items": "string"}}
              ]}},
              {"name": "grid", "type": {"type": "array", "items": {"type": "array", "items": "int"}}},
              {"name": "parcel", "type": {"type": "record", "name": "Parcel", "fields": [
                {"name": "kg", "type": "double"},
                {"name": "tag", "type": {"type": "record", "name": "Tag", "fields": [
                  {"name": "code", "type": ["null", "string"]}, {"name": "kind", "type": "string"}]}}
              ]}},
              {"name": "carrier", "type": "string"},
              {"name": "note", "type": ["null", "string"]},
              {"name": "labels", "type": {"type": "array", "items": "string"}}
            ]}""");

    private static final String COLUMNS = "(id UInt64, to Tuple(UInt32, String, Array(String)), "
            + "grid Array(Array(Int32)), parcel Tuple(Float64, Tuple(Nullable(String), String)), "
            + "carrier LowCardinality(String), note LowCardinality(Nullable(String)), "
            + "labels Array(LowCardinality(String)))";

    private static final AvroRowMapping MAPPING = AvroRowMapping.builder(SCHEMA)
            .column("id", "UInt64")
            .column("to", "Tuple(UInt32, String, Array(String))")
            .column("grid", "Array(Array(Int32))")
            .column("parcel", "Tuple(Float64, Tuple(Nullable(String), String))")
            .column("carrier", "LowCardinality(String)")
            .column("note", "LowCardinality(Nullable(String))")
            .column("labels", "Array(LowCardinality(String))")
            .build();

    private static ClickHouseTestDatabase db;
    private static String replica;

    @BeforeAll
    static void createTable(ClickHouseTestDatabase database) {
        db = database;
        replica = database.endpoints().clickhouseShard(1).replicaUrl(1);
        new ClickHouseHttp(Duration.ofSeconds(2), Duration.ofMinutes(1))
                .execute(
                        replica,
                        "CREATE TABLE " + db.table("shipments") + " " + COLUMNS + " ENGINE = MergeTree ORDER BY id",
                        Map.of("allow_experimental_low_cardinality_type", "1"));
    }

    private static GenericData.Record shipment(long id) {
        GenericData.Record to = new GenericData.Record(SCHEMA.getField("to").schema());
        to.put("zip", (int) (10_000 + id));
        to.put("city", "Città " + id);
        to.put("lines", id % 2 == 0 ? List.of() : List.of("Via Roma " + id, "scala B"));
        Schema parcel = SCHEMA.getField("parcel").schema();
        GenericData.Record tag = new GenericData.Record(parcel.getField("tag").schema());
        tag.put("code", id % 3 == 0 ? null : "P" + id);
        tag.put("kind", "box");
        GenericData.Record p1 = new GenericData.Record(parcel);
        p1.put("kg", 1.5 * id);
        p1.put("tag", tag);
        GenericData.Record r = new GenericData.Record(SCHEMA);
        r.put("id", id);
        r.put("to", to);
        r.put("grid", id % 2 == 0 ? List.of(List.of(1, -2), List.of(), List.of((int) id)) : List.of());
        r.put("parcel", p1);
        r.put("carrier", "carrier-" + id % 3);
        r.put("note", id % 2 == 0 ? null : "fragile");
        r.put("labels", List.of("l" + id % 5, "x"));
        return r;
    }

    @Test
    void compositeTypesRoundTripThroughTheServer() throws Exception {
        AvroRowTranscoder transcoder = AvroRowTranscoder.raw(MAPPING, SCHEMA).build();
        RowBuffer out = new RowBuffer(1 << 12);
        for (long id = 1; id <= 20; id++) {
            byte[] body = AvroWireFormat.raw(SCHEMA, shipment(id));
            transcoder.transcode(body, 0, body.length, out);
        }
        byte[] written = out.toByteArray();
        post("INSERT INTO " + db.table("shipments") + " FORMAT RowBinary", written);

        assertThat(new String(
                        get("SELECT * FROM " + db.table("shipments") + " WHERE id IN (1, 2, 3, 4) ORDER BY id "
                                + "FORMAT TabSeparated"),
                        StandardCharsets.UTF_8))
                .isEqualTo("1\t(10001,'Città 1',['Via Roma 1','scala B'])\t[]\t(1.5,('P1','box'))\tcarrier-1"
                        + "\tfragile\t['l1','x']\n"
                        + "2\t(10002,'Città 2',[])\t[[1,-2],[],[2]]\t(3,('P2','box'))\tcarrier-2\t\\N\t['l2','x']\n"
                        + "3\t(10003,'Città 3',['Via Roma 3','scala B'])\t[]\t(4.5,(NULL,'box'))\tcarrier-0"
                        + "\tfragile\t['l3','x']\n"
                        + "4\t(10004,'Città 4',[])\t[[1,-2],[],[4]]\t(6,('P4','box'))\tcarrier-1\t\\N\t['l4','x']\n");
        byte[] read = get("SELECT * FROM " + db.table("shipments") + " ORDER BY id FORMAT RowBinary");
        assertThat(Arrays.equals(read, written))
                .as("the server's RowBinary of the table is the transcoder's")
                .isTrue();
    }

    private static byte[] get(String sql) throws IOException, InterruptedException {
        return send(HttpRequest.newBuilder(uri(sql)).GET());
    }

    private static void post(String sql, byte[] body) throws IOException, InterruptedException {
        send(HttpRequest.newBuilder(uri(sql)).POST(HttpRequest.BodyPublishers.ofByteArray(body)));
    }

    private static URI uri(String sql) {
        return URI.create(replica + "/?query=" + URLEncoder.encode(sql, StandardCharsets.UTF_8));
    }

    private static byte[] send(HttpRequest.Builder request) throws IOException, InterruptedException {
        HttpResponse<byte[]> response = HttpClient.newHttpClient()
                .send(request.timeout(Duration.ofSeconds(30)).build(), HttpResponse.BodyHandlers.ofByteArray());
        assertThat(response.statusCode())
                .as(new String(response.body(), StandardCharsets.UTF_8))
                .isEqualTo(200);
        return response.body();
    }
}
