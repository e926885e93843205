package dev.etl.clickhouse;

import dev.etl.clickhouse.sharding.PlacementCheck;
import dev.etl.sink.BatchConfig;
import dev.etl.sink.RetryConfig;
import dev.etl.sink.SinkDefinition;
import java.net.URI;
import java.net.URISyntaxException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collection;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.TreeSet;
import org.jspecify.annotations.Nullable;

/**
 * Configuration of one ClickHouse sink: where the shards and their replicas are, the shard-local
 * table (never a Distributed table), credentials, timeouts, the per-replica circuit breaker, startup
 * validation, and batching/retry for the engine's shard workers.
 *
 * <p>Build one with {@link #builder()}, change a copy with {@link #toBuilder()}; the builder's
 * {@link Builder#build()} checks every setting. {@link #toString()} masks the password.
 */
public final class ClickHouseSinkConfig {

    /** Default: deterministic blocks on (see docs/concepts/delivery.md for what they cost and give). */
    public static final boolean DEFAULT_DETERMINISTIC_BLOCKS = true;

    /**
     * Default: 2 inserts in flight per shard at most ({@link #writersPerShard()}): a steady stream seals a block
     * per partition and shard every linger, and one insert at a time made the last of them wait for all the
     * others; more than 2 cost a backlog's throughput on the benchmark box (docs/deployment/tuning.md,
     * Freshness).
     */
    public static final int DEFAULT_WRITERS_PER_SHARD = 2;

    /**
     * How inserts reach the replicas. Both send the same statement, settings and RowBinary bytes and
     * report failures with the same classification inputs; reads (capabilities, schema validation)
     * always go through raw HTTP, because client-v2 0.10.0's typed reads fail against ClickHouse 18.16.
     */
    public enum Transport {
        /**
         * ClickHouse's Java client-v2 ({@code client.insert(table, InputStream, RowBinary, settings)}), one
         * client per replica endpoint: {@code ClickHouseClientV2Transport}. The default.
         */
        CLIENT_V2,
        /** A raw {@code java.net.http} POST per insert: {@link ClickHouseHttpTransport}. */
        HTTP
    }

    /** Default TCP connect timeout per request: 2 s. */
    public static final Duration DEFAULT_CONNECT_TIMEOUT = Duration.ofSeconds(2);

    /** Default time an insert may take until the server answers: 60 s. */
    public static final Duration DEFAULT_SOCKET_TIMEOUT = Duration.ofSeconds(60);

    /** Default insert format: RowBinary (see docs/BENCHMARKS.md, "Insert formats", for the measurement). */
    public static final InsertFormat DEFAULT_FORMAT = InsertFormat.ROW_BINARY;

    /** Default insert transport: client-v2. */
    public static final Transport DEFAULT_TRANSPORT = Transport.CLIENT_V2;

    /** Default consecutive transient failures that open a replica's breaker: 3. */
    public static final int DEFAULT_BREAKER_THRESHOLD = 3;

    /** Default time an open breaker refuses its replica: 10 s. */
    public static final Duration DEFAULT_BREAKER_OPEN_TIME = Duration.ofSeconds(10);

    /** Default startup validation: names, order and types. */
    public static final ValidationMode DEFAULT_VALIDATION = ValidationMode.FULL;

    /** Settings the sink sets itself on every insert; passing them in {@link #settings()} is an error. */
    public static final Set<String> OWNED_SETTINGS = Set.of(
            "wait_end_of_query",
            "insert_deduplicate",
            "insert_deduplication_token",
            "async_insert",
            "send_progress_in_http_headers",
            "query",
            "database");

    /**
     * ClickHouse error codes that are transient (overload, timeouts, ZooKeeper and replication trouble: a
     * retry may pass); {@link Builder#rejectionCodes} refuses them. Unmodifiable.
     */
    public static final Set<Integer> TRANSIENT_ERROR_CODES = ClickHouseErrors.TRANSIENT_CODES;

