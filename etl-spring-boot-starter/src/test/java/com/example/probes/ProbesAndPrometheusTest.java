package com.example.probes;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import dev.etl.test.capture.CaptureSink;
import dev.etl.test.memory.MemorySource;
import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.NetworkInterface;
import java.net.Socket;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.Collections;
import org.junit.jupiter.api.Test;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.health.actuate.endpoint.HealthEndpointGroup;
import org.springframework.boot.health.actuate.endpoint.HealthEndpointGroups;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.boot.test.context.SpringBootTest.WebEnvironment;
import org.springframework.boot.test.web.server.LocalServerPort;

/** Probes and the scrape endpoint over HTTP, on a real server with the full auto-configuration. */
@SpringBootTest(
        webEnvironment = WebEnvironment.RANDOM_PORT,
        properties = {
            "management.endpoints.web.exposure.include=health,prometheus",
            "management.endpoint.health.show-details=always",
            "etl.pipeline.name=probes",
            "etl.checkpoint.interval=50ms",
            "etl.pipeline.poll-timeout=20ms",
            "etl.checkpoint.drain-timeout=5s",
            "etl.pipeline.exit-on-failure=false",
            "etl.metrics.tags.env=test"
        })
class ProbesAndPrometheusTest {

    private final HttpClient http =
            HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();

    @LocalServerPort
    private int port;

    @Autowired
    private MemorySource source;

    @Autowired
    private CaptureSink sink;

    @Autowired
    private HealthEndpointGroups groups;

    @Test
    void livenessAndReadinessGroupsIncludeThePipeline() throws Exception {
        HealthEndpointGroup liveness = this.groups.get("liveness");
        assertThat(liveness.isMember("livenessState")).isTrue();
        assertThat(liveness.isMember("etl/liveness")).isTrue();
        assertThat(liveness.isMember("etl/readiness")).isFalse();
        HealthEndpointGroup readiness = this.groups.get("readiness");
        assertThat(readiness.isMember("readinessState")).isTrue();
        assertThat(readiness.isMember("etl/readiness")).isTrue();
        assertThat(readiness.isMember("etl/liveness")).isFalse();

        awaitStatus("/actuator/health/readiness", 200);
        assertThat(get("/actuator/health/liveness").statusCode()).isEqualTo(200);
        assertThat(get("/actuator/health").body())
                .contains("\"etl\"", "\"liveness\"", "\"readiness\"", "\"RUNNING\"", "\"watermarkAgeSeconds\"");
    }

    @Test
    void healthzAndReadyzAreServedOnTheMainPort() throws Exception {
        awaitStatus("/readyz", 200);
        HttpResponse<String> healthz = get("/healthz");
        assertThat(healthz.statusCode()).isEqualTo(200);
        assertThat(healthz.body()).contains("\"status\":\"UP\"");
    }

    @Test
    void prometheusExportsEngineMetersUnderTheDocumentedNames() throws Exception {
        this.source.handle().assign(0, 0);
        long offset = this.source.handle().push(0, "k".getBytes(), "v".getBytes());
        assertThat(this.source.handle().awaitCommitted(0, offset + 1, Duration.ofSeconds(20)))
                .isTrue();
        HttpResponse<String> scrape = get("/actuator/prometheus");
        assertThat(scrape.statusCode()).isEqualTo(200);
        assertThat(scrape.body())
                .contains(
                        "etl_pipeline_state{env=\"test\",pipeline=\"probes\"} 1",
                        "etl_checkpoint_watermark_age_seconds{",
                        "etl_sink_rows_total{",
                        "etl_pipeline_lanes_alive{",
                        "etl_sink_abandoned_batches_total{",
                        "etl_checkpoint_commits_total{",
                        "etl_sink_write_duration_seconds");
        assertThat(this.sink.script().rows()).isEqualTo(1);
    }

    @Test
    void listensOnLoopbackOnly() throws Exception {
        assertThat(get("/healthz").statusCode()).isEqualTo(200);
        InetAddress external = nonLoopbackAddress();
        assumeTrue(external != null, "this host has no non-loopback address to try");
        try (Socket socket = new Socket()) {
            assertThatThrownBy(() -> socket.connect(new InetSocketAddress(external, this.port), 2000))
                    .as("port %d reachable on %s", this.port, external)
                    .isInstanceOf(IOException.class);
        }
    }

    /** An address of this host other than loopback (and link-local), or null. */
    static InetAddress nonLoopbackAddress() throws IOException {
        for (NetworkInterface nic : Collections.list(NetworkInterface.getNetworkInterfaces())) {
            if (!nic.isUp() || nic.isLoopback()) {
                continue;
            }
            for (InetAddress address : Collections.list(nic.getInetAddresses())) {
                if (!address.isLoopbackAddress() && !address.isLinkLocalAddress()) {
                    return address;
                }
            }
        }
        return null;
    }

    private void awaitStatus(String path, int status) throws Exception {
        long deadline = System.nanoTime() + Duration.ofSeconds(20).toNanos();
        while (get(path).statusCode() != status && System.nanoTime() < deadline) {
            Thread.sleep(20);
        }
        assertThat(get(path).statusCode()).as(path).isEqualTo(status);
    }

    private HttpResponse<String> get(String path) throws Exception {
        HttpRequest request = HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + this.port + path))
                .timeout(Duration.ofSeconds(10))
                .build();
        return this.http.send(request, HttpResponse.BodyHandlers.ofString());
    }
}
