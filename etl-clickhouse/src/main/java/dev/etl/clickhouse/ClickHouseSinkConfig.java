package dev.etl.clickhouse;

import dev.etl.clickhouse.sharding.PlacementCheck;
import dev.etl.sink.BatchConfig;
import dev.etl.sink.RetryConfig;
import java.net.URI;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collection;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;

/**
 * Configuration of one ClickHouse sink: where the shards and their replicas are, the shard-local
 * table (never a Distributed table), credentials, timeouts, the per-replica circuit breaker, startup
 * validation, and batching/retry for the engine's shard workers.
 *
 * @param database          database of the shard-local table
 * @param table             shard-local table (the same name on every shard)
 * @param shards            per shard, the HTTP base URIs of its replicas (e.g. {@code http://ch-1a:8123})
 * @param user              user name, or null for the server default
 * @param password          password, or null; never logged ({@link #toString()} masks it)
 * @param connectTimeout    TCP connect timeout per request
 * @param socketTimeout     how long an insert may take until the server answers (with
 *                          {@code wait_end_of_query=1}, the whole insert); exceeding it is transient
 * @param compression       whether insert bodies are sent compressed: with {@link Transport#CLIENT_V2}
 *                          ClickHouse's LZ4 block framing ({@code decompress=1}), with {@link Transport#HTTP}
 *                          gzip ({@code Content-Encoding: gzip})
 * @param transport         the client stack inserts go through ({@link Transport#CLIENT_V2} by default);
 *                          reads (capabilities, validation) always use raw HTTP
 * @param breakerThreshold  consecutive transient failures that open a replica's breaker
 * @param breakerOpenTime   how long an open breaker refuses the replica before one half-open probe
 * @param validation        startup schema validation mode
 * @param requireDedup      whether startup fails (instead of warning) when the table does not
 *                          deduplicate retried inserts
 * @param settings          extra server settings sent with every insert; the settings this sink owns
 *                          are refused (see {@link #OWNED_SETTINGS})
 * @param batch             sealing thresholds for the engine's shard workers
 * @param retry             transient-failure retries for the engine's shard workers
 * @param placementCheck    the startup check that the pipeline's router places keys where the
 *                          Distributed table fronting this table does, or null for none (the default)
 * @param deterministicBlocks whether rows are inserted in deterministic blocks (one per source partition,
 *                          offset range and shard, ended at boundaries recorded in the commit metadata
 *                          before the insert), so a replay after a crash rebuilds the same inserts and a
 *                          Replicated*MergeTree table (or a server with {@code insert_deduplication_token})
 *                          drops them; {@link #DEFAULT_DETERMINISTIC_BLOCKS} by default
 * @param format            the insert format: the batch's RowBinary rows as they are, or transposed into
 *                          one Native block per batch on the shard writer's thread ({@link InsertFormat});
 *                          {@link #DEFAULT_FORMAT} by default
 * @param tls               TLS towards {@code https://} replicas (trust, client certificate), or null for the
 *                          JVM's default trust store; when set, every replica must be {@code https://}
 * @param rejectionCodes    ClickHouse error codes to treat as a refusal of rows for their content, on top of
 *                          {@link ClickHouseErrors#REJECTION_CODES} (the shard writer then isolates the rows the
 *                          server refuses and writes the others, see {@link ClickHouseShardWriter}); none by
 *                          default. A code of {@link ClickHouseErrors#TRANSIENT_CODES} is refused: a retry may
 *                          pass, and treating it as bad rows would let a {@code SKIP} policy drop them
 */