    /**
     * The checked settings: a record for its equals and hashCode; its constructor, which only
     * {@link Builder#build()} calls, is the one place that checks them (the {@code checked…} methods below).
     */
    private record Values(
            String database,
            String table,
            List<List<URI>> shards,
            @Nullable String user,
            @Nullable String password,
            Duration connectTimeout,
            Duration socketTimeout,
            boolean compression,
            Transport transport,
            int breakerThreshold,
            Duration breakerOpenTime,
            ValidationMode validation,
            boolean requireDedup,
            Map<String, String> settings,
            BatchConfig batch,
            RetryConfig retry,
            @Nullable PlacementCheck placementCheck,
            boolean deterministicBlocks,
            InsertFormat format,
            @Nullable ClickHouseTls tls,
            Set<Integer> rejectionCodes,
            int writersPerShard) {
        Values {
            if (writersPerShard < 1 || writersPerShard > SinkDefinition.MAX_WRITERS_PER_SHARD) {
                throw new IllegalArgumentException("writers-per-shard must be between 1 and "
                        + SinkDefinition.MAX_WRITERS_PER_SHARD + ", got " + writersPerShard);
            }
            shards = checkedShards(database, table, shards, transport, tls);
            checkTimeouts(connectTimeout, socketTimeout, breakerOpenTime);
            settings = checkedRequired(transport, format, breakerThreshold, validation, batch, retry, settings);
            rejectionCodes = checkedRejectionCodes(rejectionCodes);
        }
    }

    private final Values v;

    private ClickHouseSinkConfig(Values v) {
        this.v = v;
    }

    /** A builder with the defaults (see {@link Builder}); table and at least one shard must be set. */
    public static Builder builder() {
        return new Builder();
    }

    /** A builder holding this configuration's settings, to build a changed copy. */
    public Builder toBuilder() {
        return new Builder()
                .table(v.database(), v.table())
                .shards(v.shards())
                .credentials(v.user(), v.password())
                .connectTimeout(v.connectTimeout())
                .socketTimeout(v.socketTimeout())
                .compression(v.compression())
                .transport(v.transport())
                .breaker(v.breakerThreshold(), v.breakerOpenTime())
                .validation(v.validation())
                .requireDedup(v.requireDedup())
                .settings(v.settings())
                .batch(v.batch())
                .retry(v.retry())
                .placementCheck(v.placementCheck())
                .deterministicBlocks(v.deterministicBlocks())
                .format(v.format())
                .tls(v.tls())
                .rejectionCodes(v.rejectionCodes())
                .writersPerShard(v.writersPerShard());
    }

    /** Database of the shard-local table. */
    public String database() {
        return v.database();
    }

    /** Shard-local table (the same name on every shard). */
    public String table() {
        return v.table();
    }

    /** Per shard, the HTTP base URIs of its replicas (e.g. {@code http://ch-1a:8123}); unmodifiable. */
    public List<List<URI>> shards() {
        return v.shards();
    }

    /** User name, or null for the server default. */
    public @Nullable String user() {
        return v.user();
    }

    /** Password, or null; never logged ({@link #toString()} masks it). */
    public @Nullable String password() {
        return v.password();
    }

    /** TCP connect timeout per request. */
    public Duration connectTimeout() {
        return v.connectTimeout();
    }

    /**
     * How long an insert may take until the server answers (with {@code wait_end_of_query=1}, the whole
     * insert); exceeding it is transient.
     */
    public Duration socketTimeout() {
        return v.socketTimeout();
    }

    /**
     * Whether insert bodies are sent compressed: with {@link Transport#CLIENT_V2} ClickHouse's LZ4 block
     * framing ({@code decompress=1}), with {@link Transport#HTTP} gzip ({@code Content-Encoding: gzip}).
     */
    public boolean compression() {
        return v.compression();
    }

    /**
     * The client stack inserts go through ({@link Transport#CLIENT_V2} by default); reads (capabilities,
     * validation) always use raw HTTP.
     */
    public Transport transport() {
        return v.transport();
    }

    /** Consecutive transient failures that open a replica's breaker. */
    public int breakerThreshold() {
        return v.breakerThreshold();
    }

    /** How long an open breaker refuses the replica before one half-open probe. */
    public Duration breakerOpenTime() {
        return v.breakerOpenTime();
    }

    /** Startup schema validation mode. */
    public ValidationMode validation() {
        return v.validation();
    }

    /** Whether startup fails (instead of warning) when the table does not deduplicate retried inserts. */
    public boolean requireDedup() {
        return v.requireDedup();
    }

    /**
     * Extra server settings sent with every insert, in the order given; the settings this sink owns are
     * refused (see {@link #OWNED_SETTINGS}); unmodifiable.
     */
    public Map<String, String> settings() {
        return v.settings();
    }

    /** Sealing thresholds for the engine's shard workers. */
    public BatchConfig batch() {
        return v.batch();
    }

    /** Transient-failure retries for the engine's shard workers. */
    public RetryConfig retry() {
        return v.retry();
    }

