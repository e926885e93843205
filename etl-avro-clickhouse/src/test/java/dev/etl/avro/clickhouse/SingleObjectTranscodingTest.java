package dev.etl.avro.clickhouse;

import static dev.etl.avro.clickhouse.AvroRowTranscoderTest.ORDER;
import static dev.etl.avro.clickhouse.AvroRowTranscoderTest.everyType;
import static dev.etl.avro.clickhouse.AvroRowTranscoderTest.order;
import static dev.etl.avro.clickhouse.AvroRowTranscoderTest.transcode;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.catchThrowableOfType;

import dev.etl.avro.AvroWireFormat;
import dev.etl.avro.SchemaRegistryClient;
import dev.etl.avro.WriterSchemas;
import dev.etl.error.DeserializationException;
import dev.etl.record.Payload;
import dev.etl.sink.RowBuffer;
import dev.etl.test.avro.StubSchemaRegistry;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Random;
import java.util.concurrent.CyclicBarrier;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import org.apache.avro.Schema;
import org.apache.avro.generic.GenericData;
import org.apache.avro.generic.GenericRecord;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * Rows in Avro's single-object encoding (a backfill's, no registry id) through a Confluent
 * transcoder: the same RowBinary bytes as the Confluent payload of the same record, plans compiled
 * once per fingerprint, unknown fingerprints, framing errors, and no allocation per record.
 */
class SingleObjectTranscodingTest {
    /** ORDER with a field no column reads. */
    static final Schema WITH_EXTRA = new Schema.Parser()
            .parse(ORDER.toString()
                    .replace(
                            "{\"name\":\"id\",\"type\":\"long\"}",
                            "{\"name\":\"id\",\"type\":\"long\"},{\"name\":\"extra\",\"type\":\"int\"}"));
    /** ORDER without {@code coupon}, whose reader default (null) fills the column. */
    static final Schema WITHOUT_COUPON = new Schema.Parser()
            .parse(ORDER.toString()
                    .replace(",{\"name\":\"coupon\",\"type\":[\"null\",\"string\"],\"default\":null}", ""));

    private final StubSchemaRegistry stub = StubSchemaRegistry.start();
    private final SchemaRegistryClient registry =
            SchemaRegistryClient.builder(stub.url()).build();
    private final WriterSchemas schemas = new WriterSchemas();

    @AfterEach
    void stop() {
        stub.close();
    }

    private static String hex(Schema schema) {
        return String.format("%016x", WriterSchemas.fingerprint(schema));
    }

    /** {@code r} (of ORDER) as a record of {@code writer}: the fields both have, and {@code extra}. */
    private static GenericRecord as(Schema writer, GenericRecord r, int extra) {
        GenericData.Record copy = new GenericData.Record(writer);
        for (Schema.Field f : writer.getFields()) {
            copy.put(f.name(), f.name().equals("extra") ? extra : r.get(f.name()));
        }
        return copy;
    }

    /** What the object path writes for {@code r} as the writer lacking {@code coupon} would carry it. */
    private static GenericRecord withoutCoupon(GenericRecord r) {
        GenericData.Record copy = new GenericData.Record(ORDER);
        for (Schema.Field f : ORDER.getFields()) {
            copy.put(f.name(), r.get(f.name()));
        }
        copy.put("coupon", null);
        return copy;
    }

