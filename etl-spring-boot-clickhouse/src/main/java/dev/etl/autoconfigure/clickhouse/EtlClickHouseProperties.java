package dev.etl.autoconfigure.clickhouse;

import dev.etl.clickhouse.ClickHouseSinkConfig;
import dev.etl.error.ErrorPolicy;
import dev.etl.sink.SinkDefinition;
import java.net.URI;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.jspecify.annotations.Nullable;
import org.springframework.boot.context.properties.ConfigurationProperties;
import org.springframework.boot.context.properties.NestedConfigurationProperty;
import org.springframework.validation.Errors;
import org.springframework.validation.Validator;

/**
 * Configuration of the ClickHouse sinks ({@code etl.sink.clickhouse.*}): the shard-local table, shards
 * and replicas, credentials, hand-off, batching, retries, breakers and the placement that matches a
 * Distributed table; and named tables ({@code tables.<name>.*}), further sinks over the same
 * connection with their own table, batching, validation and placement. Defaults are the engine's and
 * the connector's ({@code BatchConfig.DEFAULTS}, {@code ClickHouseSinkConfig.DEFAULT_*}, ...). Validated
 * when bound.
 */
@ConfigurationProperties("etl.sink.clickhouse")
public class EtlClickHouseProperties implements Validator {

    /**
     * Sink name: chains address the sink by it, and it is the "sink" metric tag.
     */
    private String name = "clickhouse";

    /**
     * Database of the shard-local table.
     */
    private String database = "default";

    /**
     * Shard-local table (the same name on every shard; never a Distributed table).
     */
    private String table;

    /**
     * Shards in order (the router's shard index), each with the HTTP URLs of its replicas.
     */
    private List<Shard> shards = new ArrayList<>();

    /**
     * User name.
     */
    private String username;

    /**
     * Password.
     */
    private String password;

    /**
     * TCP connect timeout per request.
     */
    private Duration connectTimeout = ClickHouseSinkConfig.DEFAULT_CONNECT_TIMEOUT;

    /**
     * How long an insert may take until the server answers; exceeding it is a transient failure.
     */
    private Duration socketTimeout = ClickHouseSinkConfig.DEFAULT_SOCKET_TIMEOUT;

    /**
     * Whether insert bodies are sent compressed (LZ4 blocks with client-v2, gzip with http).
     */
    private boolean compression = false;

    /**
     * Client stack inserts go through: client-v2 (ClickHouse's Java client) or raw HTTP.
     */
    private Transport transport = Transport.valueOf(ClickHouseSinkConfig.DEFAULT_TRANSPORT.name());

    /**
     * Format inserts are sent in: row-binary (the encoded rows as they are) or native (each batch
     * transposed into one columnar Native block on the shard's io thread, which needs the sink's
     * RowBinaryEncoder bean; a column type it cannot send fails startup naming the column).
     */
    private InsertFormat format = InsertFormat.valueOf(ClickHouseSinkConfig.DEFAULT_FORMAT.name());

    /**
     * Startup schema validation against "system.columns".
     */
    private ValidationMode validation = ValidationMode.valueOf(ClickHouseSinkConfig.DEFAULT_VALIDATION.name());

    /**
     * Whether startup fails, instead of warning, when the table does not deduplicate retried
     * inserts.
     */
    private boolean requireDedup = false;

    /**
     * Whether rows are inserted in deterministic blocks: one insert per source partition, offset range
     * and shard, ended at boundaries recorded in the Kafka commit metadata before the insert, so a replay
     * after a crash, restart or rebalance rebuilds the same inserts and a Replicated*MergeTree table (or
     * a server that knows insert_deduplication_token) drops them instead of duplicating rows.
     */
    private boolean deterministicBlocks = ClickHouseSinkConfig.DEFAULT_DETERMINISTIC_BLOCKS;

