package dev.etl.test.infra;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatIllegalArgumentException;
import static org.assertj.core.api.Assertions.assertThatIllegalStateException;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Properties;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class InfraEndpointsTest {

    private static final String SAMPLE = """
            zookeeper.connect=127.0.0.1:12181
            clickhouse.cluster=etl
            clickhouse.shards=2
            clickhouse.shard.1.replicas=http://127.0.0.1:18123,http://127.0.0.1:18124
            clickhouse.shard.2.replicas=http://127.0.0.1:18125/, http://127.0.0.1:18126
            kafka.bootstrap=127.0.0.1:19092
            registry.url=http://127.0.0.1:18081/apis/ccompat/v7/
            """;

    @Test
    void loadsWhatTheInfraScriptWrites(@TempDir Path dir) throws IOException {
        Path file = Files.writeString(dir.resolve(InfraEndpoints.FILE_NAME), SAMPLE);

        InfraEndpoints endpoints = InfraEndpoints.load(file);

        assertThat(endpoints.zookeeperConnect()).isEqualTo("127.0.0.1:12181");
        assertThat(endpoints.clickhouseCluster()).isEqualTo("etl");
        assertThat(endpoints.clickhouseShards())
                .extracting(InfraEndpoints.ClickHouseShard::number)
                .containsExactly(1, 2);
        assertThat(endpoints.clickhouseShard(1).replicaUrl(2)).isEqualTo("http://127.0.0.1:18124");
        assertThat(endpoints.clickhouseShard(2).replicaUrls())
                .containsExactly("http://127.0.0.1:18125", "http://127.0.0.1:18126");
        assertThat(endpoints.clickhouseReplicaUrls()).hasSize(4);
        assertThat(endpoints.kafkaBootstrap()).isEqualTo("127.0.0.1:19092");
        assertThat(endpoints.registryUrl()).isEqualTo("http://127.0.0.1:18081/apis/ccompat/v7");
    }

    @Test
    void missingKeyIsNamedWithTheFile(@TempDir Path dir) throws IOException {
        Path file = Files.writeString(
                dir.resolve(InfraEndpoints.FILE_NAME), SAMPLE.replace("kafka.bootstrap=127.0.0.1:19092\n", ""));

        assertThatIllegalArgumentException()
                .isThrownBy(() -> InfraEndpoints.load(file))
                .withMessageContaining(file.toString())
                .withMessageContaining("kafka.bootstrap");
    }

    @Test
    void shardWithoutReplicasIsRejected() {
        Properties properties = new Properties();
        properties.setProperty("zookeeper.connect", "127.0.0.1:12181");
        properties.setProperty("clickhouse.cluster", "etl");
        properties.setProperty("clickhouse.shards", "1");
        properties.setProperty("clickhouse.shard.1.replicas", " , ");
        properties.setProperty("kafka.bootstrap", "127.0.0.1:19092");
        properties.setProperty("registry.url", "http://127.0.0.1:18081");

        assertThatIllegalArgumentException()
                .isThrownBy(() -> InfraEndpoints.parse(properties))
                .withMessageContaining("clickhouse.shard.1.replicas");
    }

    private static final String S3 = """
            s3.endpoint=http://127.0.0.1:19300/
            s3.region=us-east-1
            s3.access-key=etl-local
            s3.secret-key=s3-secret
            """;

    @Test
    void s3ServerIsReadWithItsRegionAndCredential(@TempDir Path dir) throws IOException {
        InfraEndpoints endpoints =
                InfraEndpoints.load(Files.writeString(dir.resolve(InfraEndpoints.FILE_NAME), SAMPLE + S3));

        assertThat(endpoints.hasS3()).isTrue();
        S3InfraEndpoints s3 = endpoints.s3();
        assertThat(s3.endpoint()).isEqualTo("http://127.0.0.1:19300");
        assertThat(s3.endpointUri()).hasHost("127.0.0.1").hasPort(19300);
        assertThat(s3.region()).isEqualTo("us-east-1");
        assertThat(s3.accessKey()).isEqualTo("etl-local");
        assertThat(s3.secretKey()).isEqualTo("s3-secret");
        assertThat(s3.toString() + endpoints).contains("http://127.0.0.1:19300").doesNotContain("secret");
    }

    @Test
    void withoutS3KeysTheAccessorNamesWhatIsMissingAndTheFix(@TempDir Path dir) throws IOException {
        InfraEndpoints plain = InfraEndpoints.load(Files.writeString(dir.resolve(InfraEndpoints.FILE_NAME), SAMPLE));
        assertThat(plain.hasS3()).isFalse();
        assertThatIllegalStateException()
                .isThrownBy(plain::s3)
                .withMessageContaining("s3.endpoint")
                .withMessageContaining("scripts/infra.sh start s3");

        InfraEndpoints partly = InfraEndpoints.load(Files.writeString(
                dir.resolve("partly.properties"), SAMPLE + S3.replace("s3.secret-key=s3-secret\n", "")));
        assertThat(partly.hasS3()).isFalse();
        assertThatIllegalStateException().isThrownBy(partly::s3).withMessageContaining("[s3.secret-key]");
    }

    @Test
    void s3EndpointThatIsNotAnHttpUrlIsRejectedNamingTheKey(@TempDir Path dir) throws IOException {
        Path file = Files.writeString(
                dir.resolve(InfraEndpoints.FILE_NAME),
                SAMPLE + S3.replace("http://127.0.0.1:19300/", "127.0.0.1:19300"));

        assertThatIllegalArgumentException()
                .isThrownBy(() -> InfraEndpoints.load(file))
                .withMessageContaining(file.toString())
                .withMessageContaining("s3.endpoint");
    }

    private static final String SECURED = """
            tls.host=localhost
            tls.ca.pem=/infra/tls/ca.crt
            tls.truststore=/infra/tls/truststore.p12
            tls.truststore.type=PKCS12
            tls.truststore.password=trust-secret
            clickhouse.https.shard.1.replicas=https://localhost:18443,https://localhost:18444
            clickhouse.https.shard.2.replicas=https://localhost:18445/,https://localhost:18446
            clickhouse.https.user=etl
            clickhouse.https.password=ch-secret
            clickhouse.https.readonly-user=reader
            clickhouse.https.readonly-password=reader-secret
            kafka.sasl-ssl.bootstrap=localhost:19094
            kafka.sasl-ssl.mechanism=SCRAM-SHA-512
            kafka.sasl-ssl.user=etl
            kafka.sasl-ssl.password=scram-secret
            registry.https.url=https://localhost:18082/apis/ccompat/v7/
            """;

    @Test
    void securedListenersAreReadWithTheirUsersAndTrustStore(@TempDir Path dir) throws IOException {
        InfraEndpoints endpoints =
                InfraEndpoints.load(Files.writeString(dir.resolve(InfraEndpoints.FILE_NAME), SAMPLE + S3 + SECURED));

        assertThat(endpoints.hasSecured()).isTrue();
        SecuredInfraEndpoints secured = endpoints.secured();
        assertThat(secured.clickhouseShard(2).replicaUrls())
                .containsExactly("https://localhost:18445", "https://localhost:18446");
        assertThat(secured.clickhouseUser()).isEqualTo("etl");
        assertThat(secured.clickhousePassword()).isEqualTo("ch-secret");
        assertThat(secured.clickhouseReadonlyUser()).isEqualTo("reader");
        assertThat(secured.trustStore()).isEqualTo(Path.of("/infra/tls/truststore.p12"));
        assertThat(secured.registryUrl()).isEqualTo("https://localhost:18082/apis/ccompat/v7");
        assertThat(secured.kafkaClientProperties())
                .containsEntry("bootstrap.servers", "localhost:19094")
                .containsEntry("security.protocol", "SASL_SSL")
                .containsEntry("sasl.mechanism", "SCRAM-SHA-512")
                .containsEntry("ssl.truststore.password", "trust-secret");
        assertThat(String.valueOf(secured.kafkaClientProperties().get("sasl.jaas.config")))
                .contains("username=\"etl\"", "password=\"scram-secret\"");
        assertThat(secured.toString() + endpoints).doesNotContain("secret");
    }

    @Test
    void withoutSecuredListenersTheAccessorNamesWhatIsMissingAndTheFix(@TempDir Path dir) throws IOException {
        InfraEndpoints plain = InfraEndpoints.load(Files.writeString(dir.resolve(InfraEndpoints.FILE_NAME), SAMPLE));
        assertThat(plain.hasSecured()).isFalse();
        assertThatIllegalStateException()
                .isThrownBy(plain::secured)
                .withMessageContaining("kafka.sasl-ssl.bootstrap")
                .withMessageContaining("scripts/infra.sh stop all");

        InfraEndpoints partly = InfraEndpoints.load(Files.writeString(
                dir.resolve("partly.properties"),
                SAMPLE + SECURED.replace("registry.https.url=https://localhost:18082/apis/ccompat/v7/\n", "")));
        assertThatIllegalStateException().isThrownBy(partly::secured).withMessageContaining("[registry.https.url]");
    }
}
