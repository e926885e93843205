package dev.etl.avro;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.catchThrowableOfType;

import dev.etl.avro.generated.TestAddress;
import dev.etl.avro.generated.TestOrder;
import dev.etl.avro.generated.TestStatus;
import dev.etl.error.DeserializationException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.List;
import java.util.Map;
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
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * Rows in Avro's single-object encoding with no registry id (a backfill's), read by deserializers of
 * every framing with a header, their writer schemas from a {@link WriterSchemas}.
 */
class SingleObjectRowsTest {
    private static final Schema USER = TestSchemas.parse("""
            {"type": "record", "name": "User", "fields": [
              {"name": "id", "type": "long"}, {"name": "name", "type": "string"},
              {"name": "email", "type": ["null", "string"], "default": null}]}""");
    /** USER without {@code email}: the reader's default fills it. */
    private static final Schema USER_WITHOUT_EMAIL = TestSchemas.parse("""
            {"type": "record", "name": "User", "fields": [
              {"name": "id", "type": "long"}, {"name": "name", "type": "string"}]}""");
    /** USER with a field the reader does not have: skipped. */
    private static final Schema USER_WITH_AGE = TestSchemas.parse("""
            {"type": "record", "name": "User", "fields": [
              {"name": "id", "type": "long"}, {"name": "age", "type": "int"}, {"name": "name", "type": "string"},
              {"name": "email", "type": ["null", "string"], "default": null}]}""");
    /** {@code name} became an int: the reader cannot read it. */
    private static final Schema USER_INCOMPATIBLE = TestSchemas.parse("""
            {"type": "record", "name": "User", "fields": [
              {"name": "id", "type": "long"}, {"name": "name", "type": "int"}]}""");

    private final StubRegistry stub = newStub();
    // The tests count registry calls: timeouts far above any stall of a loaded machine, so that no retry
    // after a slow (not failed) answer adds a call (a 2 s default once made it 3 calls for 2 ids).
    private final SchemaRegistryClient registry = SchemaRegistryClient.builder(stub.url())
            .connectTimeout(Duration.ofSeconds(30))
            .requestTimeout(Duration.ofSeconds(30))
            .callTimeout(Duration.ofSeconds(60))
            .backoff(Duration.ofMillis(5), Duration.ofMillis(10))
            .maxAttempts(2)
            .build();
    private final WriterSchemas schemas = new WriterSchemas();

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

    private static String hex(Schema schema) {
        return String.format("%016x", WriterSchemas.fingerprint(schema));
    }

    @ParameterizedTest(name = "fastPath={0}")
    @ValueSource(booleans = {true, false})
    void aConfluentDeserializerReadsSingleObjectRowsOfRegisteredWriterSchemas(boolean fastPath) throws Exception {
        schemas.register(USER);
        AvroDeserializer<GenericRecord> d = AvroDeserializer.generic(USER)
                .confluent(registry)
                .writerSchemas(schemas)
                .fastPath(fastPath)
                .build();
        List<GenericRecord> out = Fixtures.decode(
                d,
                AvroWireFormat.singleObject(USER, user(1, "ann", null)),
                AvroWireFormat.singleObject(USER, user(2, "bob", "b@x")));
        assertThat(out.get(1)).hasToString("{\"id\": 2, \"name\": \"bob\", \"email\": \"b@x\"}");
        assertThat(out.get(0))
                .as("the same reused record as for Confluent payloads")
                .isSameAs(out.get(1));
        assertThat(stub.requests).as("no registry call for a row without an id").hasValue(0);
    }

    @ParameterizedTest(name = "fastPath={0}")
    @ValueSource(booleans = {true, false})
    void specificRecordsDecodeFromSingleObjectRows(boolean fastPath) throws Exception {
        TestOrder order = TestOrder.newBuilder()
                .setId(7)
                .setCustomer("c-1")
                .setQuantity(3)
                .setPrice(9.5)
                .setPaid(true)
                .setStatus(TestStatus.SHIPPED)
                .setNote("fragile")
                .setTags(List.of("a", "b"))
                .setAttributes(Map.of("k", 1L))
                .setAddress(new TestAddress("Oslo", 150))
                .build();
        schemas.register(TestOrder.getClassSchema());
        AvroDeserializer<TestOrder> d = AvroDeserializer.specific(TestOrder.class)
                .confluent(registry)
                .writerSchemas(schemas)
                .fastPath(fastPath)
                .build();
        List<TestOrder> out = Fixtures.decode(d, AvroWireFormat.singleObject(TestOrder.getClassSchema(), order));
        assertThat(out).singleElement().isInstanceOf(TestOrder.class).hasToString(order.toString());
        assertThat(out.get(0).getStatus()).isSameAs(TestStatus.SHIPPED);
    }

