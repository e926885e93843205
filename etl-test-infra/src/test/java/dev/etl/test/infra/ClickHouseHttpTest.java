package dev.etl.test.infra;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Duration;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * {@link ClickHouseHttp} against {@link KeepAliveRaceServer}: a statement sent on a kept-alive connection
 * the server closed as the statement arrived (CI: {@code SYSTEM SYNC REPLICA} failed with {@code
 * IOException: HTTP/1.1 header parser received no bytes}) is answered on a new connection.
 */
class ClickHouseHttpTest {

    @Test
    @Timeout(value = 30, unit = TimeUnit.SECONDS)
    void aStatementOnAKeptAliveConnectionTheServerClosedIsSentAgainOnANewOne() throws Exception {
        try (KeepAliveRaceServer server = new KeepAliveRaceServer(200, "1\n")) {
            ClickHouseHttp http = new ClickHouseHttp(Duration.ofSeconds(2), Duration.ofSeconds(10));
            assertThat(http.execute(server.url(), "SELECT 1")).isEqualTo("1\n");
            Thread.sleep(300); // the server's keep-alive timer runs out as the next statement goes out
            assertThat(http.execute(server.url(), "SYSTEM SYNC REPLICA db.t")).isEqualTo("1\n");

            assertThat(server.closedUnanswered())
                    .as("statements that found the connection closed")
                    .isEqualTo(1);
            assertThat(server.connections())
                    .as("connections: the first, then a new one")
                    .isEqualTo(2);
            assertThat(server.requests()).isEqualTo(3);
        }
    }

    @Test
    @Timeout(value = 30, unit = TimeUnit.SECONDS)
    void aStatementIsSentAtMostTwice() throws Exception {
        try (KeepAliveRaceServer server = new KeepAliveRaceServer(200, "1\n")) {
            server.closeEveryRequest();
            ClickHouseHttp http = new ClickHouseHttp(Duration.ofSeconds(2), Duration.ofSeconds(10));
            assertThatThrownBy(() -> http.execute(server.url(), "SELECT 1"))
                    .isInstanceOf(ClickHouseHttpException.class)
                    .hasMessageContaining("cannot reach server");
            assertThat(server.requests()).isEqualTo(2);
        }
    }

    @Test
    @Timeout(value = 30, unit = TimeUnit.SECONDS)
    void aStatementThatTimesOutIsNotSentAgain() throws Exception {
        try (KeepAliveRaceServer server = new KeepAliveRaceServer(200, "1\n")) {
            server.neverAnswer();
            ClickHouseHttp http = new ClickHouseHttp(Duration.ofSeconds(2), Duration.ofMillis(300));
            assertThatThrownBy(() -> http.execute(server.url(), "INSERT INTO db.t VALUES (1)"))
                    .isInstanceOf(ClickHouseHttpException.class)
                    .hasMessageContaining("HttpTimeoutException");
            Thread.sleep(200);
            assertThat(server.requests()).isEqualTo(1);
        }
    }
}