    @Test
    void aSingleObjectRowIsTheSameRowBinaryAsTheConfluentRowOfTheSameRecord() {
        assertThat(WITH_EXTRA.getField("extra")).isNotNull();
        assertThat(WITHOUT_COUPON.getField("coupon")).isNull();
        stub.put(1, ORDER);
        stub.put(2, WITH_EXTRA);
        stub.put(3, WITHOUT_COUPON);
        schemas.register(ORDER);
        schemas.register(WITH_EXTRA);
        schemas.register(WITHOUT_COUPON);
        AvroRowMapping mapping = everyType();
        AvroRowTranscoder transcoder = AvroRowTranscoder.confluent(mapping, registry)
                .writerSchemas(schemas)
                .build();
        ObjectPath reference = new ObjectPath(mapping, ORDER);
        long seed = System.nanoTime();
        System.out.println("SingleObjectTranscodingTest equivalence seed " + seed);
        Random random = new Random(seed);
        for (int i = 0; i < 1_500; i++) {
            GenericRecord r = order(random);
            int version = random.nextInt(3);
            Schema writer = version == 0 ? ORDER : version == 1 ? WITH_EXTRA : WITHOUT_COUPON;
            GenericRecord written = as(writer, r, i);
            byte[] singleObject = transcode(transcoder, AvroWireFormat.singleObject(writer, written));
            byte[] confluent = transcode(transcoder, AvroWireFormat.confluent(version + 1, writer, written));
            byte[] expected = ObjectPath.unchecked(reference)
                    .apply(AvroWireFormat.raw(ORDER, version == 2 ? withoutCoupon(r) : r));
            assertThat(singleObject)
                    .as("seed %d, record %d (writer v%d)", seed, i, version)
                    .isEqualTo(confluent);
            assertThat(singleObject)
                    .as("seed %d, record %d (writer v%d)", seed, i, version)
                    .isEqualTo(expected);
        }
    }

    @Test
    void plansPerFingerprintAreCompiledOncePerBuilderAndShareTheLaneCacheWithIds() {
        stub.put(1, ORDER);
        stub.put(2, WITH_EXTRA);
        schemas.register(ORDER);
        schemas.register(WITHOUT_COUPON);
        AvroRowMapping mapping = everyType();
        AvroRowTranscoder.Builder shared =
                AvroRowTranscoder.confluent(mapping, registry).writerSchemas(schemas);
        AvroRowTranscoder lane1 = shared.build();
        AvroRowTranscoder lane2 = shared.build();
        ObjectPath reference = new ObjectPath(mapping, ORDER);
        Random random = new Random(17);
        for (int i = 0; i < 400; i++) {
            GenericRecord r = order(random);
            byte[] payload;
            GenericRecord expected = r;
            switch (random.nextInt(4)) {
                case 0 -> payload = AvroWireFormat.confluent(1, ORDER, r);
                case 1 -> payload = AvroWireFormat.confluent(2, WITH_EXTRA, as(WITH_EXTRA, r, i));
                case 2 -> payload = AvroWireFormat.singleObject(ORDER, r);
                default -> {
                    payload = AvroWireFormat.singleObject(WITHOUT_COUPON, as(WITHOUT_COUPON, r, i));
                    expected = withoutCoupon(r);
                }
            }
            RowBuffer out = new RowBuffer(64);
            (i % 2 == 0 ? lane1 : lane2).encode(new Payload().wrap(payload), null, out);
            assertThat(out.toByteArray())
                    .as("record %d", i)
                    .isEqualTo(ObjectPath.unchecked(reference).apply(AvroWireFormat.raw(ORDER, expected)));
        }
        assertThat(shared.compilations()).as("2 ids + 2 fingerprints").isEqualTo(4);
        assertThat(stub.requests()).as("none for the fingerprints").isEqualTo(2);
    }

    @Test
    void anUnknownFingerprintFailsEachRowUntilItsSchemaIsRegistered() {
        AvroRowTranscoder.Builder shared =
                AvroRowTranscoder.confluent(everyType(), registry).writerSchemas(schemas);
        AvroRowTranscoder transcoder = shared.build();
        byte[] row = AvroWireFormat.singleObject(WITH_EXTRA, as(WITH_EXTRA, order(new Random(4)), 1));
        for (int i = 0; i < 2; i++) {
            DeserializationException e =
                    catchThrowableOfType(DeserializationException.class, () -> transcode(transcoder, row));
            assertThat(e.schemaId()).isEqualTo(-1);
            assertThat(e.reason())
                    .contains("unknown writer schema fingerprint " + hex(WITH_EXTRA))
                    .contains("not registered in WriterSchemas (0 known)");
        }
        assertThat(shared.compilations()).isZero();
        schemas.register(WITH_EXTRA);
        assertThat(transcode(transcoder, row)).isNotEmpty();
        assertThat(transcode(shared.build(), row)).isEqualTo(transcode(transcoder, row));
        assertThat(shared.compilations()).isEqualTo(1);
        assertThat(stub.requests()).isZero();
    }