    @Test
    void aCustomMapperGetsSingleObjectRowsAndItsFailureNamesTheFingerprint() throws Exception {
        schemas.register(USER);
        AvroDeserializer<String> d = AvroDeserializer.custom(USER, r -> {
                    if (r.get("id").equals(13L)) {
                        throw new IllegalArgumentException("unlucky");
                    }
                    return r.get("name") + "#" + r.get("id");
                })
                .confluent(registry)
                .writerSchemas(schemas)
                .build();
        assertThat(Fixtures.decode(d, AvroWireFormat.singleObject(USER, user(4, "eve", null))))
                .containsExactly("eve#4");
        DeserializationException e = catchThrowableOfType(
                DeserializationException.class,
                () -> Fixtures.decode(d, AvroWireFormat.singleObject(USER, user(13, "x", null))));
        assertThat(e.schemaId()).isEqualTo(-1);
        assertThat(e.reason())
                .contains("mapping a record of writer schema fingerprint " + hex(USER) + " (User) failed")
                .contains("IllegalArgumentException: unlucky");
    }

    @ParameterizedTest(name = "fastPath={0}")
    @ValueSource(booleans = {true, false})
    void evolvedWriterSchemasResolveAgainstTheReader(boolean fastPath) throws Exception {
        schemas.register(USER_WITHOUT_EMAIL);
        schemas.register(USER_WITH_AGE);
        AvroDeserializer<GenericRecord> d = AvroDeserializer.generic(USER)
                .confluent(registry)
                .writerSchemas(schemas)
                .fastPath(fastPath)
                .build();
        GenericData.Record missing = new GenericData.Record(USER_WITHOUT_EMAIL);
        missing.put("id", 5L);
        missing.put("name", "old");
        GenericData.Record extra = new GenericData.Record(USER_WITH_AGE);
        extra.put("id", 6L);
        extra.put("age", 41);
        extra.put("name", "new");
        extra.put("email", "n@x");
        assertThat(Fixtures.decodeToStrings(
                        d,
                        AvroWireFormat.singleObject(USER_WITHOUT_EMAIL, missing),
                        AvroWireFormat.singleObject(USER_WITH_AGE, extra)))
                .containsExactly(
                        "{\"id\": 5, \"name\": \"old\", \"email\": null}",
                        "{\"id\": 6, \"name\": \"new\", \"email\": \"n@x\"}");
    }

    @Test
    void confluentAndSingleObjectPayloadsInterleaveThroughOneDeserializer() throws Exception {
        stub.put(21, USER);
        stub.put(22, USER_WITH_AGE);
        schemas.register(USER);
        schemas.register(USER_WITHOUT_EMAIL);
        AvroDeserializer<GenericRecord> d = AvroDeserializer.generic(USER)
                .confluent(registry)
                .writerSchemas(schemas)
                .build();
        Random random = new Random(3);
        List<byte[]> payloads = new ArrayList<>();
        List<String> expected = new ArrayList<>();
        for (int i = 0; i < 300; i++) {
            String email = i % 5 == 0 ? null : "u" + i + "@x";
            GenericRecord r = user(i, "u" + i, email);
            switch (random.nextInt(4)) {
                case 0 -> payloads.add(AvroWireFormat.confluent(21, USER, r));
                case 1 -> {
                    GenericData.Record aged = new GenericData.Record(USER_WITH_AGE);
                    USER.getFields().forEach(f -> aged.put(f.name(), r.get(f.name())));
                    aged.put("age", i);
                    payloads.add(AvroWireFormat.confluent(22, USER_WITH_AGE, aged));
                }
                case 2 -> payloads.add(AvroWireFormat.singleObject(USER, r));
                default -> {
                    GenericData.Record old = new GenericData.Record(USER_WITHOUT_EMAIL);
                    old.put("id", (long) i);
                    old.put("name", "u" + i);
                    payloads.add(AvroWireFormat.singleObject(USER_WITHOUT_EMAIL, old));
                    email = null;
                }
            }
            expected.add("{\"id\": " + i + ", \"name\": \"u" + i + "\", \"email\": "
                    + (email == null ? "null" : "\"" + email + "\"") + "}");
        }
        assertThat(Fixtures.decodeToStrings(d, payloads.toArray(byte[][]::new))).containsExactlyElementsOf(expected);
        assertThat(stub.requests)
                .as("one registry call per id, none per fingerprint")
                .hasValue(2);
    }

