package dev.etl.test.infra;

import java.io.IOException;
import java.io.Reader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Objects;
import java.util.Properties;

/**
 * Where the local servers listen: ClickHouse shards and their replicas, the Kafka bootstrap
 * address, the schema registry, ZooKeeper and the S3-compatible server.
 *
 * <p>Read from {@code endpoints.properties}, which {@code scripts/infra.sh start} writes into the
 * infrastructure directory:
 * <pre>
 * zookeeper.connect=127.0.0.1:12181
 * clickhouse.cluster=etl
 * clickhouse.shards=2
 * clickhouse.shard.1.replicas=http://127.0.0.1:18123,http://127.0.0.1:18124
 * clickhouse.shard.2.replicas=http://127.0.0.1:18125,http://127.0.0.1:18126
 * kafka.bootstrap=127.0.0.1:19092
 * registry.url=http://127.0.0.1:18081/apis/ccompat/v7
 * </pre>
 * plus the {@code s3.*} keys of {@link #s3()} (a work directory started by an older
 * {@code scripts/infra.sh} has none) and, when the servers run with their secured listeners, the keys
 * of {@link #secured()}.
 * Tests get an instance by declaring a parameter of this type under {@link LocalInfra}.
 * Immutable and thread-safe.
 */
public final class InfraEndpoints {

    /** Name of the file {@code scripts/infra.sh start} writes into the infrastructure directory. */
    public static final String FILE_NAME = "endpoints.properties";

    private final String zookeeperConnect;
    private final String clickhouseCluster;
    private final List<ClickHouseShard> clickhouseShards;
    private final String kafkaBootstrap;
    private final String registryUrl;

    /** The secured listeners, or null when the file lists none (see {@link #secured()}). */
    private final SecuredInfraEndpoints secured;

    /** Why {@link #secured} is null: the missing keys. */
    private final List<String> securedMissing;

    /** The S3-compatible server, or null when the file does not list it (see {@link #s3()}). */
    private final S3InfraEndpoints s3;

    /** Why {@link #s3} is null: the missing keys. */
    private final List<String> s3Missing;

    /**
     * Creates endpoints from their parts.
     * @param zookeeperConnect ZooKeeper connect string, {@code host:port}
     * @param clickhouseCluster ClickHouse cluster name in {@code remote_servers}
     * @param clickhouseShards shards in shard-number order, each with at least one replica
     * @param kafkaBootstrap Kafka {@code bootstrap.servers}
     * @param registryUrl base URL of the Confluent-compatible registry API, without a trailing slash
     */
    public InfraEndpoints(
            String zookeeperConnect,
            String clickhouseCluster,
            List<ClickHouseShard> clickhouseShards,
            String kafkaBootstrap,
            String registryUrl) {
        this(
                zookeeperConnect,
                clickhouseCluster,
                clickhouseShards,
                kafkaBootstrap,
                registryUrl,
                null,
                List.of("tls.host"),
                null,
                List.of("s3.endpoint"));
    }

    private InfraEndpoints(
            String zookeeperConnect,
            String clickhouseCluster,
            List<ClickHouseShard> clickhouseShards,
            String kafkaBootstrap,
            String registryUrl,
            SecuredInfraEndpoints secured,
            List<String> securedMissing,
            S3InfraEndpoints s3,
            List<String> s3Missing) {
        this.secured = secured;
        this.securedMissing = List.copyOf(securedMissing);
        this.s3 = s3;
        this.s3Missing = List.copyOf(s3Missing);
        this.zookeeperConnect = Objects.requireNonNull(zookeeperConnect, "zookeeperConnect");
        this.clickhouseCluster = Objects.requireNonNull(clickhouseCluster, "clickhouseCluster");
        this.clickhouseShards = List.copyOf(clickhouseShards);
        this.kafkaBootstrap = Objects.requireNonNull(kafkaBootstrap, "kafkaBootstrap");
        this.registryUrl = stripTrailingSlash(Objects.requireNonNull(registryUrl, "registryUrl"));
        if (this.clickhouseShards.isEmpty()) {
            throw new IllegalArgumentException("at least one ClickHouse shard is required");
        }
    }

