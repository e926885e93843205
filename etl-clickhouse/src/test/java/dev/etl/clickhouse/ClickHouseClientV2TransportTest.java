package dev.etl.clickhouse;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowableOfType;

import com.clickhouse.client.api.ClientException;
import com.clickhouse.client.api.ConnectionInitiationException;
import com.clickhouse.client.api.DataTransferException;
import com.clickhouse.client.api.ServerException;
import com.clickhouse.client.api.insert.InsertSettings;
import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.SocketTimeoutException;
import java.net.URI;
import java.net.URLDecoder;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Base64;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeoutException;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * The client-v2 transport: what it sends (against a scripted HTTP server standing in for a replica)
 * and how client-v2 failures map to the classification inputs.
 */
class ClickHouseClientV2TransportTest {
    /** What a scripted replica answers: status, extra headers, body; or a delay before answering. */
    record Answer(int status, Map<String, String> headers, String body, long delayMs) {
        static Answer ok() {
            return new Answer(200, Map.of(), "", 0);
        }
    }

    record Received(String method, Map<String, String> params, Map<String, List<String>> headers, byte[] body) {}

    private HttpServer server;
    private URI replica;
    private final List<Received> received = new CopyOnWriteArrayList<>();
    private volatile Answer answer = Answer.ok();
    private final List<ClickHouseTransport> transports = new ArrayList<>();

    @BeforeEach
    void startServer() throws IOException {
        server = HttpServer.create(new InetSocketAddress("127.0.0.1", 0), 0);
        server.createContext("/", this::handle);
        server.start();
        replica = URI.create("http://127.0.0.1:" + server.getAddress().getPort());
    }

    @AfterEach
    void stopServer() {
        transports.forEach(ClickHouseTransport::close);
        server.stop(0);
    }

