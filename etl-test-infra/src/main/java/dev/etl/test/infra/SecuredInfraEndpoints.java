package dev.etl.test.infra;

import java.io.IOException;
import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.GeneralSecurityException;
import java.security.KeyStore;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import javax.net.ssl.SSLContext;
import javax.net.ssl.TrustManagerFactory;

/**
 * The secured listeners of the same local servers ({@code scripts/infra.sh} starts them next to the
 * plaintext ones) and what a client needs for them: ClickHouse over HTTPS with a password user and a
 * read-only user, Kafka over {@code SASL_SSL} with a SCRAM user, the registry over HTTPS, and the trust
 * store holding the throwaway CA that issued the servers' certificate (made per run; the certificate
 * names {@link #tlsHost()} only, so {@code 127.0.0.1} in a URL is a host-name mismatch).
 *
 * <p>Read from the {@code tls.*}, {@code clickhouse.https.*}, {@code kafka.sasl-ssl.*} and
 * {@code registry.https.*} keys of {@code endpoints.properties}:
 * <pre>
 * tls.host=localhost
 * tls.ca.pem=/…/.infra/tls/ca.crt
 * tls.truststore=/…/.infra/tls/truststore.p12
 * tls.truststore.type=PKCS12
 * tls.truststore.password=…
 * clickhouse.https.shard.1.replicas=https://localhost:18443,https://localhost:18444
 * clickhouse.https.shard.2.replicas=https://localhost:18445,https://localhost:18446
 * clickhouse.https.user=etl
 * clickhouse.https.password=…
 * clickhouse.https.readonly-user=reader
 * clickhouse.https.readonly-password=…
 * kafka.sasl-ssl.bootstrap=localhost:19094
 * kafka.sasl-ssl.mechanism=SCRAM-SHA-512
 * kafka.sasl-ssl.user=etl
 * kafka.sasl-ssl.password=…
 * registry.https.url=https://localhost:18082/apis/ccompat/v7
 * </pre>
 * Immutable; {@link #toString()} shows no password.
 */
public final class SecuredInfraEndpoints {

    private final String tlsHost;
    private final Path caPem;
    private final Path trustStore;
    private final String trustStoreType;
    private final String trustStorePassword;
    private final List<InfraEndpoints.ClickHouseShard> clickhouseShards;
    private final String clickhouseUser;
    private final String clickhousePassword;
    private final String clickhouseReadonlyUser;
    private final String clickhouseReadonlyPassword;
    private final String kafkaBootstrap;
    private final String kafkaMechanism;
    private final String kafkaUser;
    private final String kafkaPassword;
    private final String registryUrl;

    private SecuredInfraEndpoints(Properties p, int shardCount) {
        this.tlsHost = p.getProperty("tls.host").trim();
        this.caPem = Path.of(p.getProperty("tls.ca.pem").trim());
        this.trustStore = Path.of(p.getProperty("tls.truststore").trim());
        this.trustStoreType = p.getProperty("tls.truststore.type").trim();
        this.trustStorePassword = p.getProperty("tls.truststore.password").trim();
        List<InfraEndpoints.ClickHouseShard> shards = new ArrayList<>(shardCount);
        for (int shard = 1; shard <= shardCount; shard++) {
            shards.add(new InfraEndpoints.ClickHouseShard(
                    shard, InfraEndpoints.urls(p, "clickhouse.https.shard." + shard + ".replicas")));
        }
        this.clickhouseShards = List.copyOf(shards);
        this.clickhouseUser = p.getProperty("clickhouse.https.user").trim();
        this.clickhousePassword = p.getProperty("clickhouse.https.password").trim();
        this.clickhouseReadonlyUser =
                p.getProperty("clickhouse.https.readonly-user").trim();
        this.clickhouseReadonlyPassword =
                p.getProperty("clickhouse.https.readonly-password").trim();
        this.kafkaBootstrap = p.getProperty("kafka.sasl-ssl.bootstrap").trim();
        this.kafkaMechanism = p.getProperty("kafka.sasl-ssl.mechanism").trim();
        this.kafkaUser = p.getProperty("kafka.sasl-ssl.user").trim();
        this.kafkaPassword = p.getProperty("kafka.sasl-ssl.password").trim();
        String url = p.getProperty("registry.https.url").trim();
        this.registryUrl = url.endsWith("/") ? url.substring(0, url.length() - 1) : url;
    }

    /** Keys every secured endpoint needs, besides one replica list per shard. */
    private static final List<String> KEYS = List.of(
            "tls.host",
            "tls.ca.pem",
            "tls.truststore",
            "tls.truststore.type",
            "tls.truststore.password",
            "clickhouse.https.user",
            "clickhouse.https.password",
            "clickhouse.https.readonly-user",
            "clickhouse.https.readonly-password",
            "kafka.sasl-ssl.bootstrap",
            "kafka.sasl-ssl.mechanism",
            "kafka.sasl-ssl.user",
            "kafka.sasl-ssl.password",
            "registry.https.url");

    /**
     * The secured endpoints in {@code properties}, or null when keys are missing; {@code missing}
     * receives their names.
     */
    static SecuredInfraEndpoints parse(Properties properties, int shardCount, List<String> missing) {
        for (String key : KEYS) {
            if (isBlank(properties.getProperty(key))) {
                missing.add(key);
            }
        }
        for (int shard = 1; shard <= shardCount; shard++) {
            if (isBlank(properties.getProperty("clickhouse.https.shard." + shard + ".replicas"))) {
                missing.add("clickhouse.https.shard." + shard + ".replicas");
            }
        }
        return missing.isEmpty() ? new SecuredInfraEndpoints(properties, shardCount) : null;
    }

