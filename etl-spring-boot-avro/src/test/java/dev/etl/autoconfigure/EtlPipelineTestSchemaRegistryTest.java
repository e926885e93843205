package dev.etl.autoconfigure;

import static org.assertj.core.api.Assertions.assertThat;

import dev.etl.autoconfigure.avro.SchemaRegistryAutoConfiguration;
import dev.etl.autoconfigure.avro.SchemaRegistryConnectionDetails;
import dev.etl.avro.SchemaRegistryClient;
import dev.etl.test.autoconfigure.EtlPipelineTestAutoConfiguration;
import dev.etl.test.avro.StubSchemaRegistry;
import org.junit.jupiter.api.Test;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;

/**
 * {@code @EtlPipelineTest}'s stub registry together with {@link SchemaRegistryAutoConfiguration}, as the
 * slice imports them: the stub stands in for a registry configured by URL, and gives way to connection
 * details the test declares.
 */
class EtlPipelineTestSchemaRegistryTest {

    private final ApplicationContextRunner runner = new ApplicationContextRunner()
            .withConfiguration(AutoConfigurations.of(
                    EtlPipelineTestAutoConfiguration.class, SchemaRegistryAutoConfiguration.class));

    @Test
    void stubStandsInForTheRegistryConfiguredByUrl() {
        this.runner
                .withPropertyValues("etl.avro.registry.url=http://127.0.0.1:18081/apis/ccompat/v7")
                .run((context) -> assertThat(context)
                        .hasSingleBean(SchemaRegistryClient.class)
                        .getBean(SchemaRegistryClient.class)
                        .extracting(SchemaRegistryClient::baseUrl)
                        .isEqualTo(context.getBean(StubSchemaRegistry.class).url()));
    }

    @Test
    void connectionDetailsOfTheTestsOwnReplaceTheStub() {
        this.runner
                .withPropertyValues("etl.avro.registry.check-on-startup=false")
                .withBean(SchemaRegistryConnectionDetails.class, () -> () -> "http://registry.internal:8081")
                .run((context) -> assertThat(context)
                        .doesNotHaveBean(StubSchemaRegistry.class)
                        .getBean(SchemaRegistryClient.class)
                        .extracting(SchemaRegistryClient::baseUrl)
                        .isEqualTo("http://registry.internal:8081"));
    }
}
