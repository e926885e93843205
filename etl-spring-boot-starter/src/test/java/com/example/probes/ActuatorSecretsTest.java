package com.example.probes;

import static org.assertj.core.api.Assertions.assertThat;

import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import org.junit.jupiter.api.Test;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.boot.test.context.SpringBootTest.WebEnvironment;
import org.springframework.boot.test.web.server.LocalServerPort;

/**
 * Secrets stay masked in {@code /actuator/env} and {@code /actuator/configprops} even with
 * {@code show-values=always} (an operator debugging the configuration): the keys that name a secret,
 * in property and environment-variable form, and the password of URL user info in other values. The
 * non-secret values next to them are shown, so the endpoints do show values here.
 */
@SpringBootTest(
        webEnvironment = WebEnvironment.RANDOM_PORT,
        properties = {
            "management.endpoints.web.exposure.include=env,configprops",
            "management.endpoint.env.show-values=always",
            "management.endpoint.configprops.show-values=always",
            "etl.pipeline.exit-on-failure=false",
            "etl.pipeline.poll-timeout=20ms",
            "etl.sink.clickhouse.username=etl-writer",
            "etl.sink.clickhouse.password=ch-hunter2",
            "etl.avro.registry.username=etl-reader",
            "etl.avro.registry.password=registry-hunter2",
            "spring.kafka.properties[sasl.jaas.config]=org.apache.kafka.common.security.scram.ScramLoginModule "
                    + "required username=\"etl\" password=\"scram-hunter2\";",
            "spring.kafka.properties[sasl.mechanism]=SCRAM-SHA-512",
            "spring.kafka.ssl.trust-store-password=truststore-hunter2",
            "ETL_SINK_CLICKHOUSE_PASSWORD=env-hunter2",
            "app.upstream=https://svc:url-hunter2@upstream.internal:8443/v1"
        })
class ActuatorSecretsTest {

    private final HttpClient http =
            HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();

    @LocalServerPort
    private int port;

    @Test
    void envShowsNoSecretButTheValuesAroundThem() throws Exception {
        String env = get("/actuator/env");
        assertThat(env)
                .doesNotContain("hunter2")
                .contains(
                        "etl-writer",
                        "etl-reader",
                        "SCRAM-SHA-512",
                        "https://svc:******@upstream.internal:8443/v1",
                        "\"etl.sink.clickhouse.password\"",
                        "\"ETL_SINK_CLICKHOUSE_PASSWORD\"",
                        "******");
        assertThat(get("/actuator/env/etl.sink.clickhouse.password"))
                .doesNotContain("hunter2")
                .contains("******");
    }

    @Test
    void configpropsShowsNoSecretButTheValuesAroundThem() throws Exception {
        String configprops = get("/actuator/configprops");
        assertThat(configprops)
                .doesNotContain("hunter2")
                .contains("etl-reader", "SCRAM-SHA-512", "\"sasl.jaas.config\"", "\"trustStorePassword\"", "******");
    }

    private String get(String path) throws Exception {
        HttpRequest request = HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + this.port + path))
                .timeout(Duration.ofSeconds(10))
                .build();
        HttpResponse<String> response = this.http.send(request, HttpResponse.BodyHandlers.ofString());
        assertThat(response.statusCode()).as(path).isEqualTo(200);
        return response.body();
    }
}