    /**
     * Reads endpoints from an {@code endpoints.properties} file.
     * @param file the file to read
     * @return the endpoints
     * @throws IOException if the file cannot be read
     * @throws IllegalArgumentException if a key is missing or malformed; the message names the file
     * and the key
     */
    public static InfraEndpoints load(Path file) throws IOException {
        Properties properties = new Properties();
        try (Reader reader = Files.newBufferedReader(file, StandardCharsets.UTF_8)) {
            properties.load(reader);
        }
        try {
            return parse(properties);
        } catch (IllegalArgumentException ex) {
            throw new IllegalArgumentException(file + ": " + ex.getMessage(), ex);
        }
    }

    /**
     * Builds endpoints from properties with the keys {@code scripts/infra.sh} writes.
     * @param properties the properties
     * @return the endpoints
     * @throws IllegalArgumentException if a key is missing or malformed
     */
    public static InfraEndpoints parse(Properties properties) {
        int shardCount;
        String shards = required(properties, "clickhouse.shards");
        try {
            shardCount = Integer.parseInt(shards);
        } catch (NumberFormatException ex) {
            throw new IllegalArgumentException("clickhouse.shards is not a number: '" + shards + "'", ex);
        }
        if (shardCount < 1) {
            throw new IllegalArgumentException("clickhouse.shards must be at least 1, was " + shardCount);
        }
        List<ClickHouseShard> shardList = new ArrayList<>(shardCount);
        for (int shard = 1; shard <= shardCount; shard++) {
            shardList.add(new ClickHouseShard(shard, urls(properties, "clickhouse.shard." + shard + ".replicas")));
        }
        List<String> securedMissing = new ArrayList<>();
        SecuredInfraEndpoints secured = SecuredInfraEndpoints.parse(properties, shardCount, securedMissing);
        List<String> s3Missing = new ArrayList<>();
        S3InfraEndpoints s3 = S3InfraEndpoints.parse(properties, s3Missing);
        return new InfraEndpoints(
                required(properties, "zookeeper.connect"),
                required(properties, "clickhouse.cluster"),
                shardList,
                required(properties, "kafka.bootstrap"),
                required(properties, "registry.url"),
                secured,
                securedMissing,
                s3,
                s3Missing);
    }

    /** The comma-separated URLs under {@code key}, without trailing slashes; at least one. */
    static List<String> urls(Properties properties, String key) {
        List<String> urls = Arrays.stream(required(properties, key).split(","))
                .map(String::trim)
                .filter((url) -> !url.isEmpty())
                .map(InfraEndpoints::stripTrailingSlash)
                .toList();
        if (urls.isEmpty()) {
            throw new IllegalArgumentException(key + " lists no replica URL");
        }
        return urls;
    }

    private static String required(Properties properties, String key) {
        String value = properties.getProperty(key);
        if (value == null || value.isBlank()) {
            throw new IllegalArgumentException("missing key '" + key + "'");
        }
        return value.trim();
    }

    private static String stripTrailingSlash(String url) {
        return url.endsWith("/") ? url.substring(0, url.length() - 1) : url;
    }

    /**
     * Returns the ZooKeeper connect string.
     * @return {@code host:port}, e.g. {@code 127.0.0.1:12181}
     */
    public String zookeeperConnect() {
        return zookeeperConnect;
    }

    /**
     * Returns the name of the ClickHouse cluster for {@code ON CLUSTER} DDL.
     * @return the cluster name, e.g. {@code etl}
     */
    public String clickhouseCluster() {
        return clickhouseCluster;
    }

    /**
     * Returns the ClickHouse shards in shard-number order.
     * @return an immutable list, never empty
     */
    public List<ClickHouseShard> clickhouseShards() {
        return clickhouseShards;
    }

    /**
     * Returns one shard by its 1-based number, the number its {@code {shard}} macro carries.
     * @param number the shard number, from 1
     * @return the shard
     * @throws IndexOutOfBoundsException if there is no such shard
     */
    public ClickHouseShard clickhouseShard(int number) {
        return clickhouseShards.get(number - 1);
    }

    /**
     * Returns the HTTP URLs of every ClickHouse instance, shard by shard.
     * @return an immutable list of base URLs such as {@code http://127.0.0.1:18123}
     */
    public List<String> clickhouseReplicaUrls() {
        return clickhouseShards.stream()
                .flatMap((shard) -> shard.replicaUrls().stream())
                .toList();
    }

