package dev.etl.test.autoconfigure;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowableOfType;

import dev.etl.avro.SchemaRegistryClient;
import dev.etl.avro.SchemaRegistryException;
import dev.etl.test.avro.StubSchemaRegistry;
import java.time.Duration;
import java.util.concurrent.atomic.AtomicReference;
import org.apache.avro.Schema;
import org.apache.avro.SchemaBuilder;
import org.junit.jupiter.api.Test;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;

/** The slice's schema-registry double; the back-off on connection details is tested with that type. */
class EtlPipelineTestAutoConfigurationTest {

    private static final Schema ORDER =
            SchemaBuilder.record("Order").fields().requiredLong("id").endRecord();

    private final ApplicationContextRunner runner = new ApplicationContextRunner()
            .withConfiguration(AutoConfigurations.of(EtlPipelineTestAutoConfiguration.class));

    @Test
    void providesAStubRegistryAndAClientPointedAtIt() {
        this.runner.run((context) -> {
            StubSchemaRegistry registry = context.getBean(StubSchemaRegistry.class);
            SchemaRegistryClient client = context.getBean(SchemaRegistryClient.class);
            int id = registry.register("orders-value", ORDER);

            assertThat(client.baseUrl()).isEqualTo(registry.url());
            assertThat(client.schemaById(id)).isEqualTo(ORDER);
        });
    }

    @Test
    void closesTheStubWithTheContext() {
        AtomicReference<String> url = new AtomicReference<>();
        this.runner.run(
                (context) -> url.set(context.getBean(StubSchemaRegistry.class).url()));

        SchemaRegistryException ex = catchThrowableOfType(
                SchemaRegistryException.class,
                () -> SchemaRegistryClient.builder(url.get())
                        .maxAttempts(1)
                        .callTimeout(Duration.ofSeconds(2))
                        .build()
                        .schemaById(1));
        assertThat(ex.httpStatus()).as("no answer").isEqualTo(-1);
    }

    @Test
    void aClientOfTheTestsOwnReplacesTheStub() {
        SchemaRegistryClient own =
                SchemaRegistryClient.builder("http://registry.test:8081").build();
        this.runner
                .withBean(SchemaRegistryClient.class, () -> own)
                .run((context) -> assertThat(context)
                        .doesNotHaveBean(StubSchemaRegistry.class)
                        .getBean(SchemaRegistryClient.class)
                        .isSameAs(own));
    }
}
