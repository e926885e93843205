package dev.etl.autoconfigure;

import java.net.URI;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

import org.springframework.boot.context.properties.ConfigurationProperties;
import org.springframework.core.io.Resource;
import org.springframework.util.unit.DataSize;
import org.springframework.validation.Validator;

import dev.etl.error.ErrorClass;
import dev.etl.error.ErrorPolicy;

/**
 * Configuration of the pipeline ({@code etl.*}). Topology is never configured here: it is code, in
 * {@code ChainFactory} beans. Kafka connection settings (bootstrap servers, SSL, SASL, consumer
 * settings) come from {@code spring.kafka.*}; {@code etl.source.kafka.properties} is applied on top.
 *
 * <p>Validated when bound (the class is its own {@link Validator}), so a bad value fails startup with
 * the property's name, its origin, and the allowed values.
 */
@ConfigurationProperties("etl")
public class EtlProperties implements Validator {

    /**
     * Server settings the ClickHouse sink sets on every insert itself; refused in
     * {@code etl.sink.clickhouse.settings}.
     */
    public static final List<String> OWNED_CLICKHOUSE_SETTINGS = List.of("wait_end_of_query", "insert_deduplicate",
            "insert_deduplication_token", "async_insert", "send_progress_in_http_headers", "query", "database");

    private final Pipeline pipeline = new Pipeline();

    private final Checkpoint checkpoint = new Checkpoint();

    private final Backpressure backpressure = new Backpressure();

    private final Source source = new Source();

    private final Avro avro = new Avro();

    private final Sink sink = new Sink();

    private final Errors errors = new Errors();

    private final Metrics metrics = new Metrics();

    public Pipeline getPipeline() {
        return this.pipeline;
    }

    public Checkpoint getCheckpoint() {
        return this.checkpoint;
    }

    public Backpressure getBackpressure() {
        return this.backpressure;
    }

    public Source getSource() {
        return this.source;
    }

    public Avro getAvro() {
        return this.avro;
    }

    public Sink getSink() {
        return this.sink;
    }

    public Errors getErrors() {
        return this.errors;
    }

    public Metrics getMetrics() {
        return this.metrics;
    }

    @Override
    public boolean supports(Class<?> clazz) {
        return EtlProperties.class.isAssignableFrom(clazz);
    }

    @Override
    public void validate(Object target, org.springframework.validation.Errors errors) {
        new EtlPropertiesValidation((EtlProperties) target, errors).validate();
    }

    /** Threads and identity of the pipeline. */
    public static class Pipeline {

        /**
         * Whether to assemble and run the pipeline. When false no pipeline beans are created.
         */
        private boolean enabled = true;

        /**
         * Pipeline name: thread names, the "pipeline" metric tag and logs. Defaults to
         * "spring.application.name", else "etl".
         */
        private String name;

        /**
         * Lane threads; each owns one Kafka consumer and its own operator chain.
         */
        private int threads = 1;

        /**
         * I/O threads per sink, running the shard writers. 0 means one per shard, so a slow shard's
         * blocking writes never delay another's.
         */
        private int ioThreads = 0;

        /**
         * Longest time a lane waits in one poll of the source.
         */
        private Duration pollTimeout = Duration.ofMillis(100);

        /**
         * Whether a failed pipeline closes the application context.
         */
        private boolean closeOnFailure = true;

        /**
         * Whether a failed pipeline ends the JVM with a non-zero exit code (System.exit) after the
         * application context was closed.
         */
        private boolean exitOnFailure = true;

        /**
         * Whether SIGTERM and SIGINT, while the pipeline runs, close the application context (the
         * pipeline drains) and then end the JVM with the drain's outcome: 0 after a clean drain, 2 when
         * data was abandoned at the drain deadline, 1 when the pipeline failed. When false the JVM's own
         * handling applies: the same drain through the shutdown hook, then exit status 143.
         */
        private boolean handleSignals = true;

        public boolean isEnabled() {
            return this.enabled;
        }

