package dev.etl.it.kafka;

import static dev.etl.it.kafka.KafkaItSupport.pipeline;
import static dev.etl.it.kafka.KafkaItSupport.pipelineConfig;
import static dev.etl.it.kafka.KafkaItSupport.sourceConfig;
import static dev.etl.it.support.Eventually.await;
import static org.assertj.core.api.Assertions.assertThat;

import dev.etl.kafka.KafkaSource;
import dev.etl.pipeline.PipelineRuntime;
import dev.etl.pipeline.PipelineState;
import dev.etl.test.capture.CaptureSink;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.time.Duration;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * A source whose bootstrap servers do not answer (a closed port on 127.0.0.1): the pipeline keeps
 * running (the client retries), is not ready, and every lane reports
 * {@code etl_source_broker_unreachable=1} (and logs a WARN naming the servers) once
 * {@code unreachableAfter} has passed.
 */
class KafkaUnreachableIT {

    @Test
    @Timeout(value = 60, unit = TimeUnit.SECONDS)
    void unreachableBrokersSetTheGaugeOnEveryLaneAndThePipelineStaysUpButNotReady() throws Exception {
        int port;
        try (ServerSocket socket = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
            port = socket.getLocalPort();
        }
        String bootstrap = "127.0.0.1:" + port;
        SimpleMeterRegistry registry = new SimpleMeterRegistry();
        KafkaSource source =
                new KafkaSource(sourceConfig(bootstrap, "it-unreachable", "nowhere", registry, "unreachable")
                        .property("reconnect.backoff.max.ms", 500)
                        .unreachableAfter(Duration.ofSeconds(2))
                        .build());
        PipelineRuntime runtime = pipeline(
                pipelineConfig("unreachable", 2).build(),
                source,
                CaptureSink.create("capture", 1).definition(),
                (v, m, s) -> 0,
                registry);
        runtime.start();
        try {
            await(
                    Duration.ofSeconds(30),
                    "both lanes to report the brokers unreachable",
                    () -> registry.find("etl.source.broker.unreachable").gauges().stream()
                                    .filter(g -> g.value() == 1)
                                    .count()
                            == 2);
            assertThat(runtime.state()).isEqualTo(PipelineState.RUNNING);
            assertThat(runtime.isReady()).isFalse();
            for (Gauge gauge : registry.find("etl.source.broker.unreachable").gauges()) {
                assertThat(gauge.getId().getTag("pipeline")).isEqualTo("unreachable");
            }
        } finally {
            runtime.shutdown();
            runtime.awaitTermination(Duration.ofSeconds(30));
        }
    }
}
