package dev.etl.avro;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.catchThrowableOfType;

import dev.etl.avro.generated.TestAddress;
import dev.etl.avro.generated.TestOrder;
import dev.etl.avro.generated.TestStatus;
import dev.etl.error.DeserializationException;
import dev.etl.error.ErrorPolicy;
import dev.etl.error.FatalPipelineException;
import java.nio.ByteBuffer;
import java.time.Duration;
import java.util.Arrays;
import java.util.List;
import org.apache.avro.Schema;
import org.apache.avro.generic.GenericData;
import org.apache.avro.generic.GenericRecord;
import org.apache.avro.util.Utf8;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

class AvroDeserializerTest {
    private static final Schema USER = TestSchemas.parse("""
            {"type": "record", "name": "User", "fields": [
              {"name": "id", "type": "long"}, {"name": "name", "type": "string"},
              {"name": "email", "type": ["null", "string"], "default": null}]}""");

    private final StubRegistry stub = newStub();
    // Tests count registry calls: timeouts far above any stall of a loaded machine, so that no retry after a
    // slow (not failed) answer adds a call.
    private final SchemaRegistryClient registry = SchemaRegistryClient.builder(stub.url())
            .connectTimeout(Duration.ofSeconds(30))
            .requestTimeout(Duration.ofSeconds(30))
            .callTimeout(Duration.ofSeconds(60))
            .backoff(Duration.ofMillis(5), Duration.ofMillis(10))
            .maxAttempts(2)
            .build();

    private static StubRegistry newStub() {
        try {
            return new StubRegistry();
        } catch (java.io.IOException e) {
            throw new java.io.UncheckedIOException(e);
        }
    }

    @AfterEach
    void stop() {
        stub.close();
    }

    private static GenericRecord user(long id, String name, String email) {
        GenericData.Record r = new GenericData.Record(USER);
        r.put("id", id);
        r.put("name", name);
        r.put("email", email);
        return r;
    }

    @ParameterizedTest(name = "fastPath={0}")
    @ValueSource(booleans = {true, false})
    void decodesConfluentFramedRecordsIntoOneReusedRecord(boolean fastPath) throws Exception {
        stub.put(21, USER);
        AvroDeserializer<GenericRecord> d = AvroDeserializer.generic(USER)
                .confluent(registry)
                .fastPath(fastPath)
                .build();
        byte[] a = AvroWireFormat.confluent(21, USER, user(1, "ann", null));
        byte[] b = AvroWireFormat.confluent(21, USER, user(2, "bob", "bob@example.com"));

        assertThat(Fixtures.decodeToStrings(d, a, b))
                .containsExactly(
                        "{\"id\": 1, \"name\": \"ann\", \"email\": null}",
                        "{\"id\": 2, \"name\": \"bob\", \"email\": \"bob@example.com\"}");
        List<GenericRecord> emitted = Fixtures.decode(d, a, b);
        assertThat(emitted.get(0)).as("reused per lane").isSameAs(emitted.get(1));
        assertThat(emitted.get(1).get("name")).isInstanceOf(Utf8.class);
    }

    @ParameterizedTest(name = "fastPath={0}")
    @ValueSource(booleans = {true, false})
    void decodesGeneratedSpecificRecords(boolean fastPath) throws Exception {
        TestOrder order = TestOrder.newBuilder()
                .setId(7)
                .setCustomer("c-1")
                .setQuantity(3)
                .setPrice(9.5)
                .setPaid(true)
                .setStatus(TestStatus.PAID)
                .setNote(null)
                .setTags(List.of("a", "b"))
                .setAttributes(java.util.Map.of("k", 1L))
                .setAddress(new TestAddress("Oslo", 150))
                .build();
        stub.put(5, TestOrder.getClassSchema());
        AvroDeserializer<TestOrder> d = AvroDeserializer.specific(TestOrder.class)
                .confluent(registry)
                .fastPath(fastPath)
                .build();

        List<TestOrder> out = Fixtures.decode(d, AvroWireFormat.confluent(5, TestOrder.getClassSchema(), order));
        assertThat(out).hasSize(1);
        TestOrder decoded = out.get(0);
        // Strings decode as Utf8 (the generated class uses CharSequence), so compare renderings.
        assertThat(decoded).isInstanceOf(TestOrder.class).hasToString(order.toString());
        assertThat(decoded.getStatus()).isSameAs(TestStatus.PAID);
        assertThat(decoded.getAddress()).isInstanceOf(TestAddress.class);
    }

