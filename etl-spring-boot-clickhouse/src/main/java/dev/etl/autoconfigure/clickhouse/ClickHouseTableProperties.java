package dev.etl.autoconfigure.clickhouse;

import java.time.Duration;
import org.jspecify.annotations.Nullable;
import org.springframework.boot.context.properties.NestedConfigurationProperty;
import org.springframework.util.unit.DataSize;

/**
 * One named table ({@code etl.sink.clickhouse.tables.<name>.*}): a ClickHouse sink of its own, named
 * {@code <name>}, over the connection and the settings of {@code etl.sink.clickhouse.*} (shards,
 * replicas, credentials, timeouts, transport, retries, breakers, chunks, queue capacity, server
 * settings). Its rows are written with the {@code RowBinaryEncoder} bean qualified {@code <name>}, or, with
 * {@code from.topic}, by the pipeline the starter derives from the table and the topic's schema.
 * Every property left unset here takes the value of the same property under {@code etl.sink.clickhouse}.
 */
public class ClickHouseTableProperties {

    /**
     * Shard-local table of this sink (the same name on every shard; never a Distributed table). Required.
     */
    private String table;

    /**
     * Database of the table. Defaults to "etl.sink.clickhouse.database".
     */
    private String database;

    /**
     * Startup schema validation against "system.columns". Defaults to "etl.sink.clickhouse.validation".
     */
    private EtlClickHouseProperties.ValidationMode validation;

    /**
     * Whether startup fails, instead of warning, when the table does not deduplicate retried inserts.
     * Defaults to "etl.sink.clickhouse.require-dedup".
     */
    private Boolean requireDedup;

    private final Batch batch = new Batch();

    @NestedConfigurationProperty
    private final ClickHousePlacementProperties placement = new ClickHousePlacementProperties();

    @NestedConfigurationProperty
    private final ClickHouseTableSourceProperties from = new ClickHouseTableSourceProperties();

    public @Nullable String getTable() {
        return this.table;
    }

    public void setTable(@Nullable String table) {
        this.table = table;
    }

    public @Nullable String getDatabase() {
        return this.database;
    }

    public void setDatabase(@Nullable String database) {
        this.database = database;
    }

    public EtlClickHouseProperties.ValidationMode getValidation() {
        return this.validation;
    }

    public void setValidation(EtlClickHouseProperties.ValidationMode validation) {
        this.validation = validation;
    }

    public @Nullable Boolean getRequireDedup() {
        return this.requireDedup;
    }

    public void setRequireDedup(@Nullable Boolean requireDedup) {
        this.requireDedup = requireDedup;
    }

    public Batch getBatch() {
        return this.batch;
    }

    public ClickHousePlacementProperties getPlacement() {
        return this.placement;
    }

    public ClickHouseTableSourceProperties getFrom() {
        return this.from;
    }

    /** When this table's shard workers seal a batch; unset values are "etl.sink.clickhouse.batch.*". */
    public static class Batch {

        /**
         * Rows at which a batch is sealed. Defaults to "etl.sink.clickhouse.batch.max-rows".
         */
        private Integer maxRows;

        /**
         * Encoded size at which a batch is sealed. Defaults to "etl.sink.clickhouse.batch.max-bytes".
         */
        private DataSize maxBytes;

        /**
         * Time after a batch's first row at which it is sealed, full or not. Defaults to
         * "etl.sink.clickhouse.batch.linger".
         */
        private Duration linger;

        public @Nullable Integer getMaxRows() {
            return this.maxRows;
        }

        public void setMaxRows(@Nullable Integer maxRows) {
            this.maxRows = maxRows;
        }

        public @Nullable DataSize getMaxBytes() {
            return this.maxBytes;
        }

        public void setMaxBytes(@Nullable DataSize maxBytes) {
            this.maxBytes = maxBytes;
        }

        public @Nullable Duration getLinger() {
            return this.linger;
        }

        public void setLinger(@Nullable Duration linger) {
            this.linger = linger;
        }
    }
}
