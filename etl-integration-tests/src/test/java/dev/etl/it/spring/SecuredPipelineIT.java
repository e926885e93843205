package dev.etl.it.spring;

import static dev.etl.it.spring.StarterItSupport.sum;
import static dev.etl.it.support.ConsumerGroupOffsets.committed;
import static dev.etl.it.support.ConsumerGroupOffsets.endOffsets;
import static dev.etl.it.support.Eventually.await;
import static org.assertj.core.api.Assertions.assertThat;

import dev.etl.it.spring.StarterItSupport.OrderProducer;
import dev.etl.it.spring.StarterItSupport.PartitionRows;
import dev.etl.test.infra.ClickHouseTestDatabase;
import dev.etl.test.infra.InfraEndpoints;
import dev.etl.test.infra.KafkaTestTopics;
import dev.etl.test.infra.LocalInfra;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.apache.kafka.common.TopicPartition;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The starter against the secured listeners of the local servers (issue 17): Avro orders read over
 * Kafka {@code SASL_SSL} (SCRAM-SHA-512), writer schemas fetched from the registry over HTTPS, rows
 * written to both ClickHouse shards over HTTPS as a password user; configured only with
 * {@code spring.kafka.*}, {@code spring.ssl.bundle.*} and {@code etl.*}, trust store and passwords from
 * environment variables ({@link SecuredApplication}), in a child JVM.
 *
 * <p>Then the mistakes a user makes, each in a child JVM that must exit 1 within seconds with a log
 * that names the server and the cause: a wrong SCRAM password, a server certificate not in the trust
 * store (Kafka, ClickHouse, registry), a host name the certificate does not name, a read-only or a
 * wrongly authenticated ClickHouse user. No log of any run contains a password.
 */
