package dev.etl.autoconfigure;

import static org.assertj.core.api.Assertions.assertThat;

import dev.etl.autoconfigure.avro.SchemaRegistryAutoConfiguration;
import dev.etl.autoconfigure.clickhouse.ClickHouseSinkAutoConfiguration;
import dev.etl.autoconfigure.kafka.KafkaSourceAutoConfiguration;
import dev.etl.avro.SchemaRegistryClient;
import dev.etl.clickhouse.ClickHouseSinkConfig;
import dev.etl.kafka.KafkaSourceConfig;
import dev.etl.pipeline.PipelineRuntime;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.KeyStore;
import java.security.cert.CertificateFactory;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.apache.kafka.common.config.SslConfigs;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.autoconfigure.ssl.SslAutoConfiguration;
import org.springframework.boot.env.YamlPropertySourceLoader;
import org.springframework.boot.kafka.autoconfigure.KafkaAutoConfiguration;
import org.springframework.boot.kafka.autoconfigure.SslBundleSslEngineFactory;
import org.springframework.boot.ssl.SslBundle;
import org.springframework.boot.ssl.SslBundles;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.context.ApplicationContext;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.core.env.PropertySource;
import org.springframework.core.io.ClassPathResource;
import org.yaml.snakeyaml.LoaderOptions;
import org.yaml.snakeyaml.Yaml;
import org.yaml.snakeyaml.constructor.SafeConstructor;

/**
 * The configuration of {@code docs/guides/securing.md} ({@code src/test/resources/securing/}, whose
 * tagged regions the guide shows, kept equal by DocSnippetsTest) binds to what the guide says: the
 * Kafka source speaks SASL_SSL with SCRAM-SHA-512 and the bundle's trust store, the ClickHouse sink
 * uses HTTPS replicas, a password user and the bundle, the registry client an HTTPS URL and the
 * bundle, management listens on its own port; and the Kubernetes manifest provides every variable the
 * configuration reads, the trust store as a file of the mounted secret. Nothing is started here; the
 * same settings run against real secured servers in SecuredPipelineIT.
 */
class SecuringGuideTest {

    private static final Pattern PLACEHOLDER = Pattern.compile("\\$\\{([A-Z_][A-Z0-9_]*)(:[^}]*)?}");

    @TempDir
    Path dir;

    @Test
    void theGuidesConfigurationSecuresKafkaClickHouseAndTheRegistry() throws Exception {
        Path trustStore = trustStore(this.dir, "guide-truststore-password");
        runner(trustStore).run((context) -> {
            assertThat(context).hasNotFailed();
            assertThat(context.getBean(SslBundles.class)
                            .getBundle("etl-ca")
                            .getStores()
                            .getTrustStore()
                            .containsAlias("ca"))
                    .isTrue();

            Map<String, Object> consumer =
                    context.getBean(KafkaSourceConfig.class).consumerProperties();
            assertThat(consumer)
                    .containsEntry("bootstrap.servers", "kafka-0.kafka.internal:9093")
                    .containsEntry("security.protocol", "SASL_SSL")
                    .containsEntry("sasl.mechanism", "SCRAM-SHA-512")
                    .containsEntry(SslConfigs.SSL_ENGINE_FACTORY_CLASS_CONFIG, SslBundleSslEngineFactory.class);
            assertThat(consumer.get(SslBundle.class.getName()))
                    .isSameAs(context.getBean(SslBundles.class).getBundle("etl-ca"));
            assertThat(String.valueOf(consumer.get("sasl.jaas.config")))
                    .isEqualTo(
                            "org.apache.kafka.common.security.scram.ScramLoginModule required username=\"orders-etl\" "
                                    + "password=\"kafka-secret\";");

            ClickHouseSinkConfig clickHouse = context.getBean(ClickHouseSinkConfig.class);
            assertThat(clickHouse.shards()).hasSize(2);
            assertThat(clickHouse.shards())
                    .allSatisfy((replicas) -> assertThat(replicas)
                            .hasSize(2)
                            .allSatisfy((uri) -> assertThat(uri.getScheme()).isEqualTo("https")));
            assertThat(clickHouse.shards().get(0).get(0)).isEqualTo(URI.create("https://ch-1a.db.internal:8443"));
            assertThat(clickHouse.user()).isEqualTo("etl_writer");
            assertThat(clickHouse.password()).isEqualTo("clickhouse-secret");
            assertThat(clickHouse.tls()).isNotNull();

            SchemaRegistryClient registry = context.getBean(SchemaRegistryClient.class);
            assertThat(registry.baseUrl()).isEqualTo("https://registry.internal:8443/apis/ccompat/v7");
            assertThat(registry.toString()).doesNotContain("secret");

            assertThat(context.getEnvironment().getProperty("management.server.port"))
                    .isEqualTo("8081");
            assertThat(context.getEnvironment().getProperty("management.endpoints.web.exposure.include"))
                    .isEqualTo("health,prometheus");
        });
    }

