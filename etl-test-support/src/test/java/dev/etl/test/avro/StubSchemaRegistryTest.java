package dev.etl.test.avro;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatIllegalArgumentException;
import static org.assertj.core.api.Assertions.catchThrowableOfType;
import static org.assertj.core.api.Assertions.tuple;

import dev.etl.avro.RegisteredSchema;
import dev.etl.avro.SchemaRegistryClient;
import dev.etl.avro.SchemaRegistryException;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import org.apache.avro.Schema;
import org.apache.avro.SchemaBuilder;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/** The stub, as the engine's real {@link SchemaRegistryClient} sees it. */
class StubSchemaRegistryTest {

    private static final Schema V1 = SchemaBuilder.record("Order")
            .namespace("com.example")
            .fields()
            .requiredLong("id")
            .endRecord();

    private static final Schema V2 = SchemaBuilder.record("Order")
            .namespace("com.example")
            .fields()
            .requiredLong("id")
            .optionalString("coupon")
            .endRecord();

    private final StubSchemaRegistry registry = StubSchemaRegistry.start();

    @AfterEach
    void close() {
        this.registry.close();
    }

    @Test
    void servesASchemaPutUnderAnId() {
        assertThat(this.registry.put(42, V1)).isEqualTo(42);

        assertThat(client().schemaById(42)).isEqualTo(V1);
    }

    @Test
    void answersAnUnknownIdWith404AndError40403() {
        SchemaRegistryException ex = catchThrowableOfType(SchemaRegistryException.class, () -> client().schemaById(7));

        assertThat(ex.notFound()).isTrue();
        assertThat(ex.httpStatus()).isEqualTo(404);
        assertThat(ex.errorCode()).isEqualTo(SchemaRegistryException.SCHEMA_NOT_FOUND);
    }

    @Test
    void registersThroughTheClientAndServesTheIdToAnotherClient() {
        int id = client().register("orders-value", V1);

        assertThat(client().schemaById(id)).isEqualTo(V1);
        assertThat(this.registry.register("orders-value", V1))
                .as("same schema, same id")
                .isEqualTo(id);
    }

    @Test
    void keepsOneIdPerSchemaAcrossSubjectsAndOneVersionPerSchemaInASubject() {
        int v1 = this.registry.register("orders-value", V1);
        int v2 = this.registry.register("orders-value", V2);

        assertThat(this.registry.register("orders-value", V1)).isEqualTo(v1);
        assertThat(this.registry.register("archive-value", V1)).isEqualTo(v1);
        assertThat(v2).isNotEqualTo(v1);
        assertThat(client().warm("orders-value"))
                .extracting(RegisteredSchema::version, RegisteredSchema::id)
                .containsExactly(tuple(1, v1), tuple(2, v2));
    }

    @Test
    void registersAboveEveryIdPut() {
        this.registry.put(100, V1);

        assertThat(this.registry.register("orders-value", V2)).isEqualTo(101);
        assertThat(this.registry.register("orders-value", V1))
                .as("a put schema keeps its id")
                .isEqualTo(100);
    }

    @Test
    void refusesToRebindAnIdToAnotherSchema() {
        this.registry.put(1, V1);

        assertThat(this.registry.put(1, V1)).isEqualTo(1);
        assertThatIllegalArgumentException()
                .isThrownBy(() -> this.registry.put(1, V2))
                .withMessageContaining("schema id 1 is already bound");
    }

    @Test
    void looksASchemaUpUnderItsSubject() {
        this.registry.register("orders-value", V1);
        int v2 = this.registry.register("orders-value", V2);

        assertThat(client().lookup("orders-value", V2)).isEqualTo(new RegisteredSchema("orders-value", v2, 2, V2));
    }

    @Test
    void answersLookupsOfUnknownSubjectsAndSchemasWithTheirErrorCodes() {
        this.registry.register("orders-value", V1);
        this.registry.put(9, V2);

        assertThat(catchThrowableOfType(SchemaRegistryException.class, () -> client().lookup("nope", V1))
                        .errorCode())
                .isEqualTo(SchemaRegistryException.SUBJECT_NOT_FOUND);
        assertThat(catchThrowableOfType(SchemaRegistryException.class, () -> client().lookup("orders-value", V2))
                        .errorCode())
                .as("known id, but not under this subject")
                .isEqualTo(SchemaRegistryException.SCHEMA_NOT_FOUND);
    }