    @Test
    void aWriterSchemaTheMappingCannotReadFailsEveryRowOfItsFingerprint() {
        Schema incompatible = new Schema.Parser()
                .parse(ORDER.toString()
                        .replace("{\"name\":\"qty\",\"type\":\"int\"}", "{\"name\":\"qty\",\"type\":\"string\"}"));
        schemas.register(incompatible);
        AvroRowTranscoder.Builder shared = AvroRowTranscoder.confluent(
                        AvroRowMapping.builder(ORDER).column("qty", "Int32").build(), registry)
                .writerSchemas(schemas);
        AvroRowTranscoder transcoder = shared.build();
        GenericRecord r = order(new Random(1));
        GenericData.Record bad = new GenericData.Record(incompatible);
        for (Schema.Field f : incompatible.getFields()) {
            bad.put(f.name(), f.name().equals("qty") ? "three" : r.get(f.name()));
        }
        byte[] row = AvroWireFormat.singleObject(incompatible, bad);
        for (int i = 0; i < 3; i++) {
            DeserializationException e =
                    catchThrowableOfType(DeserializationException.class, () -> transcode(transcoder, row));
            assertThat(e.schemaId()).isEqualTo(-1);
            assertThat(e.reason())
                    .contains(
                            "writer schema fingerprint " + hex(incompatible) + " (dev.etl.avro.clickhouse.test.Order)")
                    .contains("cannot be transcoded", "field 'qty'");
            assertThat(e).hasCauseInstanceOf(AvroMappingException.class);
        }
        assertThat(shared.compilations()).isEqualTo(1);
    }

    @Test
    void framingErrorsAndTruncatedBodiesNameWhatWasWrong() {
        schemas.register(ORDER);
        AvroRowTranscoder transcoder = AvroRowTranscoder.confluent(everyType(), registry)
                .writerSchemas(schemas)
                .build();
        assertThatThrownBy(() -> transcode(transcoder, new byte[] {(byte) 0xC3, 0x01, 0, 0, 0, 0}))
                .isInstanceOf(DeserializationException.class)
                .hasMessageContaining("6 byte(s) is shorter than the 10-byte single-object header");
        assertThatThrownBy(() -> transcode(transcoder, new byte[] {(byte) 0xC3, 0x02, 0, 0, 0, 0, 0, 0, 0, 0}))
                .isInstanceOf(DeserializationException.class)
                .hasMessageContaining("bad magic byte 0xc3")
                .hasMessageContaining("single-object encoding (0xC3 0x01)");
        assertThatThrownBy(() -> transcode(transcoder, new byte[] {(byte) 0xC3}))
                .isInstanceOf(DeserializationException.class)
                .hasMessageContaining("shorter than the 5-byte Confluent header");
        byte[] whole = AvroWireFormat.singleObject(ORDER, order(new Random(8)));
        DeserializationException e = catchThrowableOfType(
                DeserializationException.class, () -> transcode(transcoder, Arrays.copyOf(whole, whole.length - 1)));
        assertThat(e.schemaId()).isEqualTo(-1);
        assertThat(e.reason()).contains("does not match writer schema fingerprint " + hex(ORDER));
        assertThat(transcode(transcoder, whole)).as("the lane keeps working").isNotEmpty();
    }

    @Test
    void lanesRacingOnANewFingerprintCompileItOnce() throws Exception {
        schemas.register(ORDER);
        AvroRowMapping mapping = everyType();
        byte[] row = AvroWireFormat.singleObject(ORDER, order(new Random(9)));
        int lanes = 4;
        ExecutorService pool = Executors.newFixedThreadPool(lanes);
        try {
            for (int round = 0; round < 100; round++) {
                AvroRowTranscoder.Builder shared =
                        AvroRowTranscoder.confluent(mapping, registry).writerSchemas(schemas);
                CyclicBarrier start = new CyclicBarrier(lanes);
                List<Future<byte[]>> rows = new ArrayList<>();
                for (int i = 0; i < lanes; i++) {
                    AvroRowTranscoder lane = shared.build();
                    rows.add(pool.submit(() -> {
                        start.await(10, TimeUnit.SECONDS);
                        return transcode(lane, row);
                    }));
                }
                byte[] first = rows.get(0).get(10, TimeUnit.SECONDS);
                for (Future<byte[]> f : rows) {
                    assertThat(f.get(10, TimeUnit.SECONDS)).isEqualTo(first);
                }
                assertThat(shared.compilations()).as("round %d", round).isEqualTo(1);
            }
        } finally {
            pool.shutdownNow();
            assertThat(pool.awaitTermination(10, TimeUnit.SECONDS)).isTrue();
        }
    }