    @Test
    void anUnknownFingerprintFailsEachRowUntilItsSchemaIsRegistered() throws Exception {
        AvroDeserializer<GenericRecord> d = AvroDeserializer.generic(USER)
                .confluent(registry)
                .writerSchemas(schemas)
                .build();
        byte[] row = AvroWireFormat.singleObject(USER_WITH_AGE, withAge(9, 30));
        for (int i = 0; i < 2; i++) {
            DeserializationException e =
                    catchThrowableOfType(DeserializationException.class, () -> Fixtures.decode(d, row));
            assertThat(e.schemaId()).isEqualTo(-1);
            assertThat(e.reason())
                    .contains("unknown writer schema fingerprint " + hex(USER_WITH_AGE))
                    .contains("not registered in WriterSchemas (0 known)");
            assertThat(e.at("deserialize", "backfill-3", 11).getMessage())
                    .contains("backfill-3@11", hex(USER_WITH_AGE))
                    .doesNotContain("schema id");
        }
        schemas.register(USER_WITH_AGE);
        assertThat(Fixtures.decodeToStrings(d, row)).containsExactly("{\"id\": 9, \"name\": \"n\", \"email\": null}");
        assertThat(stub.requests).hasValue(0);
    }

    @Test
    void anIncompatibleWriterSchemaFailsEveryRowOfItsFingerprintNamingBothSchemas() throws Exception {
        schemas.register(USER_INCOMPATIBLE);
        AvroDeserializer<GenericRecord> d = AvroDeserializer.generic(USER)
                .confluent(registry)
                .writerSchemas(schemas)
                .build();
        GenericData.Record bad = new GenericData.Record(USER_INCOMPATIBLE);
        bad.put("id", 1L);
        bad.put("name", 5);
        byte[] row = AvroWireFormat.singleObject(USER_INCOMPATIBLE, bad);
        for (int i = 0; i < 2; i++) {
            DeserializationException e =
                    catchThrowableOfType(DeserializationException.class, () -> Fixtures.decode(d, row));
            assertThat(e.schemaId()).isEqualTo(-1);
            assertThat(e.reason())
                    .contains("writer schema fingerprint " + hex(USER_INCOMPATIBLE) + " (User) cannot be read as "
                            + "reader schema User")
                    .contains("TYPE_MISMATCH");
        }
        // Other rows of the same deserializer are unaffected.
        schemas.register(USER);
        assertThat(Fixtures.decode(d, AvroWireFormat.singleObject(USER, user(2, "b", null))))
                .hasSize(1);
    }

    @Test
    void aTruncatedSingleObjectBodyNamesItsFingerprint() {
        schemas.register(USER);
        AvroDeserializer<GenericRecord> d = AvroDeserializer.generic(USER)
                .confluent(registry)
                .writerSchemas(schemas)
                .build();
        byte[] whole = AvroWireFormat.singleObject(USER, user(1, "ann", "a@b"));
        DeserializationException e = catchThrowableOfType(
                DeserializationException.class, () -> Fixtures.decode(d, Arrays.copyOf(whole, whole.length - 2)));
        assertThat(e.schemaId()).isEqualTo(-1);
        assertThat(e.reason()).contains("does not match writer schema fingerprint " + hex(USER) + " (User)");
    }

    @Test
    void framingErrorsOfAConfluentDeserializerNameBothFormats() {
        AvroDeserializer<GenericRecord> d = AvroDeserializer.generic(USER)
                .confluent(registry)
                .writerSchemas(schemas)
                .build();
        assertThatThrownBy(() -> Fixtures.decode(d, new byte[] {(byte) 0xC3, 0x01, 1, 2}))
                .isInstanceOf(DeserializationException.class)
                .hasMessageContaining("4 byte(s) is shorter than the 10-byte single-object header");
        assertThatThrownBy(() -> Fixtures.decode(d, new byte[] {(byte) 0xC3, 0x02, 0, 0, 0, 0, 0, 0, 0, 0}))
                .isInstanceOf(DeserializationException.class)
                .hasMessageContaining("bad magic byte 0xc3")
                .hasMessageContaining("(0xC3 0x01)");
        assertThatThrownBy(() -> Fixtures.decode(d, new byte[] {(byte) 0xC3}))
                .isInstanceOf(DeserializationException.class)
                .hasMessageContaining("5-byte Confluent header");
    }

