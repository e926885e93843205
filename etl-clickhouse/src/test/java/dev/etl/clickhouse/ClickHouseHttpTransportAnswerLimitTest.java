package dev.etl.clickhouse;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowableOfType;

import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * What {@link ClickHouseHttpTransport} reads of an answer is bounded: a server that answers with a body
 * that never ends (here a chunked stream of digits) gets a clear failure once the limit is read, and the
 * connection is closed, where before the transport read it into one string until the heap ran out.
 */
class ClickHouseHttpTransportAnswerLimitTest {

    private static ClickHouseHttpTransport transport() {
        return new ClickHouseHttpTransport(Duration.ofSeconds(2), Duration.ofSeconds(10), null, null, false);
    }

    private static ClickHouseInsert insert() {
        Map<String, String> settings = new LinkedHashMap<>();
        settings.put("wait_end_of_query", "1");
        return new ClickHouseInsert("shop", "orders", settings, InsertFormat.ROW_BINARY);
    }

    @Test
    @Timeout(value = 60, unit = TimeUnit.SECONDS)
    void aQueryAnswerLargerThanTheLimitFailsClearly() throws Exception {
        try (KeepAliveRaceReplica replica = new KeepAliveRaceReplica(60_000).answerEndlessly(200, "");
                ClickHouseHttpTransport transport = transport()) {
            ClickHouseRequestException e = catchThrowableOfType(
                    ClickHouseRequestException.class,
                    () -> transport.query(replica.uri(), "SELECT name FROM system.columns"));
            assertThat(e.kind()).isEqualTo(ClickHouseRequestException.Kind.IO);
            assertThat(e.status()).isEqualTo(200);
            assertThat(e.serverText())
                    .isEqualTo("answer body larger than " + ClickHouseHttpTransport.MAX_READ_ANSWER_BYTES
                            + " bytes, the most read of a query's answer; not read further");
            assertThat(ClickHouseErrors.isTransient(e)).isTrue();
            assertThat(replica.awaitEndlessEnded(10_000))
                    .as("the transport closed the connection")
                    .isTrue();
        }
    }

    @Test
    @Timeout(value = 60, unit = TimeUnit.SECONDS)
    void anInsertAnswerWithABodyLargerThanTheLimitFailsTheAttemptTransiently() throws Exception {
        try (KeepAliveRaceReplica replica = new KeepAliveRaceReplica(60_000).answerEndlessly(200, "");
                ClickHouseHttpTransport transport = transport()) {
            ClickHouseRequestException e = catchThrowableOfType(
                    ClickHouseRequestException.class, () -> transport.insert(replica.uri(), insert(), new byte[8], 8));
            assertThat(e.kind()).isEqualTo(ClickHouseRequestException.Kind.IO);
            assertThat(e.serverText())
                    .isEqualTo("answer body larger than " + ClickHouseHttpTransport.MAX_INSERT_ANSWER_BYTES
                            + " bytes, the most read of an insert's answer; not read further");
            assertThat(ClickHouseErrors.isTransient(e)).isTrue();
            assertThat(replica.awaitEndlessEnded(10_000)).isTrue();
            assertThat(replica.requests())
                    .as("not sent again: the server answered")
                    .isEqualTo(1);
        }
    }

    @Test
    @Timeout(value = 60, unit = TimeUnit.SECONDS)
    void anErrorWithAnEndlessTextIsCut() throws Exception {
        try (KeepAliveRaceReplica replica =
                        new KeepAliveRaceReplica(60_000).answerEndlessly(500, "X-ClickHouse-Exception-Code: 241\r\n");
                ClickHouseHttpTransport transport = transport()) {
            ClickHouseRequestException e = catchThrowableOfType(
                    ClickHouseRequestException.class, () -> transport.insert(replica.uri(), insert(), new byte[8], 8));
            assertThat(e.kind()).isEqualTo(ClickHouseRequestException.Kind.HTTP);
            assertThat(e.status()).isEqualTo(500);
            assertThat(e.serverCode()).isEqualTo(241);
            assertThat(e.serverText())
                    .hasSize(4001)
                    .startsWith("0123456789abcdef")
                    .endsWith("…");
            assertThat(replica.awaitEndlessEnded(10_000)).isTrue();
        }
    }

    @Test
    @Timeout(value = 60, unit = TimeUnit.SECONDS)
    void answersWithinTheLimitsAreReadWhole() throws Exception {
        String columns = "x\tUInt64\n".repeat(100_000); // 900 kB: far more than a schema query answers
        try (KeepAliveRaceReplica replica = new KeepAliveRaceReplica(60_000).answer(200, columns, "");
                ClickHouseHttpTransport transport = transport()) {
            assertThat(transport.query(replica.uri(), "SELECT name, type FROM system.columns"))
                    .isEqualTo(columns);
        }
        try (KeepAliveRaceReplica replica = new KeepAliveRaceReplica(60_000)
                        .answer(200, "", "X-ClickHouse-Summary: {\"written_rows\":\"1\"}\r\n");
                ClickHouseHttpTransport transport = transport()) {
            assertThat(transport.insert(replica.uri(), insert(), new byte[8], 8))
                    .isEqualTo(1);
        }
        String error = "Code: 60, e.displayText() = DB::Exception: Table shop.orders doesn't exist.";
        try (KeepAliveRaceReplica replica = new KeepAliveRaceReplica(60_000).answer(404, error, "");
                ClickHouseHttpTransport transport = transport()) {
            ClickHouseRequestException e = catchThrowableOfType(
                    ClickHouseRequestException.class, () -> transport.insert(replica.uri(), insert(), new byte[8], 8));
            assertThat(e.serverText()).isEqualTo(error);
            assertThat(e.serverCode()).isEqualTo(60);
            assertThat(ClickHouseErrors.isTransient(e)).isFalse();
        }
    }
}