    @Test
    void theManifestProvidesEveryVariableTheConfigurationReads() throws IOException {
        Set<String> required = new LinkedHashSet<>();
        Set<String> optional = new LinkedHashSet<>();
        Matcher placeholders = PLACEHOLDER.matcher(read("securing/application.yaml"));
        while (placeholders.find()) {
            (placeholders.group(2) == null ? required : optional).add(placeholders.group(1));
        }
        assertThat(required)
                .contains(
                        "ETL_TRUSTSTORE",
                        "ETL_TRUSTSTORE_PASSWORD",
                        "KAFKA_BOOTSTRAP",
                        "KAFKA_USER",
                        "KAFKA_PASSWORD",
                        "CLICKHOUSE_USER",
                        "CLICKHOUSE_PASSWORD");

        List<Map<String, Object>> documents = manifest();
        Map<String, Object> secret = kind(documents, "Secret");
        Map<String, Object> deployment = kind(documents, "Deployment");
        Map<String, Object> pod = map(map(map(deployment, "spec"), "template"), "spec");
        Map<String, Object> container = list(pod, "containers").get(0);
        Set<String> secretKeys = new LinkedHashSet<>(map(secret, "stringData").keySet());
        secretKeys.addAll(map(secret, "data").keySet());
        String secretName = String.valueOf(map(secret, "metadata").get("name"));

        Set<String> provided = new LinkedHashSet<>();
        String trustStorePath = null;
        for (Map<String, Object> env : list(container, "env")) {
            String name = String.valueOf(env.get("name"));
            provided.add(name);
            if (env.containsKey("valueFrom")) {
                Map<String, Object> ref = map(map(env, "valueFrom"), "secretKeyRef");
                assertThat(ref.get("name")).as(name).isEqualTo(secretName);
                assertThat(secretKeys).as(name).contains(String.valueOf(ref.get("key")));
            } else if (name.equals("ETL_TRUSTSTORE")) {
                trustStorePath = String.valueOf(env.get("value"));
            } else {
                assertThat(name)
                        .as("passwords come from the secret, never as a value")
                        .doesNotContain("PASSWORD");
            }
        }
        assertThat(provided).containsAll(required);

        // ETL_TRUSTSTORE is the trust store's file in the mounted secret
        Map<String, Object> mount = list(container, "volumeMounts").get(0);
        Map<String, Object> volume = list(pod, "volumes").stream()
                .filter((v) -> v.get("name").equals(mount.get("name")))
                .findFirst()
                .orElseThrow();
        assertThat(map(volume, "secret").get("secretName")).isEqualTo(secretName);
        Map<String, Object> item = list(map(volume, "secret"), "items").get(0);
        assertThat(secretKeys).contains(String.valueOf(item.get("key")));
        assertThat(trustStorePath).isEqualTo(mount.get("mountPath") + "/" + item.get("path"));
        assertThat(mount.get("readOnly")).isEqualTo(true);
    }