    @Test
    void theSingleObjectFramingFallsBackToTheWriterSchemasForFingerprintsItWasNotGiven() throws Exception {
        AvroDeserializer<GenericRecord> d = AvroDeserializer.generic(USER)
                .singleObject(List.of(USER))
                .writerSchemas(schemas)
                .build();
        byte[] aged = AvroWireFormat.singleObject(USER_WITH_AGE, withAge(3, 50));
        assertThatThrownBy(() -> Fixtures.decode(d, aged))
                .isInstanceOf(DeserializationException.class)
                .hasMessageContaining("not among the 1 configured schemas, nor registered in WriterSchemas");
        schemas.register(USER_WITH_AGE);
        assertThat(Fixtures.decodeToStrings(d, AvroWireFormat.singleObject(USER, user(1, "a", null)), aged))
                .containsExactly(
                        "{\"id\": 1, \"name\": \"a\", \"email\": null}",
                        "{\"id\": 3, \"name\": \"n\", \"email\": null}");
    }

    @Test
    void withoutAnOptionTheSharedWriterSchemasAreUsed() throws Exception {
        // A record name of its own, so that no other test's shared registration can make it known.
        Schema own = TestSchemas.parse("{\"type\":\"record\",\"name\":\"SharedRow" + System.nanoTime()
                + "\",\"fields\":[{\"name\":\"id\",\"type\":\"long\"}]}");
        GenericData.Record r = new GenericData.Record(own);
        r.put("id", 77L);
        AvroDeserializer<GenericRecord> d =
                AvroDeserializer.generic(own).confluent(registry).build();
        byte[] row = AvroWireFormat.singleObject(own, r);
        assertThatThrownBy(() -> Fixtures.decode(d, row)).isInstanceOf(DeserializationException.class);
        WriterSchemas.shared().register(own);
        assertThat(Fixtures.decodeToStrings(d, row)).containsExactly("{\"id\": 77}");
    }

    @Test
    void rawBodiesTakeNoWriterSchemas() {
        assertThatThrownBy(() -> AvroDeserializer.generic(USER)
                        .raw(USER)
                        .writerSchemas(schemas)
                        .build())
                .isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("raw(schema) bodies have no header");
    }

    private static GenericRecord withAge(long id, int age) {
        GenericData.Record r = new GenericData.Record(USER_WITH_AGE);
        r.put("id", id);
        r.put("age", age);
        r.put("name", "n");
        r.put("email", null);
        return r;
    }

