package dev.etl.autoconfigure;

import static org.assertj.core.api.Assertions.assertThat;

import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpsConfigurator;
import com.sun.net.httpserver.HttpsServer;
import dev.etl.autoconfigure.avro.SchemaRegistryAutoConfiguration;
import dev.etl.autoconfigure.clickhouse.ClickHouseConnectionDetails;
import dev.etl.autoconfigure.clickhouse.ClickHouseSinkAutoConfiguration;
import dev.etl.avro.SchemaRegistryClient;
import dev.etl.avro.SchemaRegistryException;
import dev.etl.clickhouse.ClickHouseSinkConfig;
import dev.etl.clickhouse.ClickHouseTls;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.security.KeyStore;
import java.util.List;
import javax.net.ssl.KeyManagerFactory;
import javax.net.ssl.SSLContext;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.autoconfigure.ssl.SslAutoConfiguration;
import org.springframework.boot.ssl.SslBundle;
import org.springframework.boot.ssl.SslBundles;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;

/**
 * TLS the Boot way: {@code etl.sink.clickhouse.ssl.bundle} and {@code etl.avro.registry.ssl-bundle} name
 * {@code spring.ssl.bundle.*} bundles. The ClickHouse sink takes the bundle's context and trust store for
 * both transports and refuses combinations it cannot honour; the registry client verifies a real HTTPS
 * server against the bundle (and fails startup without it). Certificates: {@code src/test/resources/tls}.
 */
class SslBundleAutoConfigurationTest {

    private static final String PEM_TRUST = "spring.ssl.bundle.pem.infra.truststore.certificate=classpath:tls/ca.crt";

    private final ApplicationContextRunner runner = new ApplicationContextRunner()
            .withConfiguration(AutoConfigurations.of(
                    SslAutoConfiguration.class,
                    ClickHouseSinkAutoConfiguration.class,
                    SchemaRegistryAutoConfiguration.class,
                    EtlAutoConfiguration.class))
            .withPropertyValues("etl.pipeline.exit-on-failure=false")
            .withUserConfiguration(
                    TestPipelines.Chain.class,
                    ConnectorAutoConfigurationTest.NotStarted.class,
                    ConnectorAutoConfigurationTest.MemorySourceOnly.class,
                    ConnectorAutoConfigurationTest.Encoder.class);

    private final ApplicationContextRunner clickHouse = this.runner.withPropertyValues(
            "etl.sink.clickhouse.table=orders_local",
            "etl.sink.clickhouse.shards[0].replicas=https://ch-1a:8443,https://ch-1b:8443",
            "etl.sink.clickhouse.shards[1].replicas=https://ch-2a:8443");

    private final ApplicationContextRunner registryRunner = new ApplicationContextRunner()
            .withConfiguration(AutoConfigurations.of(
                    SslAutoConfiguration.class, SchemaRegistryAutoConfiguration.class, EtlAutoConfiguration.class))
            .withPropertyValues("etl.pipeline.exit-on-failure=false")
            .withUserConfiguration(
                    TestPipelines.SourceAndSink.class,
                    TestPipelines.Chain.class,
                    ConnectorAutoConfigurationTest.NotStarted.class);

    private HttpsServer registry;

    @BeforeEach
    void startRegistry() throws Exception {
        KeyStore keyStore = KeyStore.getInstance("PKCS12");
        try (InputStream in = getClass().getClassLoader().getResourceAsStream("tls/server.p12")) {
            keyStore.load(in, "test-only".toCharArray());
        }
        KeyManagerFactory keys = KeyManagerFactory.getInstance(KeyManagerFactory.getDefaultAlgorithm());
        keys.init(keyStore, "test-only".toCharArray());
        SSLContext context = SSLContext.getInstance("TLS");
        context.init(keys.getKeyManagers(), null, null);
        this.registry = HttpsServer.create(new InetSocketAddress("127.0.0.1", 0), 0);
        this.registry.setHttpsConfigurator(new HttpsConfigurator(context));
        this.registry.createContext("/", this::answerSubjects);
        this.registry.start();
    }

    @AfterEach
    void stopRegistry() {
        this.registry.stop(0);
    }

    private void answerSubjects(HttpExchange exchange) throws IOException {
        byte[] body = "[]".getBytes(StandardCharsets.UTF_8);
        exchange.getResponseHeaders().add("Content-Type", "application/json");
        exchange.sendResponseHeaders(200, body.length);
        try (OutputStream out = exchange.getResponseBody()) {
            out.write(body);
        }
    }

    private String registryUrl() {
        return "https://localhost:" + this.registry.getAddress().getPort() + "/apis/ccompat/v7";
    }

    // ClickHouse

    @Test
    void clickHouseSinkTrustsTheNamedBundleOnBothTransports() {
        this.clickHouse
                .withPropertyValues(PEM_TRUST, "etl.sink.clickhouse.ssl.bundle=infra")
                .run((context) -> {
                    assertThat(context).hasNotFailed();
                    ClickHouseTls tls =
                            context.getBean(ClickHouseSinkConfig.class).tls();
                    assertThat(tls).isNotNull();
                    assertThat(tls.trustedCertificates())
                            .singleElement()
                            .satisfies((ca) -> assertThat(
                                            ca.getSubjectX500Principal().getName())
                                    .isEqualTo("CN=etl test CA"));
                    assertThat(tls.clientCertificate()).isFalse();
                    assertThat(tls.sslContext()).isNotNull();
                    assertThat(context.getBean(ClickHouseSinkConfig.class).transport())
                            .isEqualTo(ClickHouseSinkConfig.Transport.CLIENT_V2);
                });
    }