    /**
     * Inserts in flight per shard at most: the shard gets this many writers, each writing one insert at a
     * time; a partition's blocks always go to the same writer, so they stay in order. More than one keeps a
     * steady stream's blocks (one per partition and shard every linger) from waiting for each other.
     */
    private int writersPerShard = ClickHouseSinkConfig.DEFAULT_WRITERS_PER_SHARD;

    /**
     * Chunks each shard queue holds before lanes pause (a power of two).
     */
    private int queueCapacity = SinkDefinition.DEFAULT_QUEUE_CAPACITY;

    /**
     * What a permanent write failure does. Rows the server refuses for their content (isolated, the rest of
     * their batch written): FAIL stops the pipeline naming them; SKIP counts and logs them and goes on. A
     * batch that cannot be written at all (a wrong table, credentials): FAIL stops the pipeline; SKIP fails
     * the batch's acks (its partitions stall, nothing is lost) and keeps running.
     */
    private ErrorPolicy permanentFailure = ErrorPolicy.FAIL;

    /**
     * ClickHouse error codes that refuse rows for their content, on top of the built-in list (e.g. 395
     * throwIf, 469 constraint): the sink writes the batch's other rows and applies permanent-failure to the
     * refused ones only. Unknown codes are otherwise retried as transient; transient codes are refused here.
     */
    private List<Integer> rejectionCodes = new ArrayList<>();

    /**
     * Additional server settings sent with every insert. Settings the sink owns
     * (wait_end_of_query, insert_deduplicate, insert_deduplication_token, async_insert,
     * send_progress_in_http_headers) are refused.
     */
    private Map<String, String> settings = new LinkedHashMap<>();

    @NestedConfigurationProperty
    private final ClickHouseSslProperties ssl = new ClickHouseSslProperties();

    /**
     * Named tables, each a sink of its own named by its key (a chain writes to table "orders" with
     * sink("orders", router)) and written with the RowBinaryEncoder bean qualified with that name, over
     * this connection and these settings: per table "table" (required), "database", "validation",
     * "require-dedup", "batch.*" and "placement.*", each defaulting to the property of the same name
     * here.
     */
    private Map<String, ClickHouseTableProperties> tables = new LinkedHashMap<>();

    @NestedConfigurationProperty
    private final ClickHouseChunkProperties chunk = new ClickHouseChunkProperties();

    @NestedConfigurationProperty
    private final ClickHouseBatchProperties batch = new ClickHouseBatchProperties();

    @NestedConfigurationProperty
    private final ClickHouseRetryProperties retry = new ClickHouseRetryProperties();

    @NestedConfigurationProperty
    private final ClickHouseBreakerProperties breaker = new ClickHouseBreakerProperties();

    @NestedConfigurationProperty
    private final ClickHousePlacementProperties placement = new ClickHousePlacementProperties();

    @NestedConfigurationProperty
    private final ClickHouseTableSourceProperties from = new ClickHouseTableSourceProperties();

    public String getName() {
        return this.name;
    }

    public void setName(String name) {
        this.name = name;
    }

    public String getDatabase() {
        return this.database;
    }

    public void setDatabase(String database) {
        this.database = database;
    }

    public @Nullable String getTable() {
        return this.table;
    }

    public void setTable(@Nullable String table) {
        this.table = table;
    }

    public List<Shard> getShards() {
        return this.shards;
    }

    public void setShards(List<Shard> shards) {
        this.shards = shards;
    }

    public @Nullable String getUsername() {
        return this.username;
    }

    public void setUsername(@Nullable String username) {
        this.username = username;
    }

    public @Nullable String getPassword() {
        return this.password;
    }

    public void setPassword(@Nullable String password) {
        this.password = password;
    }

    public Duration getConnectTimeout() {
        return this.connectTimeout;
    }

    public void setConnectTimeout(Duration connectTimeout) {
        this.connectTimeout = connectTimeout;
    }

    public Duration getSocketTimeout() {
        return this.socketTimeout;
    }

    public void setSocketTimeout(Duration socketTimeout) {
        this.socketTimeout = socketTimeout;
    }

    public boolean isCompression() {
        return this.compression;
    }

