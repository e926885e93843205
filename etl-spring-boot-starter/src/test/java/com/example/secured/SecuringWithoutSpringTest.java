package com.example.secured;

import static org.assertj.core.api.Assertions.assertThat;

import dev.etl.avro.SchemaRegistryClient;
import dev.etl.clickhouse.ClickHouseSinkConfig;
import dev.etl.clickhouse.ClickHouseTls;
import dev.etl.kafka.KafkaSourceConfig;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.URI;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.KeyStore;
import java.security.cert.CertificateFactory;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The "without Spring" settings of docs/guides/securing.md: the same trust store, SCRAM login and
 * ClickHouse user as the YAML, given to the connectors' builders directly (from the environment).
 * Built here from a stand-in environment; nothing connects.
 */
class SecuringWithoutSpringTest {

    @TempDir
    Path dir;

    // tag::without-spring[]
    /** The three connectors' secured settings. */
    record Secured(KafkaSourceConfig kafka, ClickHouseSinkConfig clickHouse, SchemaRegistryClient registry) {}

    /** {@code env} is {@code System.getenv()}: the Deployment maps the Secret's keys to these variables. */
    static Secured secured(Map<String, String> env) throws Exception {
        Path trustStoreFile = Path.of(env.get("ETL_TRUSTSTORE"));
        char[] trustStorePassword = env.get("ETL_TRUSTSTORE_PASSWORD").toCharArray();
        KeyStore trustStore = KeyStore.getInstance("PKCS12");
        try (InputStream in = Files.newInputStream(trustStoreFile)) {
            trustStore.load(in, trustStorePassword);
        }
        KafkaSourceConfig kafka = KafkaSourceConfig.builder()
                .property("bootstrap.servers", env.get("KAFKA_BOOTSTRAP"))
                .property("group.id", "orders-etl")
                .property("security.protocol", "SASL_SSL")
                .property("ssl.truststore.location", trustStoreFile.toString())
                .property("ssl.truststore.password", env.get("ETL_TRUSTSTORE_PASSWORD"))
                .property("ssl.truststore.type", "PKCS12")
                .property("sasl.mechanism", "SCRAM-SHA-512")
                .property(
                        "sasl.jaas.config",
                        "org.apache.kafka.common.security.scram.ScramLoginModule required " + "username=\""
                                + env.get("KAFKA_USER") + "\" password=\"" + env.get("KAFKA_PASSWORD") + "\";")
                .topics("orders")
                .build();
        ClickHouseSinkConfig clickHouse = ClickHouseSinkConfig.builder()
                .table("default", "orders")
                .shards(List.of(
                        List.of(
                                URI.create("https://ch-1a.db.internal:8443"),
                                URI.create("https://ch-1b.db.internal:8443")),
                        List.of(
                                URI.create("https://ch-2a.db.internal:8443"),
                                URI.create("https://ch-2b.db.internal:8443"))))
                .credentials(env.get("CLICKHOUSE_USER"), env.get("CLICKHOUSE_PASSWORD"))
                .tls(ClickHouseTls.trusting(trustStore)) // verifies chain and host name
                .build();
        SchemaRegistryClient registry = SchemaRegistryClient.builder("https://registry.internal:8443/apis/ccompat/v7")
                .trustStore(trustStoreFile, trustStorePassword, "PKCS12")
                .build();
        return new Secured(kafka, clickHouse, registry);
    }
    // end::without-spring[]

    @Test
    void theBuildersTakeTheSameSecuredSettings() throws Exception {
        KeyStore store = KeyStore.getInstance("PKCS12");
        store.load(null, null);
        try (InputStream in = SecuringWithoutSpringTest.class.getResourceAsStream("/tls/ca.crt")) {
            store.setCertificateEntry(
                    "ca", CertificateFactory.getInstance("X.509").generateCertificate(in));
        }
        Path file = this.dir.resolve("truststore.p12");
        try (OutputStream out = Files.newOutputStream(file)) {
            store.store(out, "trust-secret".toCharArray());
        }

        Secured secured = secured(Map.of(
                "ETL_TRUSTSTORE",
                file.toString(),
                "ETL_TRUSTSTORE_PASSWORD",
                "trust-secret",
                "KAFKA_BOOTSTRAP",
                "kafka-0.kafka.internal:9093",
                "KAFKA_USER",
                "orders-etl",
                "KAFKA_PASSWORD",
                "kafka-secret",
                "CLICKHOUSE_USER",
                "etl_writer",
                "CLICKHOUSE_PASSWORD",
                "clickhouse-secret"));

        assertThat(secured.kafka().consumerProperties())
                .containsEntry("security.protocol", "SASL_SSL")
                .containsEntry("sasl.mechanism", "SCRAM-SHA-512");
        assertThat(secured.kafka().toString()).doesNotContain("secret");
        assertThat(secured.clickHouse().tls().trustedCertificates()).hasSize(1);
        assertThat(secured.clickHouse().user()).isEqualTo("etl_writer");
        assertThat(secured.clickHouse().toString()).doesNotContain("secret");
        assertThat(secured.registry().baseUrl()).startsWith("https://");
    }
}