    private void handle(HttpExchange exchange) throws IOException {
        byte[] body;
        try (InputStream in = exchange.getRequestBody()) {
            body = in.readAllBytes();
        }
        Map<String, String> params = new LinkedHashMap<>();
        String raw = exchange.getRequestURI().getRawQuery();
        if (raw != null) {
            for (String pair : raw.split("&")) {
                int eq = pair.indexOf('=');
                params.put(
                        URLDecoder.decode(pair.substring(0, eq), StandardCharsets.UTF_8),
                        URLDecoder.decode(pair.substring(eq + 1), StandardCharsets.UTF_8));
            }
        }
        received.add(new Received(exchange.getRequestMethod(), params, Map.copyOf(exchange.getRequestHeaders()), body));
        Answer a = answer;
        if (a.delayMs() > 0) {
            try {
                Thread.sleep(a.delayMs());
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }
        a.headers().forEach((k, v) -> exchange.getResponseHeaders().add(k, v));
        byte[] out = a.body().getBytes(StandardCharsets.UTF_8);
        exchange.sendResponseHeaders(a.status(), out.length == 0 ? -1 : out.length);
        try (OutputStream os = exchange.getResponseBody()) {
            os.write(out);
        }
    }

    private ClickHouseClientV2Transport transport(
            Duration socketTimeout, String user, String password, boolean compress) {
        ClickHouseClientV2Transport t = new ClickHouseClientV2Transport(
                Duration.ofSeconds(2),
                socketTimeout,
                user,
                password,
                compress,
                new ClickHouseHttpTransport(Duration.ofSeconds(2), socketTimeout, user, password, false));
        transports.add(t);
        return t;
    }

    private ClickHouseClientV2Transport transport() {
        return transport(Duration.ofSeconds(10), null, null, false);
    }

    private static ClickHouseInsert insert() {
        Map<String, String> settings = new LinkedHashMap<>();
        settings.put("wait_end_of_query", "1");
        settings.put("insert_deduplicate", "1");
        settings.put("send_progress_in_http_headers", "0");
        settings.put("insert_quorum", "2");
        settings.put("insert_deduplication_token", "sink/3/17 &=?");
        return new ClickHouseInsert("shop", "order`s", settings);
    }

    @Test
    void insertSendsTheStatementEverySettingAndExactlyTheByteRange() throws Exception {
        byte[] body = {9, 9, 1, 2, 3, 4, 5, 9};
        transport().insert(replica, insert(), body, 7);
        // the same byte range again from offset 0: the InputStream covers [0, length)
        assertThat(received).hasSize(1);
        Received r = received.get(0);
        assertThat(r.method()).isEqualTo("POST");
        assertThat(r.params())
                .containsEntry("query", "INSERT INTO `shop`.`order\\`s` FORMAT RowBinary")
                .containsEntry("wait_end_of_query", "1")
                .containsEntry("insert_deduplicate", "1")
                .containsEntry("send_progress_in_http_headers", "0")
                .containsEntry("insert_quorum", "2")
                .containsEntry("insert_deduplication_token", "sink/3/17 &=?")
                .doesNotContainKey("decompress");
        assertThat(r.body()).containsExactly(9, 9, 1, 2, 3, 4, 5);
        assertThat(r.headers().get("Authorization"))
                .containsExactly(
                        "Basic " + Base64.getEncoder().encodeToString("default:".getBytes(StandardCharsets.UTF_8)));
        assertThat(r.headers().get("Accept-encoding")).isNull(); // compressServerResponse(false)
    }

    @Test
    void anInsertWithColumnsNamesThemBackquotedInTheStatement() throws Exception {
        ClickHouseInsert insert = new ClickHouseInsert(
                "shop",
                "orders",
                List.of("qty", "order id", "we`ird"),
                Map.of("wait_end_of_query", "1"),
                InsertFormat.NATIVE);
        transport().insert(replica, insert, new byte[] {1}, 1);
        assertThat(received.get(0).params())
                .containsEntry("query", "INSERT INTO `shop`.`orders` (`qty`, `order id`, `we\\`ird` ) FORMAT Native");
    }

    @Test
    void credentialsAndClientSideCompression() throws Exception {
        transport(Duration.ofSeconds(10), "etl", "s3cret", true).insert(replica, insert(), new byte[] {1, 2, 3}, 3);
        Received r = received.get(0);
        assertThat(r.headers().get("Authorization"))
                .containsExactly(
                        "Basic " + Base64.getEncoder().encodeToString("etl:s3cret".getBytes(StandardCharsets.UTF_8)));
        assertThat(r.params()).containsEntry("decompress", "1");
        assertThat(r.body()).hasSizeGreaterThan(16 + 9); // checksum + LZ4 block header + data
    }

    @Test
    void oneClientPerReplicaReusedAndRebuiltAfterClose() throws Exception {
        ClickHouseClientV2Transport t = transport();
        for (int i = 0; i < 3; i++) {
            t.insert(replica, insert(), new byte[] {1}, 1);
        }
        t.close();
        t.insert(replica, insert(), new byte[] {1}, 1);
        assertThat(received).hasSize(4);
    }

    @Test
    void settingsTranslationKeepsEveryServerSetting() {
        InsertSettings s = ClickHouseClientV2Transport.insertSettings(insert());
        assertThat(s.getDatabase()).isEqualTo("shop");
        assertThat(s.getAllSettings())
                .containsEntry("clickhouse_setting_wait_end_of_query", "1")
                .containsEntry("clickhouse_setting_insert_deduplicate", "1")
                .containsEntry("clickhouse_setting_send_progress_in_http_headers", "0")
                .containsEntry("clickhouse_setting_insert_quorum", "2")
                .containsEntry("clickhouse_setting_insert_deduplication_token", "sink/3/17 &=?");
    }

    @Test
    void legacyServerErrorWithoutCodeHeaderTakesTheCodeFromTheText() {
        String text =
                "Code: 33, e.displayText() = DB::Exception: Cannot read all data. Bytes read: 1. Bytes expected: 5.: "
                        + "(at row 1)\n, e.what() = DB::Exception\n";
        answer = new Answer(500, Map.of(), text, 0);
        ClickHouseRequestException e = catchThrowableOfType(
                ClickHouseRequestException.class, () -> transport().insert(replica, insert(), new byte[] {1}, 1));
        assertThat(e.kind()).isEqualTo(ClickHouseRequestException.Kind.HTTP);
        assertThat(e.status()).isEqualTo(500);
        assertThat(e.serverCode()).isEqualTo(33);
        assertThat(e.serverText())
                .startsWith("Code: 33, e.displayText() = DB::Exception: Cannot read all data")
                .doesNotContain("transport error");
        assertThat(ClickHouseErrors.isTransient(e)).isFalse();
    }

    @Test
    void modernServerErrorCodeComesFromTheHeader() {
        answer = new Answer(
                404,
                Map.of("X-ClickHouse-Exception-Code", "60"),
                "Code: 60. DB::Exception: Table shop.orders does not exist. (UNKNOWN_TABLE) (version 24.8.1.1)\n",
                0);
        ClickHouseRequestException e = catchThrowableOfType(
                ClickHouseRequestException.class, () -> transport().insert(replica, insert(), new byte[] {1}, 1));
        assertThat(e.kind()).isEqualTo(ClickHouseRequestException.Kind.HTTP);
        assertThat(e.status()).isEqualTo(404);
        assertThat(e.serverCode()).isEqualTo(60);
        assertThat(e.serverText()).contains("Table shop.orders does not exist");
        assertThat(ClickHouseErrors.isTransient(e)).isFalse();
    }

    @Test
    void overloadIsATransientServerError() {
        answer = new Answer(
                500,
                Map.of("X-ClickHouse-Exception-Code", "252"),
                "Code: 252. DB::Exception: Too many parts (300). (TOO_MANY_PARTS)\n",
                0);
        ClickHouseRequestException e = catchThrowableOfType(
                ClickHouseRequestException.class, () -> transport().insert(replica, insert(), new byte[] {1}, 1));
        assertThat(e.serverCode()).isEqualTo(252);
        assertThat(ClickHouseErrors.isTransient(e)).isTrue();
    }

    @Test
    void closedPortIsAConnectFailure() throws IOException {
        int port;
        try (ServerSocket s = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
            port = s.getLocalPort();
        }
        ClickHouseRequestException e = catchThrowableOfType(
                ClickHouseRequestException.class,
                () -> transport().insert(URI.create("http://127.0.0.1:" + port), insert(), new byte[] {1}, 1));
        assertThat(e.kind()).isEqualTo(ClickHouseRequestException.Kind.CONNECT);
        assertThat(e.serverText()).contains("Connection refused");
        assertThat(ClickHouseErrors.isTransient(e)).isTrue();
    }

    @Test
    void noAnswerWithinTheSocketTimeoutIsATimeout() {
        answer = new Answer(200, Map.of(), "", 1_500);
        ClickHouseRequestException e = catchThrowableOfType(
                ClickHouseRequestException.class,
                () -> transport(Duration.ofMillis(300), null, null, false)
                        .insert(replica, insert(), new byte[] {1}, 1));
        assertThat(e.kind()).isEqualTo(ClickHouseRequestException.Kind.TIMEOUT);
        assertThat(ClickHouseErrors.isTransient(e)).isTrue();
        assertThat(received).hasSize(1); // no client-side retry
    }

    @Test
    void readsGoThroughRawHttp() throws Exception {
        answer = new Answer(200, Map.of(), "18.16.1\n", 0);
        assertThat(transport().query(replica, "SELECT version() FORMAT TabSeparated"))
                .isEqualTo("18.16.1\n");
        Received r = received.get(0);
        assertThat(new String(r.body(), StandardCharsets.UTF_8)).isEqualTo("SELECT version() FORMAT TabSeparated");
        assertThat(r.headers().get("User-agent")).noneMatch(ua -> ua.contains("clickhouse-java"));
    }

    @Test
    void errorMappingOfClientV2Exceptions() {
        ServerException server = new ServerException(
                0,
                "Code: 60, e.displayText() = DB::Exception: Table db.t doesn't exist., e.what() = DB::Exception (transport error: 404)",
                404,
                "q1");
        ClickHouseRequestException e = ClickHouseClientV2Transport.toRequestException(server);
        assertThat(e.kind()).isEqualTo(ClickHouseRequestException.Kind.HTTP);
        assertThat(e.status()).isEqualTo(404);
        assertThat(e.serverCode()).isEqualTo(60);
        assertThat(e.serverText()).endsWith("e.what() = DB::Exception");
        assertThat(e.getCause()).isSameAs(server);

        assertThat(ClickHouseClientV2Transport.toRequestException(
                                new ServerException(241, "Memory limit (transport error: 500)", 500, null))
                        .serverCode())
                .isEqualTo(241);
        assertThat(ClickHouseClientV2Transport.toRequestException(new ServerException(0, "no code here", 500, null))
                        .serverCode())
                .isEqualTo(-1);

        ClickHouseRequestException connect =
                ClickHouseClientV2Transport.toRequestException(new ConnectionInitiationException(
                        "Insert request failed (attempt: 1)", new java.net.ConnectException("Connection refused")));
        assertThat(connect.kind()).isEqualTo(ClickHouseRequestException.Kind.CONNECT);
        assertThat(connect.serverText())
                .isEqualTo("Insert request failed (attempt: 1): java.net.ConnectException: Connection refused");
        assertThat(connect.status()).isEqualTo(-1);
        assertThat(connect.serverCode()).isEqualTo(-1);

        assertThat(ClickHouseClientV2Transport.toRequestException(new ConnectionInitiationException(
                                "Insert request failed",
                                new org.apache.hc.core5.http.NoHttpResponseException(
                                        "127.0.0.1:18123 failed to respond")))
                        .kind())
                .isEqualTo(ClickHouseRequestException.Kind.IO);
        assertThat(ClickHouseClientV2Transport.toRequestException(new DataTransferException(
                                "Insert request failed", new SocketTimeoutException("Read timed out")))
                        .kind())
                .isEqualTo(ClickHouseRequestException.Kind.TIMEOUT);
        assertThat(ClickHouseClientV2Transport.toRequestException(new DataTransferException(
                                "Insert request failed", new java.net.SocketException("Connection reset")))
                        .kind())
                .isEqualTo(ClickHouseRequestException.Kind.IO);
        assertThat(ClickHouseClientV2Transport.toRequestException(new TimeoutException())
                        .kind())
                .isEqualTo(ClickHouseRequestException.Kind.TIMEOUT);
        assertThat(ClickHouseClientV2Transport.toRequestException(
                                new ClientException("Server returned '502 Bad gateway'"))
                        .kind())
                .isEqualTo(ClickHouseRequestException.Kind.IO);
        // an ExecutionException's cause is what insert() maps; the cause chain is searched
        assertThat(ClickHouseClientV2Transport.toRequestException(new ExecutionException(
                                new DataTransferException("x", new SocketTimeoutException("Read timed out"))))
                        .kind())
                .isEqualTo(ClickHouseRequestException.Kind.TIMEOUT);
    }

    @Test
    void onlyAConnectionThatBrokeBeforeAnyAnswerIsSentAgain() {
        assertThat(closedBeforeAnswer(new ConnectionInitiationException(
                        "Insert request failed",
                        new org.apache.hc.core5.http.NoHttpResponseException("127.0.0.1:18123 failed to respond"))))
                .isTrue();
        assertThat(closedBeforeAnswer(new DataTransferException(
                        "Insert request failed", new java.net.SocketException("Broken pipe"))))
                .isTrue();
        assertThat(closedBeforeAnswer(new ConnectionInitiationException(
                        "Insert request failed", new java.net.ConnectException("Connection refused"))))
                .isFalse();
        assertThat(closedBeforeAnswer(new DataTransferException(
                        "Insert request failed", new SocketTimeoutException("Read timed out"))))
                .isFalse();
        assertThat(closedBeforeAnswer(new ServerException(241, "Code: 241. DB::Exception: Memory limit", 500, "q")))
                .isFalse();
        assertThat(closedBeforeAnswer(new ClientException("Server returned '502 Bad gateway'")))
                .isFalse();
        assertThat(ClickHouseClientV2Transport.closedBeforeAnswer(new ClickHouseRequestException(
                        ClickHouseRequestException.Kind.IO, -1, -1, "interrupted", new InterruptedException())))
                .isFalse();
    }

    private static boolean closedBeforeAnswer(Throwable clientFailure) {
        return ClickHouseClientV2Transport.closedBeforeAnswer(
                ClickHouseClientV2Transport.toRequestException(clientFailure));
    }
}