    /**
     * The startup check that the pipeline's router places keys where the Distributed table fronting this
     * table does, or null for none (the default).
     */
    public @Nullable PlacementCheck placementCheck() {
        return v.placementCheck();
    }

    /**
     * Whether rows are inserted in deterministic blocks (one per source partition, offset range and shard,
     * ended at boundaries recorded in the commit metadata before the insert), so a replay after a crash
     * rebuilds the same inserts and a Replicated*MergeTree table (or a server with
     * {@code insert_deduplication_token}) drops them; {@link #DEFAULT_DETERMINISTIC_BLOCKS} by default.
     */
    public boolean deterministicBlocks() {
        return v.deterministicBlocks();
    }

    /**
     * How many inserts a shard has in flight at most: the shard gets this many writers (each its own connection
     * use, queue and io thread, one insert at a time), a deterministic block goes to the writer of its source
     * partition, so a partition's inserts stay in order; {@link #DEFAULT_WRITERS_PER_SHARD} by default. See
     * {@link SinkDefinition#writersPerShard()}.
     */
    public int writersPerShard() {
        return v.writersPerShard();
    }

    /**
     * The insert format: the batch's RowBinary rows as they are, or transposed into one Native block per
     * batch on the shard writer's thread ({@link InsertFormat}); {@link #DEFAULT_FORMAT} by default.
     */
    public InsertFormat format() {
        return v.format();
    }

    /**
     * TLS towards {@code https://} replicas (trust, client certificate), or null for the JVM's default trust
     * store; when set, every replica must be {@code https://}.
     */
    public @Nullable ClickHouseTls tls() {
        return v.tls();
    }

    /**
     * ClickHouse error codes to treat as a refusal of rows for their content, on top of
     * the codes the sink knows as such (a constraint, a value out of range, a parse error of a value, …) (the shard writer then isolates the rows the server refuses
     * and writes the others, see {@link ClickHouseShardWriter}); none by default, sorted, unmodifiable. A
     * code of {@link #TRANSIENT_ERROR_CODES} is refused: a retry may pass, and treating it as bad
     * rows would let a {@code SKIP} policy drop them.
     */
    public Set<Integer> rejectionCodes() {
        return v.rejectionCodes();
    }

    /** {@code database.table}. */
    public String qualifiedTable() {
        return v.database() + "." + v.table();
    }

    @Override
    public boolean equals(@Nullable Object o) {
        return o instanceof ClickHouseSinkConfig c && v.equals(c.v);
    }

    @Override
    public int hashCode() {
        return v.hashCode();
    }

    /** Every setting, the password masked. */
    @Override
    public String toString() {
        return describe(this);
    }

    /**
     * Checks database, table and the shards' replica URIs (and, with TLS, that every replica is
     * {@code https://} and the transport can honour the TLS settings); returns an immutable copy of the shards.
     */
    private static List<List<URI>> checkedShards(
            String database, String table, List<List<URI>> shards, Transport transport, ClickHouseTls tls) {
        requireText(database, "database");
        requireText(table, "table");
        Objects.requireNonNull(shards, "shards");
        if (shards.isEmpty()) {
            throw new IllegalArgumentException(
                    "ClickHouse sink for " + database + "." + table + " needs at least one shard");
        }
        List<List<URI>> copy = new ArrayList<>(shards.size());
        for (int i = 0; i < shards.size(); i++) {
            List<URI> replicas = shards.get(i);
            if (replicas == null || replicas.isEmpty()) {
                throw new IllegalArgumentException("ClickHouse shard " + i + " has no replica URI");
            }
            for (URI uri : replicas) {
                if (uri == null
                        || uri.getScheme() == null
                        || uri.getHost() == null
                        || !(uri.getScheme().equals("http") || uri.getScheme().equals("https"))) {
                    throw new IllegalArgumentException("ClickHouse shard " + i
                            + ": replica URI must be http(s)://host:port, got "
                            + (uri == null ? null : withoutUserInfo(uri.toString())));
                }
                if (uri.getRawUserInfo() != null) {
                    // do not echo the URI: it holds a secret
                    throw new IllegalArgumentException(
                            "ClickHouse shard " + i + ": replica URI " + uri.getScheme() + "://" + uri.getHost() + ":"
                                    + uri.getPort() + " carries user info; use user/password instead");
                }
            }
            copy.add(List.copyOf(replicas));
        }
        shards = List.copyOf(copy);
        if (tls != null) {
            for (int i = 0; i < shards.size(); i++) {
                for (URI uri : shards.get(i)) {
                    if (!uri.getScheme().equals("https")) {
                        throw new IllegalArgumentException("ClickHouse shard " + i + ": TLS is configured but replica "
                                + ClickHouseShardWriter.describe(uri)
                                + " is plain http://; use the server's https_port "
                                + "with an https:// URL");
                    }
                }
            }
            if (transport == Transport.CLIENT_V2 && tls.clientCertificate()) {
                throw new IllegalArgumentException(
                        "ClickHouse TLS with a client certificate (mutual TLS) needs the HTTP "
                                + "transport: client-v2 inserts cannot present it");
            }
            if (transport == Transport.CLIENT_V2 && tls.restrictsParameters()) {
                throw new IllegalArgumentException("ClickHouse TLS restricted to protocols " + tls.protocols()
                        + " / ciphers " + tls.ciphers() + " needs the HTTP transport: client-v2 inserts cannot be "
                        + "restricted");
            }
        }
        return shards;
    }