    private static boolean isBlank(String value) {
        return value == null || value.isBlank();
    }

    /**
     * Returns the host name the servers' certificate is issued for.
     * @return {@code localhost}
     */
    public String tlsHost() {
        return tlsHost;
    }

    /**
     * Returns the CA certificate as a PEM file.
     * @return the path of {@code ca.crt}
     */
    public Path caPem() {
        return caPem;
    }

    /**
     * Returns the trust store holding the CA, for Java clients.
     * @return the path of the store
     */
    public Path trustStore() {
        return trustStore;
    }

    /**
     * Returns the trust store's type.
     * @return {@code PKCS12}
     */
    public String trustStoreType() {
        return trustStoreType;
    }

    /**
     * Returns the trust store's password.
     * @return the password
     */
    public String trustStorePassword() {
        return trustStorePassword;
    }

    /**
     * Returns an SSL context that trusts the CA (and nothing else), for test-side HTTPS clients.
     * @return a new context
     */
    public SSLContext sslContext() {
        try (InputStream in = Files.newInputStream(trustStore)) {
            KeyStore store = KeyStore.getInstance(trustStoreType);
            store.load(in, trustStorePassword.toCharArray());
            TrustManagerFactory trust = TrustManagerFactory.getInstance(TrustManagerFactory.getDefaultAlgorithm());
            trust.init(store);
            SSLContext context = SSLContext.getInstance("TLS");
            context.init(null, trust.getTrustManagers(), null);
            return context;
        } catch (IOException | GeneralSecurityException ex) {
            throw new IllegalStateException(
                    "cannot load the local infrastructure's trust store " + trustStore + ": " + ex, ex);
        }
    }

    /**
     * Returns the ClickHouse shards with the HTTPS URLs of their replicas, in shard-number order.
     * @return an immutable list, e.g. {@code https://localhost:18443} for {@code s1r1}
     */
    public List<InfraEndpoints.ClickHouseShard> clickhouseShards() {
        return clickhouseShards;
    }

    /**
     * Returns one shard by its 1-based number.
     * @param number the shard number, from 1
     * @return the shard with its HTTPS replica URLs
     */
    public InfraEndpoints.ClickHouseShard clickhouseShard(int number) {
        return clickhouseShards.get(number - 1);
    }

    /**
     * Returns the ClickHouse user that may write (profile {@code default}, a password).
     * @return the user name, {@code etl}
     */
    public String clickhouseUser() {
        return clickhouseUser;
    }

    /**
     * Returns the password of {@link #clickhouseUser()}.
     * @return the password
     */
    public String clickhousePassword() {
        return clickhousePassword;
    }

    /**
     * Returns the ClickHouse user in the {@code readonly=1} profile.
     * @return the user name, {@code reader}
     */
    public String clickhouseReadonlyUser() {
        return clickhouseReadonlyUser;
    }

    /**
     * Returns the password of {@link #clickhouseReadonlyUser()}.
     * @return the password
     */
    public String clickhouseReadonlyPassword() {
        return clickhouseReadonlyPassword;
    }

    /**
     * Returns the bootstrap address of the broker's {@code SASL_SSL} listener.
     * @return e.g. {@code localhost:19094}
     */
    public String kafkaBootstrap() {
        return kafkaBootstrap;
    }

    /**
     * Returns the SASL mechanism of the SCRAM user.
     * @return {@code SCRAM-SHA-512}
     */
    public String kafkaSaslMechanism() {
        return kafkaMechanism;
    }

    /**
     * Returns the SCRAM user.
     * @return the user name, {@code etl}
     */
    public String kafkaUser() {
        return kafkaUser;
    }

    /**
     * Returns the SCRAM user's password.
     * @return the password
     */
    public String kafkaPassword() {
        return kafkaPassword;
    }

    /**
     * Returns Kafka client properties for the {@code SASL_SSL} listener as the SCRAM user, trusting the
     * CA: {@code bootstrap.servers}, {@code security.protocol}, {@code sasl.mechanism},
     * {@code sasl.jaas.config} and {@code ssl.truststore.*}.
     * @return a new mutable map
     */
    public Map<String, Object> kafkaClientProperties() {
        Map<String, Object> properties = new LinkedHashMap<>();
        properties.put("bootstrap.servers", kafkaBootstrap);
        properties.put("security.protocol", "SASL_SSL");
        properties.put("sasl.mechanism", kafkaMechanism);
        properties.put(
                "sasl.jaas.config",
                "org.apache.kafka.common.security.scram.ScramLoginModule required username=\"" + kafkaUser
                        + "\" password=\"" + kafkaPassword + "\";");
        properties.put("ssl.truststore.location", trustStore.toString());
        properties.put("ssl.truststore.type", trustStoreType);
        properties.put("ssl.truststore.password", trustStorePassword);
        return properties;
    }

    /**
     * Returns the base URL of the registry's Confluent-compatible API over HTTPS.
     * @return e.g. {@code https://localhost:18082/apis/ccompat/v7}, without a trailing slash
     */
    public String registryUrl() {
        return registryUrl;
    }

    /** Endpoints and users; never a password. */
    @Override
    public String toString() {
        return "SecuredInfraEndpoints{tlsHost=" + tlsHost + ", trustStore=" + trustStore + ", clickhouse="
                + clickhouseShards + " users " + clickhouseUser + "/" + clickhouseReadonlyUser + " (readonly), kafka="
                + kafkaBootstrap + " " + kafkaMechanism + " user " + kafkaUser + ", registry=" + registryUrl + "}";
    }
}