        public void setEnabled(boolean enabled) {
            this.enabled = enabled;
        }

        public String getName() {
            return this.name;
        }

        public void setName(String name) {
            this.name = name;
        }

        public int getThreads() {
            return this.threads;
        }

        public void setThreads(int threads) {
            this.threads = threads;
        }

        public int getIoThreads() {
            return this.ioThreads;
        }

        public void setIoThreads(int ioThreads) {
            this.ioThreads = ioThreads;
        }

        public Duration getPollTimeout() {
            return this.pollTimeout;
        }

        public void setPollTimeout(Duration pollTimeout) {
            this.pollTimeout = pollTimeout;
        }

        public boolean isCloseOnFailure() {
            return this.closeOnFailure;
        }

        public void setCloseOnFailure(boolean closeOnFailure) {
            this.closeOnFailure = closeOnFailure;
        }

        public boolean isExitOnFailure() {
            return this.exitOnFailure;
        }

        public void setExitOnFailure(boolean exitOnFailure) {
            this.exitOnFailure = exitOnFailure;
        }

        public boolean isHandleSignals() {
            return this.handleSignals;
        }

        public void setHandleSignals(boolean handleSignals) {
            this.handleSignals = handleSignals;
        }

    }

    /** Watermark commits and the drain barrier. */
    public static class Checkpoint {

        /**
         * How often advanced watermarks are committed (asynchronously). Revokes and shutdown commit
         * synchronously regardless.
         */
        private Duration interval = Duration.ofSeconds(5);

        /**
         * Bound on draining in-flight data at revoke and at shutdown; batches still unwritten then are
         * abandoned and their offsets not committed. Must fit inside
         * "spring.lifecycle.timeout-per-shutdown-phase".
         */
        private Duration drainTimeout = Duration.ofSeconds(25);

        /**
         * Fail the pipeline when a partition's watermark has not advanced past outstanding data for
         * this long (a failed or unwritten oldest batch; the partition itself is paused meanwhile).
         * Longer than a shard outage that retries ride out. 0 disables the check.
         */
        private Duration stalledFailAfter = Duration.ofMinutes(10);

        public Duration getInterval() {
            return this.interval;
        }

        public void setInterval(Duration interval) {
            this.interval = interval;
        }

        public Duration getDrainTimeout() {
            return this.drainTimeout;
        }

        public void setDrainTimeout(Duration drainTimeout) {
            this.drainTimeout = drainTimeout;
        }

        public Duration getStalledFailAfter() {
            return this.stalledFailAfter;
        }

        public void setStalledFailAfter(Duration stalledFailAfter) {
            this.stalledFailAfter = stalledFailAfter;
        }

    }

    /** The in-flight byte budget and pause/resume hysteresis. */
    public static class Backpressure {

        /**
         * Global budget of encoded bytes handed to sinks and not yet written.
         */
        private DataSize maxInFlightBytes = DataSize.ofMegabytes(256);

        /**
         * Budget utilisation, in (0, 1], at which lanes pause their partitions (and keep polling).
         */
        private double pauseAbove = 0.9;

        /**
         * Budget utilisation, in [0, pause-above), below which paused lanes resume.
         */
        private double resumeBelow = 0.5;

        /**
         * Shortest pause, against flapping.
         */
        private Duration minPause = Duration.ofMillis(50);

        public DataSize getMaxInFlightBytes() {
            return this.maxInFlightBytes;
        }

        public void setMaxInFlightBytes(DataSize maxInFlightBytes) {
            this.maxInFlightBytes = maxInFlightBytes;
        }

        public double getPauseAbove() {
            return this.pauseAbove;
        }

        public void setPauseAbove(double pauseAbove) {
            this.pauseAbove = pauseAbove;
        }

        public double getResumeBelow() {
            return this.resumeBelow;
        }

        public void setResumeBelow(double resumeBelow) {
            this.resumeBelow = resumeBelow;
        }

