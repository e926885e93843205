package com.example.probes;

import static org.assertj.core.api.Assertions.assertThat;

import dev.etl.pipeline.PipelineRuntime;
import dev.etl.pipeline.PipelineState;
import dev.etl.test.capture.CaptureSink;
import dev.etl.test.memory.MemorySource;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import org.junit.jupiter.api.Test;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.boot.test.context.SpringBootTest.WebEnvironment;
import org.springframework.boot.test.web.server.LocalServerPort;

/** A failed pipeline answers 503 on both probes (the context is kept open here to observe it). */
@SpringBootTest(
        webEnvironment = WebEnvironment.RANDOM_PORT,
        properties = {
            "etl.checkpoint.interval=50ms",
            "etl.pipeline.poll-timeout=20ms",
            "etl.pipeline.exit-on-failure=false",
            "etl.pipeline.close-on-failure=false"
        })
class ProbesWhenFailedTest {

    private final HttpClient http = HttpClient.newHttpClient();

    @LocalServerPort
    private int port;

    @Autowired
    private MemorySource source;

    @Autowired
    private CaptureSink sink;

    @Autowired
    private PipelineRuntime runtime;

    @Test
    void failedPipelineFailsLivenessAndReadiness() throws Exception {
        assertThat(status("/healthz")).isEqualTo(200);
        this.sink.script().failNextPermanently(0, 1).failNextPermanently(1, 1);
        this.source.handle().assign(0, 0);
        this.source.handle().push(0, "k".getBytes(), "v".getBytes());
        long deadline = System.nanoTime() + Duration.ofSeconds(20).toNanos();
        while (this.runtime.state() != PipelineState.FAILED && System.nanoTime() < deadline) {
            Thread.sleep(20);
        }
        assertThat(this.runtime.state()).isEqualTo(PipelineState.FAILED);
        assertThat(status("/healthz")).isEqualTo(503);
        assertThat(status("/readyz")).isEqualTo(503);
        assertThat(status("/actuator/health/liveness")).isEqualTo(503);
        assertThat(status("/actuator/health/readiness")).isEqualTo(503);
    }

    private int status(String path) throws Exception {
        HttpRequest request = HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + this.port + path))
                .timeout(Duration.ofSeconds(10))
                .build();
        return this.http.send(request, HttpResponse.BodyHandlers.discarding()).statusCode();
    }
}
