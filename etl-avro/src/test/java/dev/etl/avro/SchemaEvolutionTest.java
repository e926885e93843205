package dev.etl.avro;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowableOfType;

import dev.etl.avro.generated.TestOrder;
import dev.etl.error.DeserializationException;
import java.time.Duration;
import java.util.List;
import org.apache.avro.Schema;
import org.apache.avro.generic.GenericData;
import org.apache.avro.generic.GenericRecord;
import org.apache.avro.io.DecoderFactory;
import org.apache.avro.specific.SpecificData;
import org.apache.avro.specific.SpecificDatumReader;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * Writer → reader resolution through the registry: each schema change a producer may make, on the
 * fast path and on Avro's resolving reader alike.
 */
class SchemaEvolutionTest {
    private static final Schema V1 = TestSchemas.parse("""
            {"type": "record", "name": "Order", "namespace": "shop", "fields": [
              {"name": "id", "type": "int"},
              {"name": "amount", "type": "float"},
              {"name": "customer", "type": "string"},
              {"name": "legacy", "type": {"type": "array", "items": "string"}}]}""");

    private static final Schema READER = TestSchemas.parse("""
            {"type": "record", "name": "Order", "namespace": "shop", "fields": [
              {"name": "id", "type": "long"},
              {"name": "amount", "type": "double"},
              {"name": "buyer", "type": "string", "aliases": ["customer"]},
              {"name": "currency", "type": "string", "default": "EUR"}]}""");

    private static final Schema INCOMPATIBLE = TestSchemas.parse("""
            {"type": "record", "name": "Order", "namespace": "shop", "fields": [
              {"name": "id", "type": "int"},
              {"name": "amount", "type": "string"},
              {"name": "customer", "type": "string"}]}""");

    private final StubRegistry stub = newStub();
    private final SchemaRegistryClient registry = SchemaRegistryClient.builder(stub.url())
            .backoff(Duration.ofMillis(5), Duration.ofMillis(10))
            .build();

    private static StubRegistry newStub() {
        try {
            return new StubRegistry().put(1, V1).put(2, INCOMPATIBLE);
        } catch (java.io.IOException e) {
            throw new java.io.UncheckedIOException(e);
        }
    }

    @AfterEach
    void stop() {
        stub.close();
    }

    private static byte[] v1(int id, float amount, String customer) {
        GenericData.Record r = new GenericData.Record(V1);
        r.put("id", id);
        r.put("amount", amount);
        r.put("customer", customer);
        r.put("legacy", List.of("x", "y"));
        return AvroWireFormat.confluent(1, V1, r);
    }

    private GenericRecord decode(boolean fastPath, byte[] payload) throws Exception {
        return Fixtures.decode(
                        AvroDeserializer.generic(READER)
                                .confluent(registry)
                                .fastPath(fastPath)
                                .build(),
                        payload)
                .get(0);
    }

    @ParameterizedTest(name = "fastPath={0}")
    @ValueSource(booleans = {true, false})
    void anAddedFieldTakesItsDefault(boolean fastPath) throws Exception {
        assertThat(decode(fastPath, v1(1, 2.5f, "ann")).get("currency")).hasToString("EUR");
    }

    @ParameterizedTest(name = "fastPath={0}")
    @ValueSource(booleans = {true, false})
    void aRemovedFieldIsSkipped(boolean fastPath) throws Exception {
        GenericRecord r = decode(fastPath, v1(1, 2.5f, "ann"));
        assertThat(r.hasField("legacy")).isFalse();
        assertThat(r.get("buyer")).hasToString("ann");
    }

    @ParameterizedTest(name = "fastPath={0}")
    @ValueSource(booleans = {true, false})
    void intPromotesToLongAndFloatToDouble(boolean fastPath) throws Exception {
        GenericRecord r = decode(fastPath, v1(Integer.MIN_VALUE, 0.1f, "ann"));
        assertThat(r.get("id")).isEqualTo((long) Integer.MIN_VALUE);
        assertThat(r.get("amount")).isEqualTo((double) 0.1f);
    }

    @ParameterizedTest(name = "fastPath={0}")
    @ValueSource(booleans = {true, false})
    void aRenamedFieldIsFoundThroughItsAlias(boolean fastPath) throws Exception {
        assertThat(decode(fastPath, v1(1, 1f, "renamed")).get("buyer")).hasToString("renamed");
    }

    @ParameterizedTest(name = "fastPath={0}")
    @ValueSource(booleans = {true, false})
    void anIncompatibleChangeNamesBothSchemasAndTheField(boolean fastPath) {
        GenericData.Record r = new GenericData.Record(INCOMPATIBLE);
        r.put("id", 1);
        r.put("amount", "12.50");
        r.put("customer", "ann");
        DeserializationException e = catchThrowableOfType(
                DeserializationException.class, () -> decode(fastPath, AvroWireFormat.confluent(2, INCOMPATIBLE, r)));
        assertThat(e.schemaId()).isEqualTo(2);
        assertThat(e.reason())
                .contains(
                        "writer schema id 2 (shop.Order)",
                        "reader schema shop.Order",
                        "TYPE_MISMATCH",
                        "/fields/1/type");
    }

    @Test
    void theFastPathHandlesGeneratedClassesLikeSpecificDatumReader() throws Exception {
        SpecificData model = SpecificData.getForClass(TestOrder.class);
        GeneratedClassTrust.trust(TestOrder.class);
        Schema schema = TestOrder.getClassSchema();
        BodyDecoder<TestOrder> fast = new BodyDecoder.Fast<>(FastDecoderCompiler.compile(schema, schema, model));
        SpecificDatumReader<TestOrder> avro = new SpecificDatumReader<>(schema, schema, model);
        RandomData random = new RandomData(42);
        TestOrder reused = null;
        for (int i = 0; i < 200; i++) {
            byte[] body = AvroWireFormat.raw(schema, random.record(schema));
            TestOrder expected = avro.read(null, DecoderFactory.get().binaryDecoder(body, null));
            reused = fast.decode(body, 0, body.length, reused);
            assertThat(reused).isInstanceOf(TestOrder.class).isEqualTo(expected);
        }
    }
}