public record ClickHouseSinkConfig(
        String database,
        String table,
        List<List<URI>> shards,
        String user,
        String password,
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
        PlacementCheck placementCheck,
        boolean deterministicBlocks,
        InsertFormat format,
        ClickHouseTls tls,
        Set<Integer> rejectionCodes) {

    /** Default: deterministic blocks on (see docs/concepts/delivery.md for what they cost and give). */
    public static final boolean DEFAULT_DETERMINISTIC_BLOCKS = true;

    /**
     * How inserts reach the replicas. Both send the same statement, settings and RowBinary bytes and
     * report failures with the same classification inputs; reads (capabilities, schema validation)
     * always go through raw HTTP, because client-v2 0.10.0's typed reads fail against ClickHouse 18.16.
     */
    public enum Transport {
        /**
         * ClickHouse's Java client-v2 ({@code client.insert(table, InputStream, RowBinary, settings)}), one
         * client per replica endpoint: {@link ClickHouseClientV2Transport}. The default.
         */
        CLIENT_V2,
        /** A raw {@code java.net.http} POST per insert: {@link ClickHouseHttpTransport}. */
        HTTP
    }

    /** Settings the sink sets itself on every insert; passing them in {@link #settings} is an error. */
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

    public static final Set<String> OWNED_SETTINGS = Set.of(
            "wait_end_of_query",
            "insert_deduplicate",
            "insert_deduplication_token",
            "async_insert",
            "send_progress_in_http_headers",
            "query",
            "database");

    /**
     * A configuration with the {@linkplain #DEFAULT_FORMAT default insert format} and without TLS settings
     * (the JVM's default trust store for {@code https://} replicas).
     */
    public ClickHouseSinkConfig(
            String database,
            String table,
            List<List<URI>> shards,
            String user,
            String password,
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
            PlacementCheck placementCheck,
            boolean deterministicBlocks) {
        this(
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
                DEFAULT_FORMAT);
    }

    /** A configuration without TLS settings (the JVM's default trust store for {@code https://} replicas). */
    public ClickHouseSinkConfig(
            String database,
            String table,
            List<List<URI>> shards,
            String user,
            String password,
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
            PlacementCheck placementCheck,
            boolean deterministicBlocks,
            InsertFormat format) {
        this(
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
                null);
    }

    /** A configuration without extra {@linkplain #rejectionCodes() rejection codes}. */
    public ClickHouseSinkConfig(
            String database,
            String table,
            List<List<URI>> shards,
            String user,
            String password,
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
            PlacementCheck placementCheck,
            boolean deterministicBlocks,
            InsertFormat format,
            ClickHouseTls tls) {
        this(
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
                Set.of());
    }

    public ClickHouseSinkConfig {
        shards = SinkConfigChecks.shards(database, table, shards, transport, tls);
        SinkConfigChecks.timeouts(connectTimeout, socketTimeout, breakerOpenTime);
        settings = SinkConfigChecks.required(transport, format, breakerThreshold, validation, batch, retry, settings);
        rejectionCodes = SinkConfigChecks.rejectionCodes(rejectionCodes);
    }

    public static Builder builder() {
        return new Builder();
    }

    /** {@code database.table}. */
    public String qualifiedTable() {
        return database + "." + table;
    }

    @Override
    public String toString() {
        return SinkConfigChecks.describe(this);
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
            shards.add(SinkConfigChecks.uris(replicaUrls));
            return this;
        }

        public Builder shards(List<List<URI>> shards) {
            this.shards.clear();
            this.shards.addAll(shards);
            return this;
        }

        public Builder credentials(String user, String password) {
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

        public Builder batch(BatchConfig batch) {
            this.batch = batch;
            return this;
        }

        public Builder retry(RetryConfig retry) {
            this.retry = retry;
            return this;
        }

        /**
         * Checks at startup, before the first shard's validation, that the pipeline's router places keys
         * where a Distributed table fronting the sink's table would ({@link PlacementCheck}); null for none.
         */
        /** See {@link ClickHouseSinkConfig#deterministicBlocks()}; {@link #DEFAULT_DETERMINISTIC_BLOCKS} by default. */
        public Builder deterministicBlocks(boolean deterministicBlocks) {
            this.deterministicBlocks = deterministicBlocks;
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

        public Builder placementCheck(PlacementCheck placementCheck) {
            this.placementCheck = placementCheck;
            return this;
        }

        /** TLS towards {@code https://} replicas ({@link ClickHouseTls}); null (the default) for the JVM's trust store. */
        public Builder tls(ClickHouseTls tls) {
            this.tls = tls;
            return this;
        }

        /**
         * ClickHouse error codes to treat as a refusal of rows for their content, on top of
         * {@link ClickHouseErrors#REJECTION_CODES} (see {@link ClickHouseSinkConfig#rejectionCodes()}); adds to
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

        public ClickHouseSinkConfig build() {
            return new ClickHouseSinkConfig(
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
                    rejectionCodes);
        }
    }
}
