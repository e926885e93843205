package dev.etl.it.spring;

import dev.etl.test.infra.InfraEndpoints;
import dev.etl.test.infra.SecuredInfraEndpoints;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;

/**
 * {@link StarterApplication} against the secured listeners, configured as a user configures a
 * production service: only {@code spring.kafka.*}, {@code spring.ssl.bundle.*} and {@code etl.*}
 * properties, with the trust store and every password taken from environment variables
 * ({@code ${ETL_TRUSTSTORE}}, {@code ${KAFKA_PASSWORD}}, ...) that the child JVM gets in its environment,
 * never on its command line. {@link #start} runs it in a child JVM; its whole output goes to a file.
 */
final class SecuredApplication {

    /** The environment a deployment would get from its secrets (Kubernetes secrets as env vars). */
    final Map<String, String> environment = new LinkedHashMap<>();

    /** {@code key=value} application properties (command-line arguments of the child). */
    final Map<String, String> properties = new LinkedHashMap<>();

    private final SecuredInfraEndpoints secured;

    SecuredApplication(InfraEndpoints infra, String topic, String group, String database) {
        this.secured = infra.secured();
        this.environment.put("ETL_TRUSTSTORE", this.secured.trustStore().toString());
        this.environment.put("ETL_TRUSTSTORE_PASSWORD", this.secured.trustStorePassword());
        this.environment.put("KAFKA_USER", this.secured.kafkaUser());
        this.environment.put("KAFKA_PASSWORD", this.secured.kafkaPassword());
        this.environment.put("CLICKHOUSE_USER", this.secured.clickhouseUser());
        this.environment.put("CLICKHOUSE_PASSWORD", this.secured.clickhousePassword());
        for (String property : StarterApplication.properties(infra, topic, group, database)) {
            int eq = property.indexOf('=');
            this.properties.put(property.substring(0, eq), property.substring(eq + 1));
        }
        this.properties.keySet().removeIf((key) -> key.startsWith("etl.sink.clickhouse.shards["));
        // one trust store for all three servers: an SSL bundle from a file and a password in the environment
        this.properties.put("spring.ssl.bundle.jks.infra.truststore.location", "file:${ETL_TRUSTSTORE}");
        this.properties.put("spring.ssl.bundle.jks.infra.truststore.password", "${ETL_TRUSTSTORE_PASSWORD}");
        this.properties.put("spring.ssl.bundle.jks.infra.truststore.type", this.secured.trustStoreType());
        // Kafka: SASL_SSL with SCRAM
        this.properties.put("spring.kafka.bootstrap-servers", this.secured.kafkaBootstrap());
        this.properties.put("spring.kafka.security.protocol", "SASL_SSL");
        this.properties.put("spring.kafka.ssl.bundle", "infra");
        this.properties.put("spring.kafka.properties[sasl.mechanism]", this.secured.kafkaSaslMechanism());
        this.properties.put(
                "spring.kafka.properties[sasl.jaas.config]",
                "org.apache.kafka.common.security.scram.ScramLoginModule required username=\"${KAFKA_USER}\" "
                        + "password=\"${KAFKA_PASSWORD}\";");
        // ClickHouse: HTTPS with a password user
        for (int s = 0; s < this.secured.clickhouseShards().size(); s++) {
            this.properties.put(
                    "etl.sink.clickhouse.shards[" + s + "].replicas",
                    String.join(",", this.secured.clickhouseShards().get(s).replicaUrls()));
        }
        this.properties.put("etl.sink.clickhouse.ssl.bundle", "infra");
        this.properties.put("etl.sink.clickhouse.username", "${CLICKHOUSE_USER}");
        this.properties.put("etl.sink.clickhouse.password", "${CLICKHOUSE_PASSWORD}");
        // the registry over HTTPS
        this.properties.put("etl.avro.registry.url", this.secured.registryUrl());
        this.properties.put("etl.avro.registry.ssl-bundle", "infra");
        // listen on loopback only, and show what the clients log about their configuration
        this.properties.put("server.address", "127.0.0.1");
        this.properties.put("logging.level.org.apache.kafka.common.config.AbstractConfig", "INFO");
    }

    /** Every secret the environment carries: none may appear in a log line. */
    List<String> secrets() {
        return List.of(
                this.secured.kafkaPassword(),
                this.secured.clickhousePassword(),
                this.secured.clickhouseReadonlyPassword(),
                this.secured.trustStorePassword());
    }

    SecuredInfraEndpoints secured() {
        return this.secured;
    }

    /** Starts the application in a child JVM, output (stdout and stderr) to {@code log}. */
    Process start(Path log) throws IOException {
        String java = Path.of(System.getProperty("java.home"), "bin", "java").toString();
        List<String> command = new ArrayList<>(List.of(
                java,
                "-Xmx384m",
                "-XX:TieredStopAtLevel=1",
                "-cp",
                System.getProperty("java.class.path"),
                StarterApplication.class.getName()));
        this.properties.forEach((key, value) -> command.add("--" + key + "=" + value));
        ProcessBuilder builder =
                new ProcessBuilder(command).redirectErrorStream(true).redirectOutput(log.toFile());
        builder.environment().putAll(this.environment);
        return builder.start();
    }

    /** Runs the application until it exits (at most {@code timeoutSeconds}); returns its exit code, -1 if killed. */
    int runToExit(Path log, long timeoutSeconds) throws IOException, InterruptedException {
        Process child = start(log);
        if (!child.waitFor(timeoutSeconds, TimeUnit.SECONDS)) {
            child.destroyForcibly().waitFor(10, TimeUnit.SECONDS);
            return -1;
        }
        return child.exitValue();
    }

    static String read(Path log) {
        try {
            return Files.readString(log);
        } catch (IOException ex) {
            return "(no log: " + ex + ")";
        }
    }

    static String tail(Path log) {
        List<String> lines = read(log).lines().toList();
        return String.join("\n", lines.subList(Math.max(0, lines.size() - 60), lines.size()));
    }
}