    /**
     * Registrars register the same writer schemas (each parsed on its own thread, in its own order)
     * while lanes decode rows of them, retrying a row while its fingerprint is unknown: every
     * registration returns the same fingerprint, each schema is kept once, and every lane reads every
     * row once its schema is visible.
     */
    @Test
    void schemasRegisteredFromSeveralThreadsAreKeptOnceAndReachTheLanes() throws Exception {
        long seed = System.nanoTime();
        System.out.println("SingleObjectRowsTest concurrency seed " + seed);
        Random random = new Random(seed);
        Schema reader = TestSchemas.parse("""
                {"type": "record", "name": "Row", "fields": [
                  {"name": "id", "type": "long"}, {"name": "name", "type": "string", "default": "-"}]}""");
        int count = 32;
        List<String> jsons = new ArrayList<>();
        for (int i = 0; i < count; i++) {
            jsons.add(rowSchema(i, random));
        }
        long[] expected = new long[count];
        List<byte[]> rows = new ArrayList<>();
        for (int i = 0; i < count; i++) {
            Schema writer = TestSchemas.parse(jsons.get(i));
            expected[i] = WriterSchemas.fingerprint(writer);
            rows.add(AvroWireFormat.singleObject(writer, rowOf(writer, i, random)));
        }
        assertThat(Arrays.stream(expected).distinct().count()).isEqualTo(count);

        int registrars = 4;
        int lanes = 3;
        CyclicBarrier start = new CyclicBarrier(registrars + lanes);
        ExecutorService pool = Executors.newFixedThreadPool(registrars + lanes);
        try {
            List<Future<long[]>> registered = new ArrayList<>();
            for (int t = 0; t < registrars; t++) {
                long threadSeed = seed + t;
                registered.add(pool.submit(() -> {
                    List<Integer> order = new ArrayList<>();
                    for (int i = 0; i < count; i++) {
                        order.add(i);
                    }
                    Collections.shuffle(order, new Random(threadSeed));
                    List<Schema> parsed = new ArrayList<>();
                    for (int i : order) {
                        parsed.add(TestSchemas.parse(jsons.get(i)));
                    }
                    long[] fingerprints = new long[count];
                    start.await(10, TimeUnit.SECONDS);
                    for (int k = 0; k < count; k++) {
                        fingerprints[order.get(k)] = schemas.register(parsed.get(k));
                    }
                    return fingerprints;
                }));
            }
            List<Future<List<String>>> decoded = new ArrayList<>();
            for (int t = 0; t < lanes; t++) {
                decoded.add(pool.submit(() -> {
                    AvroDeserializer<GenericRecord> d = AvroDeserializer.generic(reader)
                            .confluent(registry)
                            .writerSchemas(schemas)
                            .build();
                    start.await(10, TimeUnit.SECONDS);
                    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
                    List<String> out = new ArrayList<>();
                    for (byte[] row : rows) {
                        while (true) {
                            try {
                                out.addAll(Fixtures.decodeToStrings(d, row));
                                break;
                            } catch (DeserializationException e) {
                                assertThat(e.reason()).contains("unknown writer schema fingerprint");
                                assertThat(System.nanoTime())
                                        .as("row still unknown")
                                        .isLessThan(deadline);
                                Thread.onSpinWait();
                            }
                        }
                    }
                    return out;
                }));
            }
            for (Future<long[]> f : registered) {
                assertThat(f.get(20, TimeUnit.SECONDS)).containsExactly(expected);
            }
            List<String> expectedRows = new ArrayList<>();
            for (int i = 0; i < count; i++) {
                expectedRows.add("{\"id\": " + i + ", \"name\": \"" + nameOf(i) + "\"}");
            }
            for (Future<List<String>> f : decoded) {
                assertThat(f.get(20, TimeUnit.SECONDS)).as("seed %d", seed).containsExactlyElementsOf(expectedRows);
            }
        } finally {
            pool.shutdownNow();
            assertThat(pool.awaitTermination(10, TimeUnit.SECONDS)).isTrue();
        }
        assertThat(schemas.size()).isEqualTo(count);
        for (int i = 0; i < count; i++) {
            Schema kept = schemas.byFingerprint(expected[i]);
            assertThat(kept).as("seed %d, schema %d", seed, i).isEqualTo(TestSchemas.parse(jsons.get(i)));
            assertThat(schemas.byFingerprint(expected[i])).isSameAs(kept);
        }
    }

    private static final String[] TYPES = {"int", "long", "string", "double", "boolean"};

    /** A writer of {@code Row}: {@code id}, sometimes {@code name}, and extra fields of its own. */
    private static String rowSchema(int i, Random random) {
        StringBuilder fields = new StringBuilder("{\"name\":\"id\",\"type\":\"long\"}");
        if (i % 2 == 0) {
            fields.append(",{\"name\":\"name\",\"type\":\"string\"}");
        }
        int extras = 1 + random.nextInt(4);
        for (int j = 0; j < extras; j++) {
            fields.append(",{\"name\":\"x")
                    .append(i)
                    .append('_')
                    .append(j)
                    .append("\",\"type\":\"")
                    .append(TYPES[random.nextInt(TYPES.length)])
                    .append("\"}");
        }
        return "{\"type\":\"record\",\"name\":\"Row\",\"fields\":[" + fields + "]}";
    }

    private static String nameOf(int i) {
        return i % 2 == 0 ? "r" + i : "-";
    }

    private static GenericRecord rowOf(Schema writer, int i, Random random) {
        GenericData.Record r = new GenericData.Record(writer);
        for (Schema.Field f : writer.getFields()) {
            Object value = switch (f.name()) {
                case "id" -> (long) i;
                case "name" -> nameOf(i);
                default ->
                    switch (f.schema().getType()) {
                        case INT -> random.nextInt();
                        case LONG -> random.nextLong();
                        case STRING -> "s" + random.nextInt(100);
                        case DOUBLE -> random.nextDouble();
                        default -> random.nextBoolean();
                    };
            };
            r.put(f.name(), value);
        }
        return r;
    }
}