@LocalInfra
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class SecuredPipelineIT {

    private static final Logger log = LoggerFactory.getLogger(SecuredPipelineIT.class);

    private static final int PARTITIONS = 4;

    private static final int ORDERS = 10_000;

    /** How long a misconfigured application may take to exit: startup, the first poll, the exit. */
    private static final long FAIL_FAST_SECONDS = 60;

    private InfraEndpoints infra;

    private ClickHouseTestDatabase db;

    private String topic;

    @BeforeAll
    void topicTableAndOrders(InfraEndpoints infra, ClickHouseTestDatabase db, KafkaTestTopics topics) throws Exception {
        this.infra = infra;
        this.db = db;
        this.topic = topics.create("secured", PARTITIONS);
        StarterItSupport.createOrdersTable(db);
        int schemaId = StarterItSupport.registerSchema(infra, this.topic);
        try (OrderProducer producer = new OrderProducer(infra.kafkaBootstrap(), this.topic, PARTITIONS, schemaId)) {
            producer.send(0, ORDERS);
            producer.flush();
        }
    }

    private SecuredApplication app(String group) {
        return new SecuredApplication(this.infra, this.topic, group, this.db.name());
    }

    @Test
    @Timeout(value = 120, unit = TimeUnit.SECONDS)
    void ordersFlowOverSaslSslAndHttpsToBothShards(KafkaTestTopics topics, @TempDir Path dir) throws Exception {
        String group = StarterItSupport.unique("secured-ok");
        SecuredApplication app = app(group);
        Path childLog = dir.resolve("secured-ok.log");
        Process child = app.start(childLog);
        try {
            Map<TopicPartition, Long> end = endOffsets(topics.admin(), this.topic, PARTITIONS);
            await(Duration.ofSeconds(90), "every end offset committed " + end + " (log " + childLog + ")", () -> {
                assertThat(child.isAlive())
                        .as("child alive; log:\n%s", SecuredApplication.tail(childLog))
                        .isTrue();
                return committed(topics.admin(), group).equals(end);
            });
            long shard1 = StarterItSupport.shardRows(this.infra.clickhouseShard(1), this.db);
            long shard2 = StarterItSupport.shardRows(this.infra.clickhouseShard(2), this.db);
            assertThat(shard1).as("rows in shard 1").isPositive();
            assertThat(shard2).as("rows in shard 2").isPositive();
            assertThat(shard1 + shard2).as("rows in both shards").isEqualTo(ORDERS);
            Map<Integer, PartitionRows> rows = StarterItSupport.rowsByPartition(this.infra, this.db, PARTITIONS);
            for (int p = 0; p < PARTITIONS; p++) {
                long produced = end.get(new TopicPartition(this.topic, p));
                assertThat(rows.get(p))
                        .as("partition %d", p)
                        .isEqualTo(new PartitionRows(produced, produced, (produced - 1) * PARTITIONS + p));
            }
            child.destroy(); // SIGTERM: drain, final commit, exit 0
            assertThat(child.waitFor(40, TimeUnit.SECONDS))
                    .as("exited after SIGTERM")
                    .isTrue();
            assertThat(child.exitValue())
                    .as("exit code; log:\n%s", SecuredApplication.tail(childLog))
                    .isZero();
        } finally {
            if (child.isAlive()) {
                child.destroyForcibly().waitFor(10, TimeUnit.SECONDS);
            }
        }
        String text = SecuredApplication.read(childLog);
        log.info("secured run: {} rows, log {}", ORDERS, childLog);
        assertThat(text)
                .contains(
                        "security.protocol = SASL_SSL",
                        "sasl.jaas.config = [hidden]",
                        "schema registry " + app.secured().registryUrl() + " answers");
        assertNoSecret(app, text);
        assertThat(sum(committed(topics.admin(), group))).isEqualTo(ORDERS);
    }

    // The mistakes: each fails fast, names the server and the cause, and prints no secret

    @Test
    void aWrongScramPasswordFailsFastNamingTheBrokerAndTheLogin(@TempDir Path dir) throws Exception {
        SecuredApplication app = app(StarterItSupport.unique("secured-scram"));
        app.environment.put("KAFKA_PASSWORD", "not-the-scram-password-4711");
        String text = failsFast(app, dir.resolve("wrong-scram.log"));
        assertThat(text)
                .contains(
                        "cannot authenticate to Kafka at bootstrap.servers="
                                + app.secured().kafkaBootstrap()
                                + " (security.protocol=SASL_SSL, sasl.mechanism=SCRAM-SHA-512)",
                        "wrong user name or password",
                        "invalid credentials");
        assertThat(text).doesNotContain("not-the-scram-password-4711");
    }

    @Test
    void aBrokerCertificateOutsideTheTrustStoreFailsFastNamingTheBroker(@TempDir Path dir) throws Exception {
        SecuredApplication app = app(StarterItSupport.unique("secured-untrusted-kafka"));
        app.properties.remove("spring.kafka.ssl.bundle"); // the JVM's trust store does not know the CA
        String text = failsFast(app, dir.resolve("untrusted-kafka.log"));
        assertThat(text)
                .contains(
                        "cannot authenticate to Kafka at bootstrap.servers="
                                + app.secured().kafkaBootstrap(),
                        "the broker's certificate is not trusted",
                        "PKIX path building failed");
    }

    @Test
    void aClickHouseCertificateOutsideTheTrustStoreFailsFastNamingTheReplica(@TempDir Path dir) throws Exception {
        SecuredApplication app = app(StarterItSupport.unique("secured-untrusted-ch"));
        app.properties.remove("etl.sink.clickhouse.ssl.bundle");
        String text = failsFast(app, dir.resolve("untrusted-clickhouse.log"));
        assertThat(text)
                .contains(
                        "TLS with ClickHouse shard 0 replica "
                                + app.secured().clickhouseShard(1).replicaUrl(1)
                                + " failed: the server's certificate is not trusted",
                        "etl.sink.clickhouse.ssl.bundle");
    }

    @Test
    void aRegistryCertificateOutsideTheTrustStoreFailsFastNamingTheRegistry(@TempDir Path dir) throws Exception {
        SecuredApplication app = app(StarterItSupport.unique("secured-untrusted-registry"));
        app.properties.remove("etl.avro.registry.ssl-bundle");
        String text = failsFast(app, dir.resolve("untrusted-registry.log"));
        assertThat(text)
                .contains(
                        "TLS with schema registry " + app.secured().registryUrl()
                                + " failed: the registry's certificate is not trusted",
                        "etl.avro.registry.ssl-bundle");
    }

    @Test
    void aHostNameTheCertificateDoesNotNameFailsFastForKafkaAndClickHouse(@TempDir Path dir) throws Exception {
        String host = this.infra.secured().tlsHost();
        SecuredApplication kafka = app(StarterItSupport.unique("secured-host-kafka"));
        kafka.properties.put(
                "spring.kafka.bootstrap-servers",
                kafka.secured().kafkaBootstrap().replace(host, "127.0.0.1"));
        String kafkaLog = failsFast(kafka, dir.resolve("hostname-kafka.log"));
        assertThat(kafkaLog)
                .contains(
                        "cannot authenticate to Kafka at bootstrap.servers=127.0.0.1:",
                        "the broker's certificate is not issued for the host",
                        "127.0.0.1");

        SecuredApplication clickHouse = app(StarterItSupport.unique("secured-host-ch"));
        clickHouse.properties.replaceAll((key, value) -> key.startsWith("etl.sink.clickhouse.shards[")
                ? value.replace("//" + host + ":", "//127.0.0.1:")
                : value);
        String clickHouseLog = failsFast(clickHouse, dir.resolve("hostname-clickhouse.log"));
        assertThat(clickHouseLog)
                .contains(
                        "TLS with ClickHouse shard 0 replica https://127.0.0.1:",
                        "the server's certificate is not issued for '127.0.0.1'");
    }

    @Test
    void aReadOnlyClickHouseUserFailsFastNamingTheUserAndTheReplica(@TempDir Path dir) throws Exception {
        SecuredApplication app = app(StarterItSupport.unique("secured-readonly"));
        app.environment.put("CLICKHOUSE_USER", app.secured().clickhouseReadonlyUser());
        app.environment.put("CLICKHOUSE_PASSWORD", app.secured().clickhouseReadonlyPassword());
        String text = failsFast(app, dir.resolve("readonly.log"));
        assertThat(text)
                .contains(
                        "ClickHouse user '" + app.secured().clickhouseReadonlyUser() + "' on shard 0 replica "
                                + app.secured().clickhouseShard(1).replicaUrl(1) + " is read-only",
                        "readonly=0");
    }

    @Test
    void aWrongClickHousePasswordFailsFastNamingTheReplica(@TempDir Path dir) throws Exception {
        SecuredApplication app = app(StarterItSupport.unique("secured-ch-password"));
        app.environment.put("CLICKHOUSE_PASSWORD", "not-the-clickhouse-password-0815");
        String text = failsFast(app, dir.resolve("wrong-clickhouse-password.log"));
        assertThat(text)
                .contains(
                        "replica " + app.secured().clickhouseShard(1).replicaUrl(1),
                        "Wrong password for user " + app.secured().clickhouseUser());
        assertThat(text).doesNotContain("not-the-clickhouse-password-0815");
    }

    private static void assertNoSecret(SecuredApplication app, String text) {
        for (String secret : app.secrets()) {
            assertThat(text).as("the log holds no password").doesNotContain(secret);
        }
    }

    /** Runs a misconfigured application: it must exit 1 within {@link #FAIL_FAST_SECONDS}; answers its log. */
    private String failsFast(SecuredApplication app, Path log) throws Exception {
        long started = System.nanoTime();
        int exit = app.runToExit(log, FAIL_FAST_SECONDS);
        long ms = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - started);
        String text = SecuredApplication.read(log);
        SecuredPipelineIT.log.info(
                "{} exited {} after {} ms; its failure: {}", log.getFileName(), exit, ms, failureLine(text));
        assertThat(exit)
                .as("exit code of %s; log:\n%s", log.getFileName(), SecuredApplication.tail(log))
                .isEqualTo(1);
        assertNoSecret(app, text);
        return text;
    }

    /** The first ERROR line, for the test's own log. */
    private static String failureLine(String text) {
        Matcher m =
                Pattern.compile("(?m)^.*(ERROR|APPLICATION FAILED TO START).*$").matcher(text);
        return m.find() ? m.group() : "(no ERROR line)";
    }
}