    public void setCompression(boolean compression) {
        this.compression = compression;
    }

    public Transport getTransport() {
        return this.transport;
    }

    public void setTransport(Transport transport) {
        this.transport = transport;
    }

    public InsertFormat getFormat() {
        return this.format;
    }

    public void setFormat(InsertFormat format) {
        this.format = format;
    }

    public ValidationMode getValidation() {
        return this.validation;
    }

    public void setValidation(ValidationMode validation) {
        this.validation = validation;
    }

    public boolean isRequireDedup() {
        return this.requireDedup;
    }

    public void setRequireDedup(boolean requireDedup) {
        this.requireDedup = requireDedup;
    }

    public boolean isDeterministicBlocks() {
        return this.deterministicBlocks;
    }

    public void setDeterministicBlocks(boolean deterministicBlocks) {
        this.deterministicBlocks = deterministicBlocks;
    }

    public int getWritersPerShard() {
        return this.writersPerShard;
    }

    public void setWritersPerShard(int writersPerShard) {
        this.writersPerShard = writersPerShard;
    }

    public int getQueueCapacity() {
        return this.queueCapacity;
    }

    public void setQueueCapacity(int queueCapacity) {
        this.queueCapacity = queueCapacity;
    }

    public ErrorPolicy getPermanentFailure() {
        return this.permanentFailure;
    }

    public void setPermanentFailure(ErrorPolicy permanentFailure) {
        this.permanentFailure = permanentFailure;
    }

    public List<Integer> getRejectionCodes() {
        return this.rejectionCodes;
    }

    public void setRejectionCodes(List<Integer> rejectionCodes) {
        this.rejectionCodes = rejectionCodes;
    }

    public Map<String, String> getSettings() {
        return this.settings;
    }

    public void setSettings(Map<String, String> settings) {
        this.settings = settings;
    }

    public ClickHouseSslProperties getSsl() {
        return this.ssl;
    }

    public Map<String, ClickHouseTableProperties> getTables() {
        return this.tables;
    }

    public void setTables(Map<String, ClickHouseTableProperties> tables) {
        this.tables = tables;
    }

    public ClickHouseChunkProperties getChunk() {
        return this.chunk;
    }

    public ClickHouseBatchProperties getBatch() {
        return this.batch;
    }

    public ClickHouseRetryProperties getRetry() {
        return this.retry;
    }

    public ClickHouseBreakerProperties getBreaker() {
        return this.breaker;
    }

    public ClickHousePlacementProperties getPlacement() {
        return this.placement;
    }

    public ClickHouseTableSourceProperties getFrom() {
        return this.from;
    }

    /** Insert transports. */
    public enum Transport {

        /** ClickHouse's client-v2, one client per replica. */
        CLIENT_V2,

        /** A raw HTTP POST per insert. */
        HTTP
    }

    /** Insert formats. */
    public enum InsertFormat {

        /** The rows as the encoder wrote them (RowBinary). */
        ROW_BINARY,

        /** One columnar Native block per batch, transposed from the rows. */
        NATIVE
    }

    /** Startup schema validation modes. */
    public enum ValidationMode {

        /** No comparison. */
        OFF,

        /** Column names and their order. */
        NAMES,

        /** Column names, order and types. */
        FULL
    }

    /** One shard. */
    public static class Shard {

        /**
         * HTTP base URLs of the shard's replicas, e.g. "http://ch-1a:8123"; tried in order,
         * rotating on failure.
         */
        private List<URI> replicas = new ArrayList<>();

        public List<URI> getReplicas() {
            return this.replicas;
        }

        public void setReplicas(List<URI> replicas) {
            this.replicas = replicas;
        }
    }

    @Override
    public boolean supports(Class<?> clazz) {
        return EtlClickHouseProperties.class.isAssignableFrom(clazz);
    }

    @Override
    public void validate(Object target, Errors errors) {
        new ClickHousePropertiesValidation((EtlClickHouseProperties) target, errors).validate();
    }
}
