package dev.etl.clickhouse;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.catchThrowableOfType;

import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpsConfigurator;
import com.sun.net.httpserver.HttpsServer;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.security.KeyStore;
import java.security.cert.CertificateFactory;
import java.security.cert.X509Certificate;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import javax.net.ssl.KeyManagerFactory;
import javax.net.ssl.SSLContext;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * TLS towards {@code https://} replicas, against a local HTTPS server standing in for a replica (its
 * certificate is issued for {@code localhost} only, by the test CA in {@code tls/}): both transports
 * trust what {@link ClickHouseTls} says and nothing else, verify the host name, and the startup
 * validation names the replica and the cause of a failed handshake.
 */
class ClickHouseTlsTest {
    private HttpsServer server;
    private int port;
    private final List<String> received = new CopyOnWriteArrayList<>();
    private final List<ClickHouseTransport> transports = new ArrayList<>();

    @BeforeEach
    void startServer() throws Exception {
        KeyStore keyStore = KeyStore.getInstance("PKCS12");
        try (InputStream in = resource("tls/server.p12")) {
            keyStore.load(in, "test-only".toCharArray());
        }
        KeyManagerFactory keys = KeyManagerFactory.getInstance(KeyManagerFactory.getDefaultAlgorithm());
        keys.init(keyStore, "test-only".toCharArray());
        SSLContext context = SSLContext.getInstance("TLS");
        context.init(keys.getKeyManagers(), null, null);
        server = HttpsServer.create(new InetSocketAddress("127.0.0.1", 0), 0);
        server.setHttpsConfigurator(new HttpsConfigurator(context));
        server.createContext("/", this::handle);
        server.start();
        port = server.getAddress().getPort();
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
        String sql = new String(body, StandardCharsets.UTF_8);
        received.add(exchange.getRequestURI().getRawQuery() + " " + sql);
        String answer = sql.contains("version()") ? "18.16.1\n" : "";
        byte[] out = answer.getBytes(StandardCharsets.UTF_8);
        exchange.sendResponseHeaders(200, out.length == 0 ? -1 : out.length);
        try (OutputStream os = exchange.getResponseBody()) {
            os.write(out);
        }
    }

    private static InputStream resource(String name) {
        InputStream in = ClickHouseTlsTest.class.getClassLoader().getResourceAsStream(name);
        assertThat(in).as(name).isNotNull();
        return in;
    }

    static KeyStore testCaTrustStore() throws Exception {
        KeyStore store = KeyStore.getInstance("PKCS12");
        store.load(null, null);
        try (InputStream in = resource("tls/ca.crt")) {
            X509Certificate ca =
                    (X509Certificate) CertificateFactory.getInstance("X.509").generateCertificate(in);
            store.setCertificateEntry("ca", ca);
        }
        return store;
    }

    private URI localhost() {
        return URI.create("https://localhost:" + port);
    }

    private ClickHouseTransport http(ClickHouseTls tls) {
        ClickHouseTransport t =
                new ClickHouseHttpTransport(Duration.ofSeconds(2), Duration.ofSeconds(5), "etl", "hunter2", false, tls);
        transports.add(t);
        return t;
    }

    private ClickHouseTransport clientV2(ClickHouseTls tls) {
        ClickHouseTransport t = new ClickHouseClientV2Transport(
                Duration.ofSeconds(2), Duration.ofSeconds(5), "etl", "hunter2", false, tls, http(tls));
        transports.add(t);
        return t;
    }

    private static ClickHouseInsert insert() {
        return new ClickHouseInsert("db", "t", java.util.Map.of("wait_end_of_query", "1"));
    }

    @Test
    void bothTransportsInsertOverHttpsWhenTheTrustStoreHoldsTheIssuingCa() throws Exception {
        ClickHouseTls tls = ClickHouseTls.trusting(testCaTrustStore());
        byte[] row = {1, 2, 3};
        http(tls).insert(localhost(), insert(), row, row.length);
        clientV2(tls).insert(localhost(), insert(), row, row.length);
        assertThat(http(tls).query(localhost(), "SELECT version() FORMAT TabSeparated"))
                .isEqualTo("18.16.1\n");
        assertThat(received).hasSize(3);
    }

    @Test
    void withoutTheCaNeitherTransportTrustsTheServer() {
        byte[] row = {1};
        for (ClickHouseTransport t : List.of(http(null), clientV2(null))) {
            ClickHouseRequestException e = catchThrowableOfType(
                    ClickHouseRequestException.class, () -> t.insert(localhost(), insert(), row, row.length));
            assertThat(ClickHouseSchemaValidator.sslCause(e))
                    .as(t.getClass().getSimpleName())
                    .isNotNull();
            assertThat(chain(e)).containsIgnoringCase("certification path");
        }
        assertThat(received).isEmpty();
    }

    @Test
    void aCertificateForAnotherHostIsRefusedByBothTransports() throws Exception {
        ClickHouseTls tls = ClickHouseTls.trusting(testCaTrustStore());
        URI byAddress = URI.create("https://127.0.0.1:" + port); // the certificate names only localhost
        byte[] row = {1};
        for (ClickHouseTransport t : List.of(http(tls), clientV2(tls))) {
            ClickHouseRequestException e = catchThrowableOfType(
                    ClickHouseRequestException.class, () -> t.insert(byAddress, insert(), row, row.length));
            assertThat(e).as(t.getClass().getSimpleName()).isNotNull();
            assertThat(chain(e))
                    .as(t.getClass().getSimpleName())
                    .containsAnyOf(
                            "No subject alternative",
                            "doesn't match any of the subject alternative names",
                            "No name matching");
        }
        assertThat(received).isEmpty();
    }