    @Test
    void aCustomMapperGetsTheDecodedRecord() throws Exception {
        stub.put(1, USER);
        AvroDeserializer<String> d = AvroDeserializer.custom(USER, r -> r.get("name") + "#" + r.get("id"))
                .confluent(registry)
                .build();
        assertThat(Fixtures.decode(d, AvroWireFormat.confluent(1, USER, user(4, "eve", null))))
                .containsExactly("eve#4");
    }

    @Test
    void aFailingMapperIsADeserializationErrorWithTheSchemaId() {
        stub.put(1, USER);
        AvroDeserializer<String> d = AvroDeserializer.<String>custom(USER, r -> {
                    throw new IllegalStateException("no");
                })
                .confluent(registry)
                .build();
        DeserializationException e = catchThrowableOfType(
                DeserializationException.class,
                () -> Fixtures.decode(d, AvroWireFormat.confluent(1, USER, user(4, "eve", null))));
        assertThat(e.schemaId()).isEqualTo(1);
        assertThat(e.reason()).contains("mapping", "IllegalStateException: no");
    }

    @Test
    void aTombstoneEmitsNothingAndIsCounted() throws Exception {
        AvroDeserializer<GenericRecord> d =
                AvroDeserializer.generic(USER).confluent(registry).build();
        assertThat(Fixtures.decode(d, (byte[]) null)).isEmpty();
        assertThat(d.tombstones()).isEqualTo(1);
        assertThat(stub.requests).hasValue(0);
    }

    @Test
    void aPayloadShorterThanTheHeaderIsRejected() {
        AvroDeserializer<GenericRecord> d =
                AvroDeserializer.generic(USER).confluent(registry).build();
        DeserializationException e =
                catchThrowableOfType(DeserializationException.class, () -> Fixtures.decode(d, new byte[] {0, 0, 1}));
        assertThat(e.schemaId()).isEqualTo(-1);
        assertThat(e.reason()).contains("3 byte(s)", "5-byte Confluent header");
    }

    @Test
    void aBadMagicByteIsRejected() {
        AvroDeserializer<GenericRecord> d =
                AvroDeserializer.generic(USER).confluent(registry).build();
        assertThatThrownBy(() -> Fixtures.decode(d, new byte[] {1, 0, 0, 0, 1, 2}))
                .isInstanceOf(DeserializationException.class)
                .hasMessageContaining("bad magic byte 0x01");
    }

    @Test
    void anUnknownSchemaIdIsATypedErrorNamingTheId() {
        AvroDeserializer<GenericRecord> d =
                AvroDeserializer.generic(USER).confluent(registry).build();
        DeserializationException e = catchThrowableOfType(
                DeserializationException.class,
                () -> Fixtures.decode(d, AvroWireFormat.confluent(404, USER, user(1, "a", null))));
        assertThat(e).isNotInstanceOf(SchemaRegistryUnavailableException.class);
        assertThat(e.schemaId()).isEqualTo(404);
        assertThat(e.reason()).contains("unknown schema id 404");
        assertThat(e.at("deserialize", "users-0", 17).getMessage()).contains("users-0@17", "schema id 404");
    }

    @Test
    void recordsOfUnknownIdsOverTheLookupRateAreBadDataNotAnOutage() {
        SchemaRegistryClient limited = SchemaRegistryClient.builder(stub.url())
                .unknownIdLookupsPerSecond(1)
                .build();
        AvroDeserializer<GenericRecord> d =
                AvroDeserializer.generic(USER).confluent(limited).build();
        for (int id = 100; id < 110; id++) {
            byte[] payload = AvroWireFormat.confluent(id, USER, user(1, "a", null));
            DeserializationException e =
                    catchThrowableOfType(DeserializationException.class, () -> Fixtures.decode(d, payload));
            assertThat(e).isNotInstanceOf(SchemaRegistryUnavailableException.class);
            assertThat(e.schemaId()).isEqualTo(id);
            assertThat(e.reason()).contains("unknown schema id " + id);
        }
        assertThat(stub.requests).hasValue(1);
        assertThat(limited.unknownIdLookupsRefused()).isEqualTo(9);
    }