    /** Checks that the connect and socket timeouts and the breaker's open time are positive. */
    private static void checkTimeouts(Duration connectTimeout, Duration socketTimeout, Duration breakerOpenTime) {
        requirePositive(connectTimeout, "connect timeout");
        requirePositive(socketTimeout, "socket timeout");
        requirePositive(breakerOpenTime, "breaker open time");
    }

    /**
     * Checks transport, format, breaker threshold, validation mode, batch and retry settings, then the extra
     * insert settings; returns the latter as {@link #checkedSettings} does.
     */
    private static Map<String, String> checkedRequired(
            Transport transport,
            InsertFormat format,
            int breakerThreshold,
            ValidationMode validation,
            BatchConfig batch,
            RetryConfig retry,
            Map<String, String> settings) {
        Objects.requireNonNull(transport, "transport");
        Objects.requireNonNull(format, "format");
        if (breakerThreshold <= 0) {
            throw new IllegalArgumentException("breaker threshold must be > 0, got " + breakerThreshold);
        }
        Objects.requireNonNull(validation, "validation");
        Objects.requireNonNull(batch, "batch");
        Objects.requireNonNull(retry, "retry");
        return checkedSettings(settings);
    }

    /** Checks the extra insert settings (none owned by the sink, identifier names); returns an unmodifiable copy. */
    private static Map<String, String> checkedSettings(Map<String, String> settings) {
        settings = settings == null ? Map.of() : new LinkedHashMap<>(settings);
        for (String key : settings.keySet()) {
            if (OWNED_SETTINGS.contains(key)) {
                throw new IllegalArgumentException("ClickHouse setting '" + key
                        + "' is set by the sink itself and cannot be overridden (owned: "
                        + OWNED_SETTINGS + ")");
            }
            if (!key.matches("[A-Za-z_][A-Za-z0-9_]*")) {
                throw new IllegalArgumentException("ClickHouse setting name '" + key + "' is not an identifier");
            }
        }
        return Collections.unmodifiableMap(settings);
    }

    /**
     * Checks the extra rejection codes (positive, none of {@link #TRANSIENT_ERROR_CODES}); returns an
     * unmodifiable sorted copy (empty for null).
     */
    private static Set<Integer> checkedRejectionCodes(Set<Integer> codes) {
        if (codes == null) {
            return Set.of();
        }
        TreeSet<Integer> copy = new TreeSet<>();
        for (Integer code : codes) {
            if (code == null || code <= 0) {
                throw new IllegalArgumentException(
                        "ClickHouse rejection code must be a positive ClickHouse error " + "code, got " + code);
            }
            if (ClickHouseErrors.TRANSIENT_CODES.contains(code)) {
                throw new IllegalArgumentException("ClickHouse error code " + code + " cannot be a rejection code: "
                        + "it is transient (a retry may pass, see ClickHouseSinkConfig.TRANSIENT_ERROR_CODES), and treating it "
                        + "as rows the server refuses would let a SKIP policy drop them");
            }
            copy.add(code);
        }
        return Collections.unmodifiableSortedSet(copy);
    }

    private static void requireText(String value, String what) {
        if (value == null || value.isBlank()) {
            throw new IllegalArgumentException("ClickHouse sink " + what + " must be set");
        }
    }

    private static void requirePositive(Duration d, String what) {
        if (d == null || d.isNegative() || d.isZero()) {
            throw new IllegalArgumentException("ClickHouse " + what + " must be > 0, got " + d);
        }
    }