    @Test
    void startupValidationNamesTheReplicaAndWhyTheHandshakeFailed() throws Exception {
        ClickHouseSinkConfig untrusted = ClickHouseSinkConfig.builder()
                .table("db", "t")
                .shard(localhost().toString())
                .credentials("etl", "hunter2")
                .build();
        assertThatThrownBy(() -> new ClickHouseSchemaValidator(untrusted, http(null)).validateShard(0, List.of()))
                .isInstanceOf(ClickHouseSchemaException.class)
                .hasMessageContaining("TLS with ClickHouse shard 0 replica https://localhost:" + port)
                .hasMessageContaining("not trusted")
                .satisfies((e) -> assertThat(e.getMessage()).doesNotContain("hunter2"));

        ClickHouseTls tls = ClickHouseTls.trusting(testCaTrustStore());
        ClickHouseSinkConfig byAddress = ClickHouseSinkConfig.builder()
                .table("db", "t")
                .shard("https://127.0.0.1:" + port)
                .tls(tls)
                .build();
        assertThatThrownBy(() -> new ClickHouseSchemaValidator(byAddress, http(tls)).validateShard(0, List.of()))
                .isInstanceOf(ClickHouseSchemaException.class)
                .hasMessageContaining("replica https://127.0.0.1:" + port)
                .hasMessageContaining("not issued for '127.0.0.1'");
    }

    @Test
    void aPlainHttpReplicaWithTlsConfiguredIsRefused() throws Exception {
        ClickHouseTls tls = ClickHouseTls.trusting(testCaTrustStore());
        assertThatThrownBy(() -> ClickHouseSinkConfig.builder()
                        .table("db", "t")
                        .shard("https://ch-1a:8443", "http://ch-1b:8123")
                        .tls(tls)
                        .build())
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("replica http://ch-1b:8123 is plain http://");
    }

    @Test
    void clientV2RefusesAClientCertificateAndRestrictedProtocols() throws Exception {
        ClickHouseTls base = ClickHouseTls.trusting(testCaTrustStore());
        ClickHouseTls mutual =
                new ClickHouseTls(base.sslContext(), base.trustedCertificates(), true, List.of(), List.of());
        ClickHouseTls restricted =
                new ClickHouseTls(base.sslContext(), base.trustedCertificates(), false, List.of("TLSv1.3"), List.of());
        assertThatThrownBy(() -> ClickHouseSinkConfig.builder()
                        .table("db", "t")
                        .shard("https://ch:8443")
                        .tls(mutual)
                        .build())
                .hasMessageContaining("mutual TLS");
        assertThatThrownBy(() -> ClickHouseSinkConfig.builder()
                        .table("db", "t")
                        .shard("https://ch:8443")
                        .tls(restricted)
                        .build())
                .hasMessageContaining("TLSv1.3");
        assertThat(ClickHouseSinkConfig.builder()
                        .table("db", "t")
                        .shard("https://ch:8443")
                        .tls(mutual)
                        .transport(ClickHouseSinkConfig.Transport.HTTP)
                        .build()
                        .tls())
                .isSameAs(mutual);
        assertThatThrownBy(() -> clientV2(mutual)).isInstanceOf(IllegalArgumentException.class);
    }

    @Test
    void theHttpTransportHonoursRestrictedProtocols() throws Exception {
        ClickHouseTls base = ClickHouseTls.trusting(testCaTrustStore());
        ClickHouseTls tls13 =
                new ClickHouseTls(base.sslContext(), base.trustedCertificates(), false, List.of("TLSv1.3"), List.of());
        ClickHouseTls sslv3 = new ClickHouseTls(
                base.sslContext(),
                base.trustedCertificates(),
                false,
                List.of("SSLv3"),
                List.of()); // disabled in every current JDK: nothing can be negotiated
        byte[] row = {1};
        http(tls13).insert(localhost(), insert(), row, row.length);
        assertThatThrownBy(() -> http(sslv3).insert(localhost(), insert(), row, row.length))
                .isInstanceOf(ClickHouseRequestException.class);
    }

    @Test
    void trustedCertificatesGoToClientV2AsPemAndToStringNamesOnlySubjects() throws Exception {
        ClickHouseTls tls = ClickHouseTls.trusting(testCaTrustStore());
        assertThat(tls.trustedCertificatesPem())
                .startsWith("-----BEGIN CERTIFICATE-----\n")
                .endsWith("-----END CERTIFICATE-----\n");
        X509Certificate parsed = (X509Certificate) CertificateFactory.getInstance("X.509")
                .generateCertificate(new java.io.ByteArrayInputStream(
                        tls.trustedCertificatesPem().getBytes(StandardCharsets.US_ASCII)));
        assertThat(parsed).isEqualTo(tls.trustedCertificates().get(0));
        assertThat(tls.toString()).contains("CN=etl test CA").doesNotContain("BEGIN");
    }

    private static String chain(Throwable e) {
        StringBuilder sb = new StringBuilder();
        for (Throwable t = e; t != null; t = t.getCause()) {
            sb.append(t).append(" | ");
        }
        return sb.toString();
    }
}
