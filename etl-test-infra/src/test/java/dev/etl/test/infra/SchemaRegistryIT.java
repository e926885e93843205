package dev.etl.test.infra;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.net.URI;
import java.net.URLEncoder;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Map;
import java.util.UUID;
import org.apache.avro.Schema;
import org.junit.jupiter.api.Test;

/**
 * The local schema registry speaks the Confluent REST API the Avro deserializer depends on:
 * register under a subject, fetch by id, and idempotent re-registration.
 */
@LocalInfra(InfraServer.REGISTRY)
class SchemaRegistryIT {

    private static final String CONTENT_TYPE = "application/vnd.schemaregistry.v1+json";

    private static final String ORDER_SCHEMA = """
            {"type": "record", "name": "Order", "namespace": "dev.etl.it",
             "fields": [
               {"name": "id", "type": "long"},
               {"name": "customer", "type": "string"},
               {"name": "amount", "type": "double"},
               {"name": "note", "type": ["null", "string"], "default": null}
             ]}""";

    private final HttpClient http =
            HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();
    private final ObjectMapper json = new ObjectMapper();

    @Test
    void registeredSchemaIsServedByIdAndReRegisteringKeepsTheId(InfraEndpoints endpoints) throws Exception {
        String subject = "registry-smoke-" + UUID.randomUUID() + "-value";
        String subjectPath =
                endpoints.registryUrl() + "/subjects/" + URLEncoder.encode(subject, StandardCharsets.UTF_8);
        Schema registered = new Schema.Parser().parse(ORDER_SCHEMA);
        try {
            int id = register(subjectPath, registered);

            JsonNode byId = send(HttpRequest.newBuilder(URI.create(endpoints.registryUrl() + "/schemas/ids/" + id))
                    .GET());
            Schema served = new Schema.Parser().parse(byId.get("schema").asText());
            assertThat(served).isEqualTo(registered);
            assertThat(served.getFullName()).isEqualTo("dev.etl.it.Order");

            assertThat(register(subjectPath, registered))
                    .as("id of the same schema registered again")
                    .isEqualTo(id);
        } finally {
            http.send(
                    HttpRequest.newBuilder(URI.create(subjectPath)).DELETE().build(),
                    HttpResponse.BodyHandlers.discarding());
        }
    }

    private int register(String subjectPath, Schema schema) throws Exception {
        String body = json.writeValueAsString(Map.of("schema", schema.toString()));
        JsonNode answer = send(HttpRequest.newBuilder(URI.create(subjectPath + "/versions"))
                .header("Content-Type", CONTENT_TYPE)
                .POST(HttpRequest.BodyPublishers.ofString(body)));
        assertThat(answer.has("id")).as("registration answer %s", answer).isTrue();
        return answer.get("id").asInt();
    }

    private JsonNode send(HttpRequest.Builder request) throws Exception {
        HttpRequest built = request.header("Accept", CONTENT_TYPE)
                .timeout(Duration.ofSeconds(30))
                .build();
        HttpResponse<String> response = http.send(built, HttpResponse.BodyHandlers.ofString());
        assertThat(response.statusCode())
                .as("%s %s answered %s", built.method(), built.uri(), response.body())
                .isEqualTo(200);
        return json.readTree(response.body());
    }
}
