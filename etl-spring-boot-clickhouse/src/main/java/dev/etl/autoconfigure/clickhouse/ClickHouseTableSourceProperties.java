package dev.etl.autoconfigure.clickhouse;

import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.jspecify.annotations.Nullable;
import org.springframework.core.io.Resource;
import org.springframework.util.StringUtils;

/**
 * Where a table's rows come from ({@code etl.sink.clickhouse.from.*}, {@code
 * etl.sink.clickhouse.tables.<name>.from.*}): a topic, and the mapping of its records to the table's
 * columns, derived at startup from the table's columns ({@code system.columns}) and the reader schema, by
 * column name, with the overrides given here. With {@code topic} set the starter builds the pipeline: no
 * {@code ChainFactory}, encoder or mapping bean is needed for this table.
 */
public class ClickHouseTableSourceProperties {

    /**
     * Topic whose records are this table's rows. Setting it turns the YAML-only pipeline on for this table:
     * the starter derives the mapping and builds the chain (tables sharing a topic share one chain).
     */
    private String topic;

    /**
     * Format of the topic's values: avro (Confluent-framed, writer schemas from the registry) or json (one
     * JSON object per record).
     */
    private Format format = Format.AVRO;

    /**
     * Registry subject whose latest schema is the Avro reader schema. Defaults to "<topic>-value" when
     * neither "schema" nor "schema-class" is set.
     */
    private String subject;

    /**
     * Avro reader schema as a resource (an .avsc file, e.g. "classpath:order.avsc").
     */
    private Resource schema;

    /**
     * Avro reader schema as a generated SpecificRecord class (its static getClassSchema()).
     */
    private String schemaClass;

    /**
     * Array field exploded into one row per element (its element's fields are columns too).
     */
    private String explode;

    /**
     * Column that takes the exploded element's position in its array, from 0.
     */
    private String index;

    /**
     * Field whose value decides the shard (rows with one key go to one shard; an order's lines stay
     * together). Without it rows go by the record's key.
     */
    private String shardKey;

    /**
     * Records dropped before any column is written: field path → the values that drop the record.
     */
    private Map<String, List<String>> dropWhen = new LinkedHashMap<>();

    /**
     * Records kept, all others dropped: field path → the values that keep the record.
     */
    private Map<String, List<String>> keepWhen = new LinkedHashMap<>();

    /**
     * Column overrides: column → the field path (dotted: "lines.price_cents") or computed source that fills
     * it. Every other column takes the field of its name; a column name with a dot goes in brackets
     * ("[lines.sku]").
     */
    private Map<String, String> columns = new LinkedHashMap<>();

    /**
     * Schema evolution without a deploy (Avro, reader schema from the registry): a new field of the subject's
     * new latest schema becomes a column of the table.
     */
    private final AutoEvolve autoEvolve = new AutoEvolve();

    public AutoEvolve getAutoEvolve() {
        return this.autoEvolve;
    }

    /** Whether this table says where its rows come from ({@code topic} set). */
    public boolean isConfigured() {
        return StringUtils.hasText(this.topic);
    }

    public @Nullable String getTopic() {
        return this.topic;
    }

    public void setTopic(@Nullable String topic) {
        this.topic = topic;
    }

    public Format getFormat() {
        return this.format;
    }

    public void setFormat(Format format) {
        this.format = format;
    }

    public @Nullable String getSubject() {
        return this.subject;
    }

    public void setSubject(@Nullable String subject) {
        this.subject = subject;
    }

    public @Nullable Resource getSchema() {
        return this.schema;
    }

    public void setSchema(@Nullable Resource schema) {
        this.schema = schema;
    }

    public @Nullable String getSchemaClass() {
        return this.schemaClass;
    }

    public void setSchemaClass(@Nullable String schemaClass) {
        this.schemaClass = schemaClass;
    }

    public @Nullable String getExplode() {
        return this.explode;
    }

    public void setExplode(@Nullable String explode) {
        this.explode = explode;
    }

    public @Nullable String getIndex() {
        return this.index;
    }

    public void setIndex(@Nullable String index) {
        this.index = index;
    }

    public @Nullable String getShardKey() {
        return this.shardKey;
    }

    public void setShardKey(@Nullable String shardKey) {
        this.shardKey = shardKey;
    }

    public Map<String, List<String>> getDropWhen() {
        return this.dropWhen;
    }

    public void setDropWhen(Map<String, List<String>> dropWhen) {
        this.dropWhen = dropWhen;
    }

    public Map<String, List<String>> getKeepWhen() {
        return this.keepWhen;
    }

    public void setKeepWhen(Map<String, List<String>> keepWhen) {
        this.keepWhen = keepWhen;
    }

    public Map<String, String> getColumns() {
        return this.columns;
    }

    public void setColumns(Map<String, String> columns) {
        this.columns = columns;
    }

    /** The names of the reader-schema properties that are set, for the "at most one" check. */
    List<String> schemaSources() {
        List<String> set = new ArrayList<>();
        if (StringUtils.hasText(this.subject)) {
            set.add("subject");
        }
        if (this.schema != null) {
            set.add("schema");
        }
        if (StringUtils.hasText(this.schemaClass)) {
            set.add("schema-class");
        }
        return set;
    }

    /**
     * {@code from.auto-evolve.*}: a new field of the subject's new latest schema becomes {@code ALTER TABLE … ADD
     * COLUMN} on every replica (and on the Distributed table, when named), then the mapping is derived again and
     * the lanes switch to it. Never drops or narrows a column. Needs the ALTER right.
     */
    public static class AutoEvolve {

        /**
         * Whether a new field of the subject's latest schema becomes a column of the table. Needs the reader
         * schema from the registry (subject, not schema or schema-class) and the user's ALTER right.
         */
        private boolean enabled;

        /** How often the registry is asked for the subject's latest schema. */
        private Duration interval = Duration.ofSeconds(30);

        /**
         * Cluster the ALTER runs on (ON CLUSTER, through the distributed DDL queue). Without it the ALTER goes to
         * each shard's first replica that answers (a Replicated table passes it to the shard's other replicas).
         */
        private String cluster;

        /**
         * Distributed table over this table (same database) that gets the new columns too.
         */
        private String distributedTable;

        /**
         * How long every replica may take to show a new column before the change counts as failed (retried at
         * the next interval; the pipeline keeps the old mapping meanwhile).
         */
        private Duration timeout = Duration.ofSeconds(60);

        public boolean isEnabled() {
            return this.enabled;
        }

        public void setEnabled(boolean enabled) {
            this.enabled = enabled;
        }

        public Duration getInterval() {
            return this.interval;
        }

        public void setInterval(Duration interval) {
            this.interval = interval;
        }

        public @Nullable String getCluster() {
            return this.cluster;
        }

        public void setCluster(@Nullable String cluster) {
            this.cluster = cluster;
        }

        public @Nullable String getDistributedTable() {
            return this.distributedTable;
        }

        public void setDistributedTable(@Nullable String distributedTable) {
            this.distributedTable = distributedTable;
        }

        public Duration getTimeout() {
            return this.timeout;
        }

        public void setTimeout(Duration timeout) {
            this.timeout = timeout;
        }
    }

    /** Formats of a topic's values. */
    public enum Format {

        /** Confluent-framed Avro, read through the reader schema into RowBinary (the Avro transcoder). */
        AVRO,

        /** One JSON object per record, read by column name into RowBinary. */
        JSON
    }
}