    /**
     * The URIs of replica URLs. One that does not parse fails naming it without user info: the parser's
     * own message would echo the whole URL, a password with a raw {@code @} or {@code %} included.
     */
    private static List<URI> uris(String... replicaUrls) {
        List<URI> uris = new ArrayList<>(replicaUrls.length);
        for (String url : replicaUrls) {
            try {
                uris.add(new URI(url));
            } catch (URISyntaxException e) {
                throw new IllegalArgumentException("ClickHouse replica URL " + withoutUserInfo(url)
                        + " is not a valid URL: " + e.getReason() + " at index " + e.getIndex()
                        + " (the credentials belong in user/password, not in the URL)");
            }
        }
        return uris;
    }

    /**
     * {@code url} with everything between {@code ://} and its last {@code @} cut: no part of a password
     * remains even when it holds a raw {@code @}, {@code /} or {@code %} (a URL that does not parse, or
     * parses without a host).
     */
    private static String withoutUserInfo(String url) {
        int scheme = url.indexOf("://");
        int at = url.lastIndexOf('@');
        return scheme < 0 || at < scheme ? url : url.substring(0, scheme + 3) + url.substring(at + 1);
    }

    /** {@link #toString()}: every component, the password masked. */
    private static String describe(ClickHouseSinkConfig c) {
        return "ClickHouseSinkConfig[table=" + c.qualifiedTable() + ", shards=" + c.shards() + ", user=" + c.user()
                + ", password=" + (c.password() == null ? "null" : "******") + ", connectTimeout="
                + c.connectTimeout() + ", socketTimeout=" + c.socketTimeout() + ", compression=" + c.compression()
                + ", transport=" + c.transport() + ", breakerThreshold=" + c.breakerThreshold() + ", breakerOpenTime="
                + c.breakerOpenTime() + ", validation=" + c.validation() + ", requireDedup=" + c.requireDedup()
                + ", deterministicBlocks=" + c.deterministicBlocks() + ", writersPerShard=" + c.writersPerShard()
                + ", format=" + c.format() + ", settings="
                + c.settings() + ", batch=" + c.batch() + ", retry=" + c.retry() + ", placementCheck="
                + c.placementCheck() + ", tls=" + c.tls() + ", rejectionCodes=" + c.rejectionCodes() + "]";
    }

    /**
     * Builder with defaults: 2 s connect, 60 s socket, no compression, client-v2 inserts, breaker
     * 3 failures / 10 s, FULL validation.
     */
    public static final class Builder {
        private String database;
        private String table;
        private final List<List<URI>> shards = new ArrayList<>();
        private String user;
        private String password;
        private Duration connectTimeout = DEFAULT_CONNECT_TIMEOUT;
        private Duration socketTimeout = DEFAULT_SOCKET_TIMEOUT;
        private boolean compression;
        private Transport transport = DEFAULT_TRANSPORT;
        private int breakerThreshold = DEFAULT_BREAKER_THRESHOLD;
        private Duration breakerOpenTime = DEFAULT_BREAKER_OPEN_TIME;
        private ValidationMode validation = DEFAULT_VALIDATION;
        private boolean requireDedup;
        private boolean deterministicBlocks = DEFAULT_DETERMINISTIC_BLOCKS;
        private int writersPerShard = DEFAULT_WRITERS_PER_SHARD;
        private InsertFormat format = DEFAULT_FORMAT;
        private final Map<String, String> settings = new LinkedHashMap<>();
        private BatchConfig batch = BatchConfig.DEFAULTS;
        private RetryConfig retry = RetryConfig.DEFAULTS;
        private PlacementCheck placementCheck;
        private ClickHouseTls tls;
        private final Set<Integer> rejectionCodes = new TreeSet<>();

        private Builder() {}

        public Builder table(String database, String table) {
            this.database = database;
            this.table = table;
            return this;
        }

        /** Adds the next shard with its replicas' HTTP base URIs. */
        public Builder shard(URI... replicas) {
            shards.add(List.of(replicas));
            return this;
        }

        /** Adds the next shard with its replicas' HTTP base URLs. */
        public Builder shard(String... replicaUrls) {
            shards.add(uris(replicaUrls));
            return this;
        }

        /** Replaces the shards given before: per shard, its replicas' HTTP base URIs. */
        public Builder shards(List<List<URI>> shards) {
            this.shards.clear();
            this.shards.addAll(shards);
            return this;
        }

