package dev.etl.deploy;

import static org.assertj.core.api.Assertions.assertThat;

import dev.etl.deser.Deserializer;
import dev.etl.error.ErrorPolicy;
import dev.etl.ops.ChainFactory;
import dev.etl.ops.Chains;
import dev.etl.sink.KeyHashRouter;
import dev.etl.sink.SinkDefinition;
import dev.etl.test.capture.CaptureSink;
import dev.etl.test.capture.TestEncoders;
import dev.etl.test.memory.MemorySource;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Path;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.springframework.boot.autoconfigure.SpringBootApplication;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.boot.env.YamlPropertySourceLoader;
import org.springframework.boot.web.server.context.WebServerApplicationContext;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.context.annotation.Bean;
import org.springframework.core.env.EnumerablePropertySource;
import org.springframework.core.env.PropertySource;
import org.springframework.core.io.FileSystemResource;

/**
 * The paths the manifests probe and scrape are served: an application with the starter (a memory source and
 * a capture sink in place of Kafka and ClickHouse) and the sample's {@code server.*} and {@code management.*}
 * settings answers the liveness and readiness paths with 200 or 503 (never 404) and the scrape path with the
 * pipeline's metrics.
 */
class ProbePathsTest {

    static final String LIVENESS = "/healthz";
    static final String READINESS = "/readyz";
    static final String PROMETHEUS = "/actuator/prometheus";

    @SpringBootApplication
    static class App {

        @Bean
        MemorySource memorySource() {
            return MemorySource.create();
        }

        @Bean
        CaptureSink captureSink() {
            return CaptureSink.create("clickhouse", 2);
        }

        @Bean
        SinkDefinition clickhouse(CaptureSink sink) {
            return sink.definition();
        }

        @Bean
        ChainFactory passThrough() {
            return (ctx) -> Chains.from(ctx, Deserializer.bytes(), ErrorPolicy.SKIP)
                    .sink(TestEncoders.bytes(), KeyHashRouter.byRecordKey());
        }
    }

    @Test
    void theProbesAndTheScrapeAreServedOnTheApplicationsPort() throws Exception {
        Map<String, Object> properties = new LinkedHashMap<>();
        Path yaml = DeployManifestsTest.SAMPLE_CONFIG.resolve("application.yaml");
        for (PropertySource<?> source :
                new YamlPropertySourceLoader().load(yaml.toString(), new FileSystemResource(yaml))) {
            for (String name : ((EnumerablePropertySource<?>) source).getPropertyNames()) {
                if (name.startsWith("server.") || name.startsWith("management.")) {
                    properties.put(name, source.getProperty(name));
                }
            }
        }
        assertThat(properties).containsKey("management.endpoints.web.exposure.include");
        properties.put("server.port", "0");
        properties.put("server.address", "127.0.0.1");
        properties.put("spring.application.name", "orders-etl");
        properties.put("etl.pipeline.exit-on-failure", "false");
        try (ConfigurableApplicationContext context =
                new SpringApplicationBuilder(App.class).properties(properties).run()) {
            int port = ((WebServerApplicationContext) context).getWebServer().getPort();
            HttpClient http = HttpClient.newBuilder()
                    .connectTimeout(Duration.ofSeconds(5))
                    .build();
            for (String path : new String[] {LIVENESS, READINESS}) {
                HttpResponse<String> response = get(http, port, path);
                assertThat(response.statusCode()).as("GET %s", path).isIn(200, 503);
                assertThat(response.body()).as("GET %s", path).contains("\"status\"");
            }
            HttpResponse<String> scrape = get(http, port, PROMETHEUS);
            assertThat(scrape.statusCode()).as("GET %s", PROMETHEUS).isEqualTo(200);
            assertThat(scrape.body()).contains("etl_pipeline_state{").contains("pipeline=\"orders-etl\"");
        }
    }

    private static HttpResponse<String> get(HttpClient http, int port, String path) throws Exception {
        return http.send(
                HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + path))
                        .timeout(Duration.ofSeconds(10))
                        .build(),
                HttpResponse.BodyHandlers.ofString());
    }
}
