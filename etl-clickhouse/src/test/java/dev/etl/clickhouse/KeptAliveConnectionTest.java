package dev.etl.clickhouse;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowableOfType;

import dev.etl.error.SinkWriteException;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.time.Duration;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * Both transports against {@link KeepAliveRaceReplica}: a request that goes out on a kept-alive connection
 * as the server closes it (ClickHouse's {@code keep_alive_timeout}) costs the sink nothing visible — no
 * failed attempt, no breaker strike, no transient-failure count, no engine retry with its backoff and
 * warning. Before, the writer failed the attempt transiently ({@code IO: HTTP/1.1 header parser received
 * no bytes} through raw HTTP; {@code NoHttpResponseException}, or {@code SocketException: Broken pipe}
 * for a large body, through client-v2), which the same race against a real 18.16 server reproduced.
 */
class KeptAliveConnectionTest {
    private static final long IDLE_CLOSE_MS = 200;

    private final SimpleMeterRegistry registry = new SimpleMeterRegistry();

    private static ClickHouseSinkConfig config(KeepAliveRaceReplica replica, ClickHouseSinkConfig.Transport kind) {
        return ClickHouseSinkConfig.builder()
                .table("shop", "orders")
                .shard(replica.uri())
                .transport(kind)
                .socketTimeout(Duration.ofMillis(1_500))
                .build();
    }

    private static ClickHouseTransport transport(ClickHouseSinkConfig config) {
        return config.transport() == ClickHouseSinkConfig.Transport.HTTP
                ? ClickHouseHttpTransport.of(config)
                : ClickHouseClientV2Transport.of(config);
    }

    private ClickHouseShardWriter writer(ClickHouseSinkConfig config, ClickHouseTransport transport) {
        return new ClickHouseShardWriter(
                config,
                0,
                "orders",
                "p1",
                ClickHouseCapabilities.legacy("18.16.1"),
                transport,
                registry,
                System::nanoTime);
    }

    private static TestBatch batch(long sequence, int bytes) {
        return new TestBatch("orders", 0, sequence, new byte[bytes], bytes, bytes / 8, "tok-" + sequence, 1);
    }

    private double inserts(KeepAliveRaceReplica replica, String outcome) {
        return registry.get("etl.clickhouse.inserts")
                .tag("replica", ClickHouseShardWriter.describe(replica.uri()))
                .tag("outcome", outcome)
                .counter()
                .count();
    }

    @ParameterizedTest(name = "{0}, {1} bytes")
    @CsvSource({"HTTP, 24", "HTTP, 4194304", "CLIENT_V2, 24", "CLIENT_V2, 4194304"})
    @Timeout(value = 60, unit = TimeUnit.SECONDS)
    void anInsertOnAConnectionTheServerClosedCostsNothing(ClickHouseSinkConfig.Transport kind, int bytes)
            throws Exception {
        try (KeepAliveRaceReplica replica = new KeepAliveRaceReplica(IDLE_CLOSE_MS)) {
            ClickHouseSinkConfig config = config(replica, kind);
            try (ClickHouseTransport transport = transport(config)) {
                ClickHouseShardWriter writer = writer(config, transport);
                writer.write(batch(0, bytes));
                Thread.sleep(IDLE_CLOSE_MS + 100); // the server's keep-alive timer runs out as the next insert goes out
                writer.write(batch(1, bytes));

                assertThat(replica.closedUnanswered())
                        .as("inserts that met the server's close")
                        .isEqualTo(1);
                assertThat(replica.answered()).isEqualTo(2);
                assertThat(inserts(replica, "transient"))
                        .as("transient failures")
                        .isZero();
                assertThat(inserts(replica, "success")).isEqualTo(2);
                assertThat(writer.replicaStatus().get(0).consecutiveFailures())
                        .as("breaker strikes")
                        .isZero();
            }
        }
    }

    @ParameterizedTest
    @CsvSource({"HTTP", "CLIENT_V2"})
    @Timeout(value = 60, unit = TimeUnit.SECONDS)
    void anInsertIsSentAtMostTwiceAndThenFailsTransiently(ClickHouseSinkConfig.Transport kind) throws Exception {
        try (KeepAliveRaceReplica replica = new KeepAliveRaceReplica(IDLE_CLOSE_MS)) {
            replica.closeEveryRequest();
            ClickHouseSinkConfig config = config(replica, kind);
            try (ClickHouseTransport transport = transport(config)) {
                SinkWriteException e = catchThrowableOfType(
                        SinkWriteException.class,
                        () -> writer(config, transport).write(batch(0, 24)));
                assertThat(e.isTransient()).isTrue();
                assertThat(e).hasMessageContaining("connection failed");
                assertThat(replica.requests()).isEqualTo(2);
                assertThat(inserts(replica, "transient")).isEqualTo(1);
            }
        }
    }

    @ParameterizedTest
    @CsvSource({"HTTP", "CLIENT_V2"})
    @Timeout(value = 60, unit = TimeUnit.SECONDS)
    void anInsertWithoutAnAnswerInTheSocketTimeoutIsNotSentAgain(ClickHouseSinkConfig.Transport kind) throws Exception {
        try (KeepAliveRaceReplica replica = new KeepAliveRaceReplica(IDLE_CLOSE_MS)) {
            replica.neverAnswer();
            ClickHouseSinkConfig config = config(replica, kind);
            try (ClickHouseTransport transport = transport(config)) {
                SinkWriteException e = catchThrowableOfType(
                        SinkWriteException.class,
                        () -> writer(config, transport).write(batch(0, 24)));
                assertThat(e.isTransient()).isTrue();
                assertThat(e).hasMessageContaining("no answer within the socket timeout");
                Thread.sleep(300);
                assertThat(replica.requests()).isEqualTo(1);
            }
        }
    }

    @Test
    @Timeout(value = 60, unit = TimeUnit.SECONDS)
    void aQueryOnAConnectionTheServerClosedIsAnswered() throws Exception {
        try (KeepAliveRaceReplica replica = new KeepAliveRaceReplica(IDLE_CLOSE_MS)) {
            replica.answer(200, "18.16.1\n", "");
            try (ClickHouseHttpTransport transport =
                    new ClickHouseHttpTransport(Duration.ofSeconds(2), Duration.ofSeconds(5), null, null, false)) {
                assertThat(transport.query(replica.uri(), "SELECT version()")).isEqualTo("18.16.1\n");
                Thread.sleep(IDLE_CLOSE_MS + 100);
                assertThat(transport.query(replica.uri(), "SELECT version()")).isEqualTo("18.16.1\n");
                assertThat(replica.closedUnanswered()).isEqualTo(1);
            }
        }
    }
}