    /**
     * Returns the Kafka bootstrap address.
     * @return the value for {@code bootstrap.servers}, e.g. {@code 127.0.0.1:19092}
     */
    public String kafkaBootstrap() {
        return kafkaBootstrap;
    }

    /**
     * Returns the base URL of the registry's Confluent-compatible API.
     * @return e.g. {@code http://127.0.0.1:18081/apis/ccompat/v7}, without a trailing slash
     */
    public String registryUrl() {
        return registryUrl;
    }

    /**
     * Returns the local S3-compatible server (S3Proxy on the local filesystem): its endpoint, region and
     * credential.
     * @return the S3 endpoints
     * @throws IllegalStateException when {@code endpoints.properties} lists no S3 server (it was written
     * by an older {@code scripts/infra.sh}), naming the missing keys and the fix
     */
    public S3InfraEndpoints s3() {
        if (s3 == null) {
            throw new IllegalStateException(InfraEndpoints.FILE_NAME + " lists no S3 server: it has no " + s3Missing
                    + ". It was written by an older " + InfraDirectory.SCRIPT + ": run `" + InfraDirectory.SCRIPT
                    + " start s3` (same ETL_INFRA_DIR and ETL_* ports)");
        }
        return s3;
    }

    /**
     * Returns whether {@code endpoints.properties} lists the S3-compatible server ({@link #s3()} answers).
     * It says nothing about whether the server is up; {@link LocalInfra} probes that.
     * @return whether every {@code s3.*} key is listed
     */
    public boolean hasS3() {
        return s3 != null;
    }

    /**
     * Returns the secured listeners of the same servers (HTTPS ClickHouse with password users,
     * {@code SASL_SSL} Kafka, HTTPS registry) and the trust material for them.
     * @return the secured endpoints
     * @throws IllegalStateException when the servers were started without them (by an older
     * {@code scripts/infra.sh}, or a secured listener is down), naming the missing keys and the fix
     */
    public SecuredInfraEndpoints secured() {
        if (secured == null) {
            throw new IllegalStateException("the local servers run without (some of) their secured listeners: "
                    + InfraEndpoints.FILE_NAME + " has no " + securedMissing + ". They were started by an older "
                    + InfraDirectory.SCRIPT + ", or a secured listener is down: restart them with `"
                    + InfraDirectory.SCRIPT
                    + " stop all` and `" + InfraDirectory.SCRIPT + " start all` (same ETL_INFRA_DIR and ETL_* ports)");
        }
        return secured;
    }

    /**
     * Returns whether the servers run with their secured listeners ({@link #secured()} answers).
     * @return whether every secured endpoint is listed
     */
    public boolean hasSecured() {
        return secured != null;
    }

    @Override
    public String toString() {
        return "InfraEndpoints{zookeeper=" + zookeeperConnect + ", clickhouse=" + clickhouseCluster + clickhouseShards
                + ", kafka=" + kafkaBootstrap + ", registry=" + registryUrl + ", s3="
                + ((s3 == null) ? "-" : s3.endpoint()) + "}";
    }

    /**
     * One ClickHouse shard and the HTTP URLs of its replicas.
     *
     * @param number 1-based shard number
     * @param replicaUrls HTTP base URLs of the replicas, e.g. {@code http://127.0.0.1:18123}
     */
    public record ClickHouseShard(int number, List<String> replicaUrls) {

        /**
         * Creates a shard.
         * @param number 1-based shard number
         * @param replicaUrls HTTP base URLs of the replicas, at least one
         */
        public ClickHouseShard {
            replicaUrls = List.copyOf(replicaUrls);
            if (replicaUrls.isEmpty()) {
                throw new IllegalArgumentException("shard " + number + " has no replica");
            }
        }

        /**
         * Returns one replica's URL by its 1-based position, matching the script's instance names
         * ({@code s1r2} is {@code clickhouseShard(1).replicaUrl(2)}).
         * @param replica the replica position, from 1
         * @return the replica's HTTP base URL
         * @throws IndexOutOfBoundsException if there is no such replica
         */
        public String replicaUrl(int replica) {
            return replicaUrls.get(replica - 1);
        }
    }
}