        public Builder credentials(@Nullable String user, @Nullable String password) {
            this.user = user;
            this.password = password;
            return this;
        }

        public Builder connectTimeout(Duration connectTimeout) {
            this.connectTimeout = connectTimeout;
            return this;
        }

        public Builder socketTimeout(Duration socketTimeout) {
            this.socketTimeout = socketTimeout;
            return this;
        }

        public Builder compression(boolean compression) {
            this.compression = compression;
            return this;
        }

        /** The client stack for inserts (default {@link Transport#CLIENT_V2}). */
        public Builder transport(Transport transport) {
            this.transport = transport;
            return this;
        }

        public Builder breaker(int threshold, Duration openTime) {
            this.breakerThreshold = threshold;
            this.breakerOpenTime = openTime;
            return this;
        }

        public Builder validation(ValidationMode validation) {
            this.validation = validation;
            return this;
        }

        public Builder requireDedup(boolean requireDedup) {
            this.requireDedup = requireDedup;
            return this;
        }

        /** An extra server setting for every insert (e.g. {@code insert_quorum}). */
        public Builder setting(String name, String value) {
            settings.put(name, value);
            return this;
        }

        /** Replaces the extra server settings given before (see {@link ClickHouseSinkConfig#settings()}). */
        public Builder settings(Map<String, String> settings) {
            this.settings.clear();
            this.settings.putAll(settings);
            return this;
        }

        public Builder batch(BatchConfig batch) {
            this.batch = batch;
            return this;
        }

        public Builder retry(RetryConfig retry) {
            this.retry = retry;
            return this;
        }

        /** See {@link ClickHouseSinkConfig#deterministicBlocks()}; {@link #DEFAULT_DETERMINISTIC_BLOCKS} by default. */
        public Builder deterministicBlocks(boolean deterministicBlocks) {
            this.deterministicBlocks = deterministicBlocks;
            return this;
        }

        /** See {@link ClickHouseSinkConfig#writersPerShard()}; {@link #DEFAULT_WRITERS_PER_SHARD} by default. */
        public Builder writersPerShard(int writersPerShard) {
            this.writersPerShard = writersPerShard;
            return this;
        }

        /**
         * The insert format ({@link #DEFAULT_FORMAT} by default). {@link InsertFormat#NATIVE} needs the
         * sink's columns ({@link ClickHouseSink#definition}) and refuses, when the sink is defined, a column
         * type it cannot send ({@link UnsupportedNativeTypeException}).
         */
        public Builder format(InsertFormat format) {
            this.format = format;
            return this;
        }

        /**
         * Checks at startup, before the first shard's validation, that the pipeline's router places keys
         * where a Distributed table fronting the sink's table would ({@link PlacementCheck}); null for none.
         */
        public Builder placementCheck(@Nullable PlacementCheck placementCheck) {
            this.placementCheck = placementCheck;
            return this;
        }

        /** TLS towards {@code https://} replicas ({@link ClickHouseTls}); null (the default) for the JVM's trust store. */
        public Builder tls(@Nullable ClickHouseTls tls) {
            this.tls = tls;
            return this;
        }

        /**
         * ClickHouse error codes to treat as a refusal of rows for their content, on top of
         * the codes the sink knows as such (a constraint, a value out of range, a parse error of a value, …) (see {@link ClickHouseSinkConfig#rejectionCodes()}); adds to
         * those given before.
         */
        public Builder rejectionCodes(Collection<Integer> codes) {
            rejectionCodes.addAll(codes);
            return this;
        }

        /** As {@link #rejectionCodes(Collection)}. */
        public Builder rejectionCodes(int... codes) {
            for (int code : codes) {
                rejectionCodes.add(code);
            }
            return this;
        }

        /**
         * The configuration.
         *
         * @throws IllegalArgumentException when a setting is missing or out of range (no table or shard, a
         *                                  replica that is not {@code http(s)://host:port}, an owned setting, ...)
         */
        public ClickHouseSinkConfig build() {
            return new ClickHouseSinkConfig(new Values(
                    database,
                    table,
                    shards,
                    user,
                    password,
                    connectTimeout,
                    socketTimeout,
                    compression,
                    transport,
                    breakerThreshold,
                    breakerOpenTime,
                    validation,
                    requireDedup,
                    settings,
                    batch,
                    retry,
                    placementCheck,
                    deterministicBlocks,
                    format,
                    tls,
                    rejectionCodes,
                    writersPerShard));
        }
    }
}