        public Duration getMinPause() {
            return this.minPause;
        }

        public void setMinPause(Duration minPause) {
            this.minPause = minPause;
        }

    }

    /** Sources. */
    public static class Source {

        private final Kafka kafka = new Kafka();

        public Kafka getKafka() {
            return this.kafka;
        }

        /** Kafka source: what to subscribe to, and client settings on top of "spring.kafka.*". */
        public static class Kafka {

            /**
             * Topics to subscribe to. Exactly one of "topics" and "pattern" must be set.
             */
            private List<String> topics = new ArrayList<>();

            /**
             * Regular expression of the topics to subscribe to. Exactly one of "topics" and
             * "pattern" must be set.
             */
            private String pattern;

            /**
             * Additional Kafka consumer properties, applied on top of "spring.kafka.consumer.*".
             * "enable.auto.commit" is always false.
             */
            private Map<String, String> properties = new LinkedHashMap<>();

            public List<String> getTopics() {
                return this.topics;
            }

            public void setTopics(List<String> topics) {
                this.topics = topics;
            }

            public String getPattern() {
                return this.pattern;
            }

            public void setPattern(String pattern) {
                this.pattern = pattern;
            }

            public Map<String, String> getProperties() {
                return this.properties;
            }

            public void setProperties(Map<String, String> properties) {
                this.properties = properties;
            }

        }

    }

    /** Avro deserialization and the schema registry. */
    public static class Avro {

        private final Registry registry = new Registry();

        /**
         * Location of a reader schema (.avsc), parsed into the Schema bean "etlAvroReaderSchema" for
         * the application's AvroDeserializer.
         */
        private Resource readerSchema;

        public Registry getRegistry() {
            return this.registry;
        }

        public Resource getReaderSchema() {
            return this.readerSchema;
        }

        public void setReaderSchema(Resource readerSchema) {
            this.readerSchema = readerSchema;
        }

        /** Schema registry (Confluent-compatible REST API). */
        public static class Registry {

            /**
             * Base URL of the registry API, e.g. "http://registry:8081".
             */
            private String url;

            /**
             * User name for HTTP basic authentication.
             */
            private String username;

            /**
             * Password for HTTP basic authentication.
             */
            private String password;

            /**
             * Name of the SSL bundle ("spring.ssl.bundle.*") whose trust material verifies the
             * registry's certificate.
             */
            private String sslBundle;

            /**
             * TCP connect timeout of registry requests.
             */
            private Duration connectTimeout = Duration.ofSeconds(5);

            /**
             * Timeout of one registry request.
             */
            private Duration requestTimeout = Duration.ofSeconds(10);

            /**
             * Whether to check at startup that the URL answers the Confluent Schema Registry API
             * (GET /subjects returns a JSON array) and fail the application naming the URL when it
             * does not (wrong base path, a web page, refused credentials, unreachable).
             */
            private boolean checkOnStartup = true;

            public boolean isCheckOnStartup() {
                return this.checkOnStartup;
            }

            public void setCheckOnStartup(boolean checkOnStartup) {
                this.checkOnStartup = checkOnStartup;
            }

            public String getUrl() {
                return this.url;
            }

            public void setUrl(String url) {
                this.url = url;
            }

            public String getUsername() {
                return this.username;
            }

            public void setUsername(String username) {
                this.username = username;
            }

            public String getPassword() {
                return this.password;
            }

            public void setPassword(String password) {
                this.password = password;
            }

            public String getSslBundle() {
                return this.sslBundle;
            }

            public void setSslBundle(String sslBundle) {
                this.sslBundle = sslBundle;
            }

            public Duration getConnectTimeout() {
                return this.connectTimeout;
            }

            public void setConnectTimeout(Duration connectTimeout) {
                this.connectTimeout = connectTimeout;
            }

            public Duration getRequestTimeout() {
                return this.requestTimeout;
            }

            public void setRequestTimeout(Duration requestTimeout) {
                this.requestTimeout = requestTimeout;
            }

        }

    }

