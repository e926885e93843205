package dev.etl.it.avro;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowableOfType;

import dev.etl.avro.AvroDeserializer;
import dev.etl.avro.AvroWireFormat;
import dev.etl.avro.RegisteredSchema;
import dev.etl.avro.SchemaRegistryClient;
import dev.etl.avro.SchemaRegistryException;
import dev.etl.error.DeserializationException;
import dev.etl.internal.record.MutableRecordMeta;
import dev.etl.record.Payload;
import dev.etl.test.infra.InfraEndpoints;
import dev.etl.test.infra.InfraServer;
import dev.etl.test.infra.LocalInfra;
import java.net.URI;
import java.net.URLEncoder;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import org.apache.avro.Schema;
import org.apache.avro.generic.GenericData;
import org.apache.avro.generic.GenericRecord;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * The Avro connector against the real registry (Apicurio's Confluent-compatible API): register two
 * versions of a schema, frame records ourselves in the Confluent wire format, decode both versions
 * with the newer reader through a client that fetches the writer schemas by id.
 */
@LocalInfra(InfraServer.REGISTRY)
class AvroSchemaRegistryIT {
    private static final Schema V1 = new Schema.Parser().parse("""
            {"type": "record", "name": "Order", "namespace": "dev.etl.it.avro", "fields": [
              {"name": "id", "type": "long"},
              {"name": "customer", "type": "string"},
              {"name": "amount", "type": "double"}]}""");
    private static final Schema V2 = new Schema.Parser().parse("""
            {"type": "record", "name": "Order", "namespace": "dev.etl.it.avro", "fields": [
              {"name": "id", "type": "long"},
              {"name": "customer", "type": "string"},
              {"name": "amount", "type": "double"},
              {"name": "currency", "type": "string", "default": "EUR"}]}""");

    private final List<String> subjects = new ArrayList<>();
    private String registryUrl;

    @AfterEach
    void deleteSubjects() throws Exception {
        HttpClient http = HttpClient.newHttpClient();
        for (String subject : subjects) {
            http.send(
                    HttpRequest.newBuilder(URI.create(
                                    registryUrl + "/subjects/" + URLEncoder.encode(subject, StandardCharsets.UTF_8)))
                            .DELETE()
                            .build(),
                    HttpResponse.BodyHandlers.discarding());
        }
    }

    private String subject() {
        String subject = "avro-it-" + UUID.randomUUID() + "-value";
        subjects.add(subject);
        return subject;
    }

    @Test
    void recordsOfBothVersionsDecodeWithTheNewerReader(InfraEndpoints infra) throws Exception {
        registryUrl = infra.registryUrl();
        String subject = subject();
        SchemaRegistryClient producer =
                SchemaRegistryClient.builder(registryUrl).build();
        int v1 = producer.register(subject, V1);
        int v2 = producer.register(subject, V2);
        assertThat(v2).isNotEqualTo(v1);
        assertThat(producer.register(subject, V1))
                .as("re-registering keeps the id")
                .isEqualTo(v1);
        RegisteredSchema latest = producer.latest(subject);
        assertThat(latest.id()).isEqualTo(v2);
        assertThat(latest.version()).isEqualTo(2);
        assertThat(latest.schema()).isEqualTo(V2);
        assertThat(producer.lookup(subject, V1).id()).isEqualTo(v1);

        GenericData.Record old = new GenericData.Record(V1);
        old.put("id", 1L);
        old.put("customer", "ann");
        old.put("amount", 12.5);
        GenericData.Record current = new GenericData.Record(V2);
        current.put("id", 2L);
        current.put("customer", "bob");
        current.put("amount", 7.0);
        current.put("currency", "NOK");

        // A consumer with a cold cache: writer schemas come from the registry by id.
        SchemaRegistryClient consumer =
                SchemaRegistryClient.builder(registryUrl).build();
        AvroDeserializer<GenericRecord> deserializer =
                AvroDeserializer.generic(V2).confluent(consumer).build();
        List<String> decoded =
                decode(deserializer, AvroWireFormat.confluent(v1, V1, old), AvroWireFormat.confluent(v2, V2, current));
        assertThat(decoded)
                .containsExactly(
                        "{\"id\": 1, \"customer\": \"ann\", \"amount\": 12.5, \"currency\": \"EUR\"}",
                        "{\"id\": 2, \"customer\": \"bob\", \"amount\": 7.0, \"currency\": \"NOK\"}");
        assertThat(consumer.schemaById(v1)).isEqualTo(V1);

        SchemaRegistryClient warmed = SchemaRegistryClient.builder(registryUrl).build();
        assertThat(warmed.warm(subject)).extracting(RegisteredSchema::id).containsExactly(v1, v2);
    }

    @Test
    void anUnknownIdIsATypedErrorAndIsAnsweredFromTheNegativeCache(InfraEndpoints infra) throws Exception {
        registryUrl = infra.registryUrl();
        SchemaRegistryClient client = SchemaRegistryClient.builder(registryUrl)
                .notFoundTtl(Duration.ofMinutes(1))
                .build();
        int unknown = 2_000_000_000 + (int) (Math.random() * 100_000_000);

        SchemaRegistryException direct =
                catchThrowableOfType(SchemaRegistryException.class, () -> client.schemaById(unknown));
        assertThat(direct.notFound()).as("answer %s", direct.getMessage()).isTrue();

        AvroDeserializer<GenericRecord> deserializer =
                AvroDeserializer.generic(V2).confluent(client).build();
        GenericData.Record r = new GenericData.Record(V1);
        r.put("id", 1L);
        r.put("customer", "x");
        r.put("amount", 1.0);
        DeserializationException e = catchThrowableOfType(
                DeserializationException.class, () -> decode(deserializer, AvroWireFormat.confluent(unknown, V1, r)));
        assertThat(e.schemaId()).isEqualTo(unknown);
        assertThat(e.reason()).contains("unknown schema id " + unknown, "cached answer");
    }

    private static List<String> decode(AvroDeserializer<GenericRecord> deserializer, byte[]... payloads)
            throws Exception {
        List<String> out = new ArrayList<>();
        MutableRecordMeta meta = new MutableRecordMeta();
        Payload key = new Payload();
        Payload value = new Payload();
        long offset = 0;
        for (byte[] payload : payloads) {
            meta.set(0, offset++, -1, 0);
            deserializer.deserialize(key, value.wrap(payload), meta, v -> out.add(v.toString()));
        }
        return out;
    }
}