    private ApplicationContextRunner runner(Path trustStore) throws IOException {
        List<PropertySource<?>> documents =
                new YamlPropertySourceLoader().load("securing", new ClassPathResource("securing/application.yaml"));
        return new ApplicationContextRunner()
                .withConfiguration(AutoConfigurations.of(
                        SslAutoConfiguration.class,
                        KafkaAutoConfiguration.class,
                        KafkaSourceAutoConfiguration.class,
                        ClickHouseSinkAutoConfiguration.class,
                        SchemaRegistryAutoConfiguration.class,
                        EtlAutoConfiguration.class))
                .withInitializer(
                        (context) -> documents.forEach(context.getEnvironment().getPropertySources()::addLast))
                .withUserConfiguration(TestPipelines.Chain.class, NotStarted.class)
                // what the Deployment's env gives the process (from the Secret)
                .withPropertyValues(
                        "ETL_TRUSTSTORE=" + trustStore,
                        "ETL_TRUSTSTORE_PASSWORD=guide-truststore-password",
                        "KAFKA_BOOTSTRAP=kafka-0.kafka.internal:9093",
                        "KAFKA_USER=orders-etl",
                        "KAFKA_PASSWORD=kafka-secret",
                        "CLICKHOUSE_USER=etl_writer",
                        "CLICKHOUSE_PASSWORD=clickhouse-secret",
                        // not part of the guide: nothing answers here
                        "etl.source.kafka.topics=orders",
                        "etl.sink.clickhouse.validation=off",
                        "etl.avro.registry.check-on-startup=false",
                        "etl.pipeline.exit-on-failure=false");
    }

    /** A PKCS12 trust store holding the test CA ({@code tls/ca.crt}), as {@code keytool -importcert} makes it. */
    static Path trustStore(Path dir, String password) throws Exception {
        KeyStore store = KeyStore.getInstance("PKCS12");
        store.load(null, null);
        try (InputStream in = new ClassPathResource("tls/ca.crt").getInputStream()) {
            store.setCertificateEntry(
                    "ca", CertificateFactory.getInstance("X.509").generateCertificate(in));
        }
        Path file = dir.resolve("truststore.p12");
        try (OutputStream out = Files.newOutputStream(file)) {
            store.store(out, password.toCharArray());
        }
        return file;
    }

    private static String read(String resource) throws IOException {
        try (InputStream in = new ClassPathResource(resource).getInputStream()) {
            return new String(in.readAllBytes(), StandardCharsets.UTF_8);
        }
    }

    @SuppressWarnings("unchecked")
    private static List<Map<String, Object>> manifest() throws IOException {
        List<Map<String, Object>> documents = new ArrayList<>();
        for (Object document :
                new Yaml(new SafeConstructor(new LoaderOptions())).loadAll(read("securing/deployment.yaml"))) {
            documents.add((Map<String, Object>) document);
        }
        return documents;
    }

    private static Map<String, Object> kind(List<Map<String, Object>> documents, String kind) {
        return documents.stream()
                .filter((d) -> kind.equals(d.get("kind")))
                .findFirst()
                .orElseThrow();
    }

    @SuppressWarnings("unchecked")
    private static Map<String, Object> map(Map<String, Object> parent, String key) {
        Object value = parent.get(key);
        assertThat(value).as(key).isInstanceOf(Map.class);
        return (Map<String, Object>) value;
    }

    @SuppressWarnings("unchecked")
    private static List<Map<String, Object>> list(Map<String, Object> parent, String key) {
        Object value = parent.get(key);
        assertThat(value).as(key).isInstanceOf(List.class);
        return (List<Map<String, Object>>) value;
    }

    @Configuration(proxyBeanMethods = false)
    static class NotStarted {

        @Bean
        EtlPipelineLifecycle notStartedLifecycle(PipelineRuntime runtime, ApplicationContext context) {
            return new EtlPipelineLifecycle(runtime, context, false, false, Duration.ofSeconds(30)) {
                @Override
                public boolean isAutoStartup() {
                    return false;
                }
            };
        }
    }
}