    /** Sinks. */
    public static class Sink {

        private final ClickHouse clickhouse = new ClickHouse();

        public ClickHouse getClickhouse() {
            return this.clickhouse;
        }

    }

    /** ClickHouse sink: shard-local table, shards and replicas, batching, retries and breakers. */
    public static class ClickHouse {

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
        private Duration connectTimeout = Duration.ofSeconds(2);

        /**
         * How long an insert may take until the server answers; exceeding it is a transient failure.
         */
        private Duration socketTimeout = Duration.ofSeconds(60);

        /**
         * Whether insert bodies are sent compressed (LZ4 blocks with client-v2, gzip with http).
         */
        private boolean compression = false;

        /**
         * Client stack inserts go through: client-v2 (ClickHouse's Java client) or raw HTTP.
         */
        private Transport transport = Transport.CLIENT_V2;

        /**
         * Startup schema validation against "system.columns".
         */
        private ValidationMode validation = ValidationMode.FULL;

        /**
         * Whether startup fails, instead of warning, when the table does not deduplicate retried
         * inserts.
         */
        private boolean requireDedup = false;

        /**
         * Chunks each shard queue holds before lanes pause (a power of two).
         */
        private int queueCapacity = 64;

        /**
         * What a permanent write failure does: FAIL stops the pipeline; SKIP fails the batch's acks
         * (its partitions stall, nothing is lost) and keeps running.
         */
        private ErrorPolicy permanentFailure = ErrorPolicy.FAIL;

        /**
         * Additional server settings sent with every insert. Settings the sink owns
         * (wait_end_of_query, insert_deduplicate, insert_deduplication_token, async_insert,
         * send_progress_in_http_headers) are refused.
         */
        private Map<String, String> settings = new LinkedHashMap<>();

        private final Batch batch = new Batch();

        private final Retry retry = new Retry();

        private final Breaker breaker = new Breaker();

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

        public String getTable() {
            return this.table;
        }

        public void setTable(String table) {
            this.table = table;
        }

        public List<Shard> getShards() {
            return this.shards;
        }

        public void setShards(List<Shard> shards) {
            this.shards = shards;
        }

        public String getUsername() {
            return this.username;
        }

        public void setUsername(String username) {
            this.username = username;
        }

        public String getPassword() {
            return this.password;
        }