    @Test
    void withoutAnOptionTheSharedWriterSchemasAreUsed() {
        // A record name of its own, so that no other test's shared registration can make it known.
        Schema own = new Schema.Parser()
                .parse("{\"type\":\"record\",\"name\":\"SharedRow" + System.nanoTime()
                        + "\",\"fields\":[{\"name\":\"id\",\"type\":\"long\"}]}");
        GenericData.Record r = new GenericData.Record(own);
        r.put("id", 3L);
        AvroRowTranscoder transcoder = AvroRowTranscoder.confluent(
                        AvroRowMapping.builder(own).column("id", "Int64").build(), registry)
                .build();
        byte[] row = AvroWireFormat.singleObject(own, r);
        assertThatThrownBy(() -> transcode(transcoder, row)).isInstanceOf(DeserializationException.class);
        WriterSchemas.shared().register(own);
        assertThat(transcode(transcoder, row)).containsExactly(3, 0, 0, 0, 0, 0, 0, 0);
    }

    @Test
    void writerSchemasIsForConfluentBuildersBeforeTheirFirstBuild() {
        assertThatThrownBy(() -> AvroRowTranscoder.raw(everyType(), ORDER).writerSchemas(schemas))
                .isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("raw bodies have no header");
        AvroRowTranscoder.Builder shared = AvroRowTranscoder.confluent(everyType(), registry);
        shared.build();
        assertThatThrownBy(() -> shared.writerSchemas(schemas))
                .isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("before the first build()");
    }

    @Test
    void singleObjectRowsAllocateNothingPerRecord() {
        schemas.register(ORDER);
        schemas.register(WITH_EXTRA);
        AvroRowTranscoder transcoder = AvroRowTranscoder.confluent(everyType(), registry)
                .writerSchemas(schemas)
                .build();
        Random random = new Random(12);
        byte[][] rows = new byte[64][];
        for (int i = 0; i < rows.length; i++) {
            // Alternating fingerprints: every row is a lane-cache lookup, not the previous row's plan.
            rows[i] = i % 2 == 0
                    ? AvroWireFormat.singleObject(ORDER, order(random))
                    : AvroWireFormat.singleObject(WITH_EXTRA, as(WITH_EXTRA, order(random), i));
        }
        AvroRowTranscoderTest.assertAllocatesNothingPerRecord(transcoder, rows);
    }

    @Test
    void mixedConfluentAndSingleObjectRowsAllocateNothingPerRecord() {
        stub.put(1, ORDER);
        stub.put(2, WITH_EXTRA);
        schemas.register(ORDER);
        schemas.register(WITHOUT_COUPON);
        AvroRowTranscoder transcoder = AvroRowTranscoder.confluent(everyType(), registry)
                .writerSchemas(schemas)
                .build();
        Random random = new Random(13);
        byte[][] rows = new byte[64][];
        for (int i = 0; i < rows.length; i++) {
            GenericRecord r = order(random);
            rows[i] = switch (i % 4) {
                case 0 -> AvroWireFormat.confluent(1, ORDER, r);
                case 1 -> AvroWireFormat.singleObject(ORDER, r);
                case 2 -> AvroWireFormat.confluent(2, WITH_EXTRA, as(WITH_EXTRA, r, i));
                default -> AvroWireFormat.singleObject(WITHOUT_COUPON, as(WITHOUT_COUPON, r, i));
            };
        }
        AvroRowTranscoderTest.assertAllocatesNothingPerRecord(transcoder, rows);
    }
}