    @ParameterizedTest(name = "fastPath={0}")
    @ValueSource(booleans = {true, false})
    void aTruncatedBodyOrTrailingBytesNameTheSchemaId(boolean fastPath) {
        stub.put(8, USER);
        AvroDeserializer<GenericRecord> d = AvroDeserializer.generic(USER)
                .confluent(registry)
                .fastPath(fastPath)
                .build();
        byte[] whole = AvroWireFormat.confluent(8, USER, user(1, "ann", "a@b"));
        DeserializationException truncated = catchThrowableOfType(
                DeserializationException.class, () -> Fixtures.decode(d, Arrays.copyOf(whole, whole.length - 2)));
        assertThat(truncated.schemaId()).isEqualTo(8);
        assertThat(truncated.reason()).contains("does not match writer schema id 8 (User)");

        DeserializationException trailing = catchThrowableOfType(
                DeserializationException.class, () -> Fixtures.decode(d, Arrays.copyOf(whole, whole.length + 1)));
        assertThat(trailing.reason()).contains("trailing");
    }

    @Test
    void aMalformedVarintIsNamedWithItsPosition() {
        stub.put(8, USER);
        AvroDeserializer<GenericRecord> d =
                AvroDeserializer.generic(USER).confluent(registry).build();
        byte[] bad = {
            0,
            0,
            0,
            0,
            8,
            (byte) 0xff,
            (byte) 0xff,
            (byte) 0xff,
            (byte) 0xff,
            (byte) 0xff,
            (byte) 0xff,
            (byte) 0xff,
            (byte) 0xff,
            (byte) 0xff,
            (byte) 0xff,
            0
        };
        assertThatThrownBy(() -> Fixtures.decode(d, bad))
                .isInstanceOf(DeserializationException.class)
                .hasMessageContaining("malformed long varint at byte 0");
    }

    @Test
    void aRegistryOutageFailsThePipelineByDefaultInsteadOfSkipping() {
        stub.failuresLeft.set(100);
        AvroDeserializer<GenericRecord> d =
                AvroDeserializer.generic(USER).confluent(registry).build();
        FatalPipelineException e = catchThrowableOfType(
                FatalPipelineException.class,
                () -> Fixtures.decode(d, AvroWireFormat.confluent(3, USER, user(1, "a", null))));
        assertThat(e.getCause()).isInstanceOf(SchemaRegistryUnavailableException.class);
        assertThat(((SchemaRegistryUnavailableException) e.getCause()).schemaId())
                .isEqualTo(3);
        assertThat(e.getMessage()).contains("schema id 3", "answered 500");
        // Unlocated here: the chain head names the partition as the source does (ChainErrorPolicyTest).
        assertThat(((SchemaRegistryUnavailableException) e.getCause()).partitionName())
                .isNull();
    }

    @Test
    void aRegistryOutageCanBeLeftToTheStagePolicy() {
        stub.failuresLeft.set(100);
        AvroDeserializer<GenericRecord> d = AvroDeserializer.generic(USER)
                .confluent(registry)
                .onRegistryUnavailable(ErrorPolicy.SKIP)
                .build();
        SchemaRegistryUnavailableException e = catchThrowableOfType(
                SchemaRegistryUnavailableException.class,
                () -> Fixtures.decode(d, AvroWireFormat.confluent(3, USER, user(1, "a", null))));
        assertThat(e.at("deserialize", "t-1", 5)).isInstanceOf(SchemaRegistryUnavailableException.class);
    }

    @Test
    void rawBodiesUseTheConfiguredWriterSchema() throws Exception {
        AvroDeserializer<GenericRecord> d =
                AvroDeserializer.generic(USER).raw(USER).build();
        assertThat(Fixtures.decodeToStrings(d, AvroWireFormat.raw(USER, user(3, "raw", null))))
                .containsExactly("{\"id\": 3, \"name\": \"raw\", \"email\": null}");
    }