    @Test
    void clickHouseSinkWithoutABundleUsesTheJvmTrustStore() {
        this.clickHouse.run((context) ->
                assertThat(context.getBean(ClickHouseSinkConfig.class).tls()).isNull());
    }

    @Test
    void anUnknownClickHouseBundleFailsStartupNamingThePropertyAndTheClosestBundle() {
        this.clickHouse
                .withPropertyValues(PEM_TRUST, "etl.sink.clickhouse.ssl.bundle=infr")
                .run((context) -> assertThat(context)
                        .getFailure()
                        .rootCause()
                        .isInstanceOf(InvalidEtlConfigurationException.class)
                        .hasMessageContaining("etl.sink.clickhouse.ssl.bundle=infr names no SSL bundle")
                        .hasMessageContaining("did you mean 'infra'"));
    }

    @Test
    void aClickHouseBundleWithPlainHttpReplicasFailsStartupNamingTheReplica() {
        this.runner
                .withPropertyValues(
                        PEM_TRUST,
                        "etl.sink.clickhouse.ssl.bundle=infra",
                        "etl.sink.clickhouse.table=orders_local",
                        "etl.sink.clickhouse.shards[0].replicas=https://ch-1a:8443,http://ch-1b:8123")
                .run((context) -> assertThat(context)
                        .getFailure()
                        .rootCause()
                        .isInstanceOf(InvalidEtlConfigurationException.class)
                        .hasMessageContaining("replica http://ch-1b:8123"));
    }

    @Test
    void aClientCertificateNeedsTheHttpTransport() {
        ApplicationContextRunner mutual = this.clickHouse.withPropertyValues(
                "spring.ssl.bundle.pem.mtls.truststore.certificate=classpath:tls/ca.crt",
                "spring.ssl.bundle.pem.mtls.keystore.certificate=classpath:tls/client.crt",
                "spring.ssl.bundle.pem.mtls.keystore.private-key=classpath:tls/client.key",
                "etl.sink.clickhouse.ssl.bundle=mtls");
        mutual.run((context) -> assertThat(context)
                .getFailure()
                .rootCause()
                .isInstanceOf(InvalidEtlConfigurationException.class)
                .hasMessageContaining("client-v2 inserts cannot present it")
                .satisfies((e) -> assertThat(((InvalidEtlConfigurationException) e).getAction())
                        .contains("etl.sink.clickhouse.transport=http")));
        mutual.withPropertyValues("etl.sink.clickhouse.transport=http").run((context) -> {
            assertThat(context).hasNotFailed();
            assertThat(context.getBean(ClickHouseSinkConfig.class).tls().clientCertificate())
                    .isTrue();
        });
    }

    @Test
    void connectionDetailsMayBringTheirOwnBundle() {
        this.clickHouse
                .withPropertyValues(PEM_TRUST)
                .withBean(DetailsWithBundle.class, DetailsWithBundle::new)
                .run((context) -> {
                    assertThat(context).hasNotFailed();
                    ClickHouseSinkConfig config = context.getBean(ClickHouseSinkConfig.class);
                    assertThat(config.shards()).containsExactly(List.of(URI.create("https://ch.internal:8443")));
                    assertThat(config.tls().trustedCertificates()).hasSize(1);
                });
    }

    /** Connection details from a service connection, with the bundle that verifies the service. */
    static final class DetailsWithBundle
            implements ClickHouseConnectionDetails, org.springframework.beans.factory.BeanFactoryAware {

        private SslBundles bundles;

        @Override
        public void setBeanFactory(org.springframework.beans.factory.BeanFactory beanFactory) {
            this.bundles = beanFactory.getBean(SslBundles.class);
        }

        @Override
        public List<List<URI>> getShards() {
            return List.of(List.of(URI.create("https://ch.internal:8443")));
        }

        @Override
        public SslBundle getSslBundle() {
            return this.bundles.getBundle("infra");
        }
    }

    // Schema registry

    @Test
    void registryClientVerifiesTheRegistryAgainstTheNamedBundle() {
        this.registryRunner
                .withPropertyValues(
                        PEM_TRUST, "etl.avro.registry.url=" + registryUrl(), "etl.avro.registry.ssl-bundle=infra")
                .run((context) -> {
                    assertThat(context).hasNotFailed().hasSingleBean(SchemaRegistryClient.class);
                    assertThat(context.getBean(SchemaRegistryClient.class).baseUrl())
                            .isEqualTo(registryUrl());
                });
    }

    @Test
    void withoutTheBundleTheRegistryIsNotTrustedAndStartupFailsNamingIt() {
        this.registryRunner
                .withPropertyValues("etl.avro.registry.url=" + registryUrl())
                .run((context) ->
                        assertThat(context).getFailure().rootCause().hasMessageContaining("certification path"));
        this.registryRunner
                .withPropertyValues("etl.avro.registry.url=" + registryUrl())
                .run((context) -> {
                    Throwable failure = context.getStartupFailure();
                    while (failure != null && !(failure instanceof SchemaRegistryException)) {
                        failure = failure.getCause();
                    }
                    assertThat(failure).isNotNull().hasMessageContaining("schema registry " + registryUrl());
                });
    }

    @Test
    void anUnknownRegistryBundleFailsStartupNamingTheProperty() {
        this.registryRunner
                .withPropertyValues(
                        PEM_TRUST, "etl.avro.registry.url=" + registryUrl(), "etl.avro.registry.ssl-bundle=infar")
                .run((context) -> assertThat(context)
                        .getFailure()
                        .rootCause()
                        .isInstanceOf(InvalidEtlConfigurationException.class)
                        .hasMessageContaining("etl.avro.registry.ssl-bundle=infar names no SSL bundle")
                        .hasMessageContaining("did you mean 'infra'"));
    }
}