        public void setPassword(String password) {
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

        public Map<String, String> getSettings() {
            return this.settings;
        }

        public void setSettings(Map<String, String> settings) {
            this.settings = settings;
        }

        public Batch getBatch() {
            return this.batch;
        }

        public Retry getRetry() {
            return this.retry;
        }

        public Breaker getBreaker() {
            return this.breaker;
        }

        /** Insert transports. */
        public enum Transport {

            /** ClickHouse's client-v2, one client per replica. */
            CLIENT_V2,

            /** A raw HTTP POST per insert. */
            HTTP

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

        /** When a shard worker seals a batch. */
        public static class Batch {

            /**
             * Rows at which a batch is sealed.
             */
            private int maxRows = 100_000;

            /**
             * Encoded size at which a batch is sealed.
             */
            private DataSize maxBytes = DataSize.ofMegabytes(32);

            /**
             * Time after a batch's first row at which it is sealed, full or not.
             */
            private Duration linger = Duration.ofSeconds(1);

            /**
             * Sealed batches one shard may be writing at once.
             */
            private int maxInFlightPerShard = 1;

            public int getMaxRows() {
                return this.maxRows;
            }

            public void setMaxRows(int maxRows) {
                this.maxRows = maxRows;
            }

            public DataSize getMaxBytes() {
                return this.maxBytes;
            }

            public void setMaxBytes(DataSize maxBytes) {
                this.maxBytes = maxBytes;
            }

            public Duration getLinger() {
                return this.linger;
            }

            public void setLinger(Duration linger) {
                this.linger = linger;
            }

            public int getMaxInFlightPerShard() {
                return this.maxInFlightPerShard;
            }

            public void setMaxInFlightPerShard(int maxInFlightPerShard) {
                this.maxInFlightPerShard = maxInFlightPerShard;
            }

        }

        /** Retries of transient write failures (same batch, same dedup token, next replica). */
        public static class Retry {

            /**
             * Attempts per batch in all; 0 retries until the drain deadline.
             */
            private int maxAttempts = 0;

            /**
             * First backoff.
             */
            private Duration initialBackoff = Duration.ofMillis(100);

            /**
             * Longest backoff.
             */
            private Duration maxBackoff = Duration.ofSeconds(10);

            /**
             * Backoff growth factor (at least 1).
             */
            private double multiplier = 2.0;

            /**
             * Random spread of each backoff, as a fraction in [0, 1].
             */
            private double jitter = 0.2;

            public int getMaxAttempts() {
                return this.maxAttempts;
            }

            public void setMaxAttempts(int maxAttempts) {
                this.maxAttempts = maxAttempts;
            }

            public Duration getInitialBackoff() {
                return this.initialBackoff;
            }

            public void setInitialBackoff(Duration initialBackoff) {
                this.initialBackoff = initialBackoff;
            }

            public Duration getMaxBackoff() {
                return this.maxBackoff;
            }

            public void setMaxBackoff(Duration maxBackoff) {
                this.maxBackoff = maxBackoff;
            }

            public double getMultiplier() {
                return this.multiplier;
            }

            public void setMultiplier(double multiplier) {
                this.multiplier = multiplier;
            }

            public double getJitter() {
                return this.jitter;
            }

            public void setJitter(double jitter) {
                this.jitter = jitter;
            }

        }

        /** Per-replica circuit breaker. */
        public static class Breaker {

            /**
             * Consecutive transient failures that open a replica's breaker.
             */
            private int threshold = 3;

            /**
             * How long an open breaker refuses its replica before one half-open probe.
             */
            private Duration openTime = Duration.ofSeconds(10);

            public int getThreshold() {
                return this.threshold;
            }

            public void setThreshold(int threshold) {
                this.threshold = threshold;
            }

            public Duration getOpenTime() {
                return this.openTime;
            }

            public void setOpenTime(Duration openTime) {
                this.openTime = openTime;
            }

        }

    }

    /**
     * Record-level error policies (SKIP, FAIL or DEAD_LETTER). Stage overrides win over error-type
     * overrides.
     */
    public static class Errors {

        private final DeadLetter deadLetter = new DeadLetter();

        private final SkipBudget skipBudget = new SkipBudget();

        /**
         * Error policy by stage name (the name given to an operator in the chain, e.g. "to-row").
         */
        private Map<String, ErrorPolicy> stages = new LinkedHashMap<>();

        /**
         * Error policy by error type: deserialization, operator, encode, sink-transient,
         * sink-permanent, source.
         */
        private Map<ErrorClass, ErrorPolicy> types = new LinkedHashMap<>();

        public Map<String, ErrorPolicy> getStages() {
            return this.stages;
        }

        public void setStages(Map<String, ErrorPolicy> stages) {
            this.stages = stages;
        }

        public Map<ErrorClass, ErrorPolicy> getTypes() {
            return this.types;
        }

        public void setTypes(Map<ErrorClass, ErrorPolicy> types) {
            this.types = types;
        }

        public DeadLetter getDeadLetter() {
            return this.deadLetter;
        }

        public SkipBudget getSkipBudget() {
            return this.skipBudget;
        }

        /**
         * Skip budget: fails the pipeline when, within one window, a lane skips or dead-letters more
         * than max-ratio of the records it received, per error type, so SKIP cannot silently drop
         * everything (e.g. after a wrong registry path).
         */
        public static class SkipBudget {

            /**
             * Whether a lane that skips or dead-letters more than its budget fails the pipeline.
             */
            private boolean enabled = true;

            /**
             * Share of the records a lane received in the window, in [0, 1), that may be skipped or
             * dead-lettered per error type; more fails the pipeline.
             */
            private double maxRatio = 0.5;

            /**
             * Length of the (tumbling) window the ratio is counted over.
             */
            private Duration window = Duration.ofMinutes(1);

            /**
             * Records a lane must have received in the window before the budget applies.
             */
            private long minRecords = 100;

            public boolean isEnabled() {
                return this.enabled;
            }

            public void setEnabled(boolean enabled) {
                this.enabled = enabled;
            }

            public double getMaxRatio() {
                return this.maxRatio;
            }

            public void setMaxRatio(double maxRatio) {
                this.maxRatio = maxRatio;
            }

            public Duration getWindow() {
                return this.window;
            }

            public void setWindow(Duration window) {
                this.window = window;
            }

            public long getMinRecords() {
                return this.minRecords;
            }

            public void setMinRecords(long minRecords) {
                this.minRecords = minRecords;
            }

        }

        /**
         * Dead-letter topic for records failed under DEAD_LETTER: setting the topic creates the
         * pipeline's dead-letter sink (a Kafka producer on top of "spring.kafka.producer.*").
         */
        public static class DeadLetter {

            /**
             * Kafka topic that records failed under the DEAD_LETTER policy are written to (original
             * key and value bytes plus "etl.*" context headers). Required when any policy is
             * DEAD_LETTER.
             */
            private String topic;

            /**
             * Additional Kafka producer properties for the dead-letter topic, applied on top of
             * "spring.kafka.producer.*". "acks" is always "all" and "enable.idempotence" always true.
             */
            private Map<String, String> properties = new LinkedHashMap<>();

            /**
             * Longest a dead-letter write waits for the broker to acknowledge its records before it is
             * retried.
             */
            private Duration sendTimeout = Duration.ofSeconds(30);

            /**
             * Largest dead-letter record (key + value + headers). A bigger record is truncated to fit,
             * with header "etl.truncated" saying what was cut, instead of failing the pipeline. The
             * producer's "max.request.size" and the topic's "max.message.bytes" lower it further.
             */
            private DataSize maxRecordSize = DataSize.ofMegabytes(1);

            /**
             * Whether the pipeline's start checks that the dead-letter topic exists and fails naming
             * it when it does not.
             */
            private boolean checkTopic = true;

            public DataSize getMaxRecordSize() {
                return this.maxRecordSize;
            }

            public void setMaxRecordSize(DataSize maxRecordSize) {
                this.maxRecordSize = maxRecordSize;
            }

            public boolean isCheckTopic() {
                return this.checkTopic;
            }

            public void setCheckTopic(boolean checkTopic) {
                this.checkTopic = checkTopic;
            }

            public String getTopic() {
                return this.topic;
            }

            public void setTopic(String topic) {
                this.topic = topic;
            }

            public Map<String, String> getProperties() {
                return this.properties;
            }

            public void setProperties(Map<String, String> properties) {
                this.properties = properties;
            }

            public Duration getSendTimeout() {
                return this.sendTimeout;
            }

            public void setSendTimeout(Duration sendTimeout) {
                this.sendTimeout = sendTimeout;
            }

        }

    }

    /** Engine metrics. */
    public static class Metrics {

        /**
         * Whether the engine's meters are registered with the application's MeterRegistry (and so
         * exported, e.g. to Prometheus). When false they go to a private registry.
         */
        private boolean enabled = true;

        /**
         * Tags added to every engine meter (names starting with "etl."), e.g. "env: prod".
         */
        private Map<String, String> tags = new LinkedHashMap<>();

        public boolean isEnabled() {
            return this.enabled;
        }

        public void setEnabled(boolean enabled) {
            this.enabled = enabled;
        }

        public Map<String, String> getTags() {
            return this.tags;
        }

        public void setTags(Map<String, String> tags) {
            this.tags = tags;
        }

    }

}