    @Test
    void singleObjectPayloadsAreResolvedByFingerprint() throws Exception {
        Schema other = TestSchemas.parse("{\"type\":\"record\",\"name\":\"User\",\"fields\":["
                + "{\"name\":\"id\",\"type\":\"long\"},{\"name\":\"name\",\"type\":\"string\"}]}");
        GenericData.Record old = new GenericData.Record(other);
        old.put("id", 5L);
        old.put("name", "old");
        AvroDeserializer<GenericRecord> d = AvroDeserializer.generic(USER)
                .singleObject(List.of(USER, other))
                .build();
        assertThat(Fixtures.decodeToStrings(
                        d,
                        AvroWireFormat.singleObject(USER, user(1, "new", "n@x")),
                        AvroWireFormat.singleObject(other, old)))
                .containsExactly(
                        "{\"id\": 1, \"name\": \"new\", \"email\": \"n@x\"}",
                        "{\"id\": 5, \"name\": \"old\", \"email\": null}");
    }

    @Test
    void singleObjectPayloadsWithAnUnknownFingerprintOrMarkerAreRejected() {
        AvroDeserializer<GenericRecord> d =
                AvroDeserializer.generic(USER).singleObject(List.of(USER)).build();
        Schema unknown = TestSchemas.parse("{\"type\":\"record\",\"name\":\"X\",\"fields\":[]}");
        assertThatThrownBy(
                        () -> Fixtures.decode(d, AvroWireFormat.singleObject(unknown, new GenericData.Record(unknown))))
                .isInstanceOf(DeserializationException.class)
                .hasMessageContaining("unknown writer schema fingerprint");
        assertThatThrownBy(() -> Fixtures.decode(d, new byte[] {(byte) 0xC3, 0x02, 0, 0, 0, 0, 0, 0, 0, 0}))
                .isInstanceOf(DeserializationException.class)
                .hasMessageContaining("0xc302");
        assertThatThrownBy(() -> Fixtures.decode(d, new byte[] {(byte) 0xC3, 0x01, 0}))
                .isInstanceOf(DeserializationException.class)
                .hasMessageContaining("10-byte single-object header");
    }

    @Test
    void aBuilderNeedsExactlyOneWireFormat() {
        assertThatThrownBy(() -> AvroDeserializer.generic(USER).build()).isInstanceOf(IllegalStateException.class);
        assertThatThrownBy(() -> AvroDeserializer.generic(USER)
                        .raw(USER)
                        .confluent(registry)
                        .build())
                .isInstanceOf(IllegalStateException.class);
    }

    @Test
    void bytesAreReadIntoTheReusedBuffer() throws Exception {
        Schema blob = TestSchemas.parse(
                "{\"type\":\"record\",\"name\":\"B\",\"fields\":[{\"name\":\"b\",\"type\":\"bytes\"}]}");
        GenericData.Record r = new GenericData.Record(blob);
        r.put("b", ByteBuffer.wrap(new byte[] {1, 2, 3}));
        AvroDeserializer<GenericRecord> d =
                AvroDeserializer.generic(blob).raw(blob).build();
        List<GenericRecord> out = Fixtures.decode(d, AvroWireFormat.raw(blob, r), AvroWireFormat.raw(blob, r));
        assertThat(out.get(1).get("b")).isEqualTo(ByteBuffer.wrap(new byte[] {1, 2, 3}));
    }

    @Test
    void aSecondThreadIsRejectedAtItsFirstCallWithWhatToDo() throws Exception {
        AvroDeserializer<GenericRecord> shared =
                AvroDeserializer.generic(USER).raw(USER).build();
        byte[] valid = AvroWireFormat.raw(USER, user(1, "ann", null));
        assertThat(Fixtures.decode(shared, valid, valid)).hasSize(2);

        java.util.concurrent.atomic.AtomicReference<Throwable> seen =
                new java.util.concurrent.atomic.AtomicReference<>();
        Thread lane2 = new Thread(
                () -> {
                    try {
                        Fixtures.decode(shared, valid);
                    } catch (Throwable t) {
                        seen.set(t);
                    }
                },
                "etl-orders-lane-1");
        lane2.start();
        lane2.join(10_000);
        assertThat(lane2.isAlive()).isFalse();
        assertThat(seen.get())
                .isInstanceOf(FatalPipelineException.class)
                .hasMessageContaining(
                        "used by lane threads '" + Thread.currentThread().getName() + "' and 'etl-orders-lane-1'")
                .hasMessageContaining("Call build() inside the ChainFactory lambda");
        // The owner keeps working; a fresh instance per lane is the fix.
        assertThat(Fixtures.decode(shared, valid)).hasSize(1);
    }
}
