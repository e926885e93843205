package dev.etl.test.infra;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.net.URI;
import java.net.URLEncoder;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Base64;
import java.util.Map;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import javax.net.ssl.SSLHandshakeException;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.common.errors.SaslAuthenticationException;
import org.junit.jupiter.api.Test;

/**
 * The secured listeners {@code scripts/infra.sh} opens on the same servers: ClickHouse over HTTPS
 * with a password user that may write and one that may only read, Kafka's {@code SASL_SSL} listener
 * with a SCRAM-SHA-512 user, the registry over HTTPS; all verified against the throwaway CA, and the
 * certificate names {@code localhost} only.
 */
@LocalInfra
class SecuredListenersIT {

    private static final Duration TIMEOUT = Duration.ofSeconds(10);

    private static HttpClient https(SecuredInfraEndpoints secured) {
        return HttpClient.newBuilder()
                .sslContext(secured.sslContext())
                .connectTimeout(TIMEOUT)
                .build();
    }

    private static HttpResponse<String> clickhouse(
            HttpClient client, String replica, String user, String password, String sql) throws Exception {
        String auth = Base64.getEncoder().encodeToString((user + ":" + password).getBytes(StandardCharsets.UTF_8));
        HttpRequest request = HttpRequest.newBuilder(URI.create(replica + "/?wait_end_of_query=1"))
                .header("Authorization", "Basic " + auth)
                .timeout(TIMEOUT)
                .POST(HttpRequest.BodyPublishers.ofString(sql))
                .build();
        return client.send(request, HttpResponse.BodyHandlers.ofString());
    }

    @Test
    void clickHouseAnswersOverHttpsWithPasswordUsersAndTheReaderMayNotWrite(InfraEndpoints infra) throws Exception {
        SecuredInfraEndpoints secured = infra.secured();
        HttpClient client = https(secured);
        for (InfraEndpoints.ClickHouseShard shard : secured.clickhouseShards()) {
            for (String replica : shard.replicaUrls()) {
                HttpResponse<String> writer = clickhouse(
                        client,
                        replica,
                        secured.clickhouseUser(),
                        secured.clickhousePassword(),
                        "SELECT value FROM system.settings WHERE name = 'readonly'");
                assertThat(writer.statusCode()).as(replica).isEqualTo(200);
                assertThat(writer.body().strip())
                        .as(replica + " readonly of the writer")
                        .isEqualTo("0");
                HttpResponse<String> reader = clickhouse(
                        client,
                        replica,
                        secured.clickhouseReadonlyUser(),
                        secured.clickhouseReadonlyPassword(),
                        "SELECT value FROM system.settings WHERE name = 'readonly'");
                assertThat(reader.body().strip())
                        .as(replica + " readonly of the reader")
                        .isEqualTo("1");
            }
        }
        String replica = secured.clickhouseShard(1).replicaUrl(1);
        HttpResponse<String> create = clickhouse(
                client,
                replica,
                secured.clickhouseReadonlyUser(),
                secured.clickhouseReadonlyPassword(),
                "CREATE TABLE default.never (a UInt8) ENGINE = Memory");
        assertThat(create.body()).contains("Code: 164");
        HttpResponse<String> wrong =
                clickhouse(client, replica, secured.clickhouseUser(), "not-the-password", "SELECT 1");
        assertThat(wrong.body()).contains("Code: 193");
    }

    @Test
    void theCertificateNamesOnlyTheTlsHost(InfraEndpoints infra) {
        SecuredInfraEndpoints secured = infra.secured();
        String byAddress =
                secured.clickhouseShard(1).replicaUrl(1).replace("//" + secured.tlsHost() + ":", "//127.0.0.1:");
        assertThatThrownBy(() -> clickhouse(
                        https(secured), byAddress, secured.clickhouseUser(), secured.clickhousePassword(), "SELECT 1"))
                .isInstanceOf(SSLHandshakeException.class)
                .hasMessageContaining("No subject alternative names matching IP address 127.0.0.1");
        assertThatThrownBy(() -> clickhouse(
                        HttpClient.newHttpClient(),
                        secured.clickhouseShard(1).replicaUrl(1),
                        secured.clickhouseUser(),
                        secured.clickhousePassword(),
                        "SELECT 1"))
                .isInstanceOf(SSLHandshakeException.class); // not in the JVM's trust store
    }

    @Test
    void kafkaAuthenticatesTheScramUserOverTls(InfraEndpoints infra) throws Exception {
        SecuredInfraEndpoints secured = infra.secured();
        Map<String, Object> config = secured.kafkaClientProperties();
        config.put(AdminClientConfig.REQUEST_TIMEOUT_MS_CONFIG, 15_000);
        config.put(AdminClientConfig.DEFAULT_API_TIMEOUT_MS_CONFIG, 15_000);
        try (Admin admin = Admin.create(config)) {
            assertThat(admin.describeCluster().nodes().get(15, TimeUnit.SECONDS))
                    .isNotEmpty();
        }
        config.put(
                "sasl.jaas.config",
                "org.apache.kafka.common.security.scram.ScramLoginModule required username=\"" + secured.kafkaUser()
                        + "\" password=\"not-the-password\";");
        try (Admin admin = Admin.create(config)) {
            assertThatThrownBy(() -> admin.describeCluster().nodes().get(15, TimeUnit.SECONDS))
                    .isInstanceOf(ExecutionException.class)
                    .hasCauseInstanceOf(SaslAuthenticationException.class);
        }
    }

    @Test
    void theRegistryAnswersOverHttps(InfraEndpoints infra) throws Exception {
        SecuredInfraEndpoints secured = infra.secured();
        HttpResponse<String> subjects = https(secured)
                .send(
                        HttpRequest.newBuilder(URI.create(secured.registryUrl() + "/subjects?x="
                                        + URLEncoder.encode("1", StandardCharsets.UTF_8)))
                                .timeout(TIMEOUT)
                                .build(),
                        HttpResponse.BodyHandlers.ofString());
        assertThat(subjects.statusCode()).isEqualTo(200);
        assertThat(subjects.body()).startsWith("[");
    }
}