    @Test
    void servesTheLatestVersionOfASubject() {
        this.registry.register("orders-value", V1);
        int v2 = this.registry.register("orders-value", V2);

        assertThat(client().latest("orders-value")).isEqualTo(new RegisteredSchema("orders-value", v2, 2, V2));
        SchemaRegistryException ex = catchThrowableOfType(SchemaRegistryException.class, () -> client().latest("nope"));
        assertThat(ex.notFound()).isTrue();
        assertThat(ex.errorCode()).isEqualTo(SchemaRegistryException.SUBJECT_NOT_FOUND);
    }

    @Test
    void decodesSubjectsTheClientPercentEncodes() {
        String subject = "orders value/v+1";
        int id = client().register(subject, V1);

        assertThat(client().latest(subject)).isEqualTo(new RegisteredSchema(subject, id, 1, V1));
    }

    @Test
    void countsRequestsSoATestSeesTheClientsCache() {
        this.registry.put(1, V1);
        SchemaRegistryClient client = client();

        client.schemaById(1);
        client.schemaById(1);

        assertThat(this.registry.requests()).isEqualTo(1);
    }

    @Test
    void answersInvalidSchemasAndUnknownPathsAsTheRegistryDoes() throws Exception {
        HttpResponse<String> invalid = send("POST", "/subjects/orders-value/versions", "{\"schema\": \"{nope\"}");
        HttpResponse<String> protobuf = send(
                "POST",
                "/subjects/orders-value/versions",
                "{\"schema\": \"syntax = \\\"proto3\\\";\", \"schemaType\": \"PROTOBUF\"}");
        HttpResponse<String> unknownPath = send("GET", "/config", null);
        HttpResponse<String> wrongMethod = send("DELETE", "/schemas/ids/1", null);

        assertThat(invalid.statusCode()).isEqualTo(422);
        assertThat(invalid.body()).contains("\"error_code\":42201");
        assertThat(invalid.headers().firstValue("Content-Type")).hasValue("application/vnd.schemaregistry.v1+json");
        assertThat(protobuf.statusCode()).isEqualTo(422);
        assertThat(unknownPath.statusCode()).isEqualTo(404);
        assertThat(unknownPath.body()).contains("\"error_code\":404");
        assertThat(wrongMethod.statusCode()).isEqualTo(405);
        assertThat(this.registry.requests()).isEqualTo(4);
    }

    @Test
    void stopsServingWhenClosed() {
        this.registry.put(1, V1);
        this.registry.close();
        this.registry.close();

        SchemaRegistryException ex = catchThrowableOfType(
                SchemaRegistryException.class,
                () -> SchemaRegistryClient.builder(this.registry.url())
                        .maxAttempts(1)
                        .callTimeout(Duration.ofSeconds(2))
                        .build()
                        .schemaById(1));

        assertThat(ex.httpStatus()).as("no answer").isEqualTo(-1);
    }

    @Test
    void listensOnAnEphemeralLoopbackPort() {
        try (StubSchemaRegistry other = StubSchemaRegistry.start()) {
            assertThat(this.registry.url()).startsWith("http://127.0.0.1:").isNotEqualTo(other.url());
        }
    }

    private SchemaRegistryClient client() {
        return SchemaRegistryClient.builder(this.registry.url()).maxAttempts(1).build();
    }

    private HttpResponse<String> send(String method, String path, String body)
            throws IOException, InterruptedException {
        HttpRequest request = HttpRequest.newBuilder(URI.create(this.registry.url() + path))
                .method(
                        method,
                        body == null ? HttpRequest.BodyPublishers.noBody() : HttpRequest.BodyPublishers.ofString(body))
                .header("Content-Type", "application/vnd.schemaregistry.v1+json")
                .build();
        return HttpClient.newHttpClient().send(request, HttpResponse.BodyHandlers.ofString());
    }
}
