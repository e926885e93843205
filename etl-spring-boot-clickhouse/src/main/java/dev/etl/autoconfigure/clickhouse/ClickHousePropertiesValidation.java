package dev.etl.autoconfigure.clickhouse;

import dev.etl.clickhouse.ClickHouseSinkConfig;
import dev.etl.clickhouse.sharding.KeyType;
import dev.etl.clickhouse.sharding.ShardingKey;
import java.util.List;
import java.util.TreeSet;
import java.util.regex.Pattern;
import org.springframework.util.StringUtils;
import org.springframework.util.unit.DataSize;
import org.springframework.validation.Errors;

/**
 * The checks behind {@link EtlClickHouseProperties#validate}: each rejection names the property in its
 * {@code etl.sink.clickhouse.*} form and what is allowed.
 */
final class ClickHousePropertiesValidation {

    private static final String INVALID = "etl.invalid";

    private static final Pattern SETTING_NAME = Pattern.compile("[A-Za-z_][A-Za-z0-9_]*");

    private static final Pattern SINK_NAME = Pattern.compile("[A-Za-z0-9_-]+");

    private final EtlClickHouseProperties properties;

    private final Errors errors;

    ClickHousePropertiesValidation(EtlClickHouseProperties properties, Errors errors) {
        this.properties = properties;
        this.errors = errors;
    }

    void validate() {
        EtlClickHouseProperties clickHouse = this.properties;
        Errors errors = this.errors;
        if (!StringUtils.hasText(clickHouse.getName())) {
            errors.rejectValue("name", INVALID, "etl.sink.clickhouse.name must not be blank");
        }
        List<EtlClickHouseProperties.Shard> shards = clickHouse.getShards();
        for (int i = 0; i < shards.size(); i++) {
            if (shards.get(i).getReplicas().isEmpty()) {
                errors.rejectValue(
                        "shards",
                        INVALID,
                        "etl.sink.clickhouse.shards[" + i + "].replicas must list at "
                                + "least one replica URL (http://host:port)");
            }
        }
        int capacity = clickHouse.getQueueCapacity();
        if (capacity < 2 || Integer.bitCount(capacity) != 1) {
            errors.rejectValue(
                    "queueCapacity",
                    INVALID,
                    "etl.sink.clickhouse.queue-capacity must be a power of two >= 2 (e.g. 64), got " + capacity);
        }
        for (Integer code : clickHouse.getRejectionCodes()) {
            if (code == null || code <= 0) {
                errors.rejectValue(
                        "rejectionCodes",
                        INVALID,
                        "etl.sink.clickhouse.rejection-codes must list positive ClickHouse error codes, got " + code);
            } else if (ClickHouseSinkConfig.TRANSIENT_ERROR_CODES.contains(code)) {
                errors.rejectValue(
                        "rejectionCodes",
                        INVALID,
                        "etl.sink.clickhouse.rejection-codes lists " + code + ", a transient code (a retry may pass, "
                                + "see ClickHouseSinkConfig.TRANSIENT_ERROR_CODES): treating it as rows the server refuses would "
                                + "let permanent-failure=skip drop them");
            }
        }
        for (String key : clickHouse.getSettings().keySet()) {
            if (ClickHouseSinkConfig.OWNED_SETTINGS.contains(key)) {
                errors.rejectValue(
                        "settings",
                        INVALID,
                        "etl.sink.clickhouse.settings." + key
                                + " is set by the sink itself and cannot be overridden (owned settings: "
                                + new TreeSet<>(ClickHouseSinkConfig.OWNED_SETTINGS) + ")");
            } else if (!SETTING_NAME.matcher(key).matches()) {
                errors.rejectValue(
                        "settings",
                        INVALID,
                        "etl.sink.clickhouse.settings." + key
                                + " is not a ClickHouse setting name ([A-Za-z_][A-Za-z0-9_]*)");
            }
        }
        atLeastOne(
                errors,
                "chunk.maxRows",
                "etl.sink.clickhouse.chunk.max-rows",
                clickHouse.getChunk().getMaxRows());
        DataSize chunkBytes = clickHouse.getChunk().getMaxBytes();
        if (chunkBytes == null || chunkBytes.toBytes() < 1 || chunkBytes.toBytes() > Integer.MAX_VALUE) {
            errors.rejectValue(
                    "chunk.maxBytes",
                    INVALID,
                    "etl.sink.clickhouse.chunk.max-bytes must be between 1B and 2GB, got " + chunkBytes);
        }
        atLeastOne(
                errors,
                "batch.maxRows",
                "etl.sink.clickhouse.batch.max-rows",
                clickHouse.getBatch().getMaxRows());
        ClickHouseRetryProperties retry = clickHouse.getRetry();
        if (retry.getMaxAttempts() < 0) {
            errors.rejectValue(
                    "retry.maxAttempts",
                    INVALID,
                    "etl.sink.clickhouse.retry.max-attempts must be >= 0 (0 = until the drain deadline), got "
                            + retry.getMaxAttempts());
        }
        if (retry.getMultiplier() < 1) {
            errors.rejectValue(
                    "retry.multiplier",
                    INVALID,
                    "etl.sink.clickhouse.retry.multiplier must be >= 1, got " + retry.getMultiplier());
        }
        if (retry.getJitter() < 0 || retry.getJitter() > 1) {
            errors.rejectValue(
                    "retry.jitter",
                    INVALID,
                    "etl.sink.clickhouse.retry.jitter must be in [0, 1], got " + retry.getJitter());
        }
        if (retry.getInitialBackoff() != null
                && retry.getMaxBackoff() != null
                && retry.getMaxBackoff().compareTo(retry.getInitialBackoff()) < 0) {
            errors.rejectValue(
                    "retry.maxBackoff",
                    INVALID,
                    "etl.sink.clickhouse.retry.max-backoff must be >= " + "initial-backoff ("
                            + retry.getInitialBackoff() + "), got " + retry.getMaxBackoff());
        }
        atLeastOne(
                errors,
                "breaker.threshold",
                "etl.sink.clickhouse.breaker.threshold",
                clickHouse.getBreaker().getThreshold());
        placement(
                errors,
                clickHouse.getPlacement(),
                "placement",
                "etl.sink.clickhouse.placement",
                clickHouse.getShards().size());
        if (clickHouse.getPlacement().isConfigured() && !StringUtils.hasText(clickHouse.getTable())) {
            errors.rejectValue(
                    "placement.distributedTable",
                    INVALID,
                    "etl.sink.clickhouse.placement is the placement "
                            + "of the etl.sink.clickhouse.table sink, which is not set; a named table has its own: "
                            + "etl.sink.clickhouse.tables.<name>.placement.*");
        }
        tables(clickHouse);
        from(errors, clickHouse.getFrom(), "from", "etl.sink.clickhouse.from");
        if (clickHouse.getFrom().isConfigured() && !StringUtils.hasText(clickHouse.getTable())) {
            errors.rejectValue(
                    "from.topic",
                    INVALID,
                    "etl.sink.clickhouse.from.topic is set but etl.sink.clickhouse.table is not: name the table "
                            + "whose rows come from topic "
                            + clickHouse.getFrom().getTopic());
        }
    }

    /** {@code tables.<name>.*}: a sink name, a table, batch settings and a placement each. */
    private void tables(EtlClickHouseProperties clickHouse) {
        Errors errors = this.errors;
        boolean single = StringUtils.hasText(clickHouse.getTable());
        clickHouse.getTables().forEach((name, table) -> {
            String prefix = "etl.sink.clickhouse.tables." + name;
            String field = "tables[" + name + "]";
            if (!SINK_NAME.matcher(name).matches()) {
                errors.reject(
                        INVALID,
                        prefix + ": a table's name is its sink's name (chains write to it with "
                                + "sink(\"" + name
                                + "\", router), it tags metrics and names threads): use letters, digits, '_' "
                                + "and '-'");
                return;
            }
            if (single && name.equals(clickHouse.getName())) {
                errors.rejectValue(
                        field,
                        INVALID,
                        prefix + " is named like the etl.sink.clickhouse.table sink (" + "etl.sink.clickhouse.name="
                                + clickHouse.getName() + "); sink names must be unique");
            }
            if ("dead-letter".equals(name)) {
                errors.rejectValue(field, INVALID, prefix + ": 'dead-letter' is the dead-letter sink's name");
            }
            if (!StringUtils.hasText(table.getTable())) {
                errors.rejectValue(
                        field + ".table",
                        INVALID,
                        prefix + ".table must be set: the shard-local table "
                                + "this sink writes (never a Distributed table)");
            }
            Integer maxRows = table.getBatch().getMaxRows();
            if (maxRows != null && maxRows < 1) {
                errors.rejectValue(
                        field + ".batch.maxRows", INVALID, prefix + ".batch.max-rows must be >= 1, got " + maxRows);
            }
            DataSize maxBytes = table.getBatch().getMaxBytes();
            if (maxBytes != null && maxBytes.toBytes() < 1) {
                errors.rejectValue(
                        field + ".batch.maxBytes", INVALID, prefix + ".batch.max-bytes must be >= 1B, got " + maxBytes);
            }
            if (table.getBatch().getLinger() != null
                    && table.getBatch().getLinger().isNegative()) {
                errors.rejectValue(
                        field + ".batch.linger",
                        INVALID,
                        prefix + ".batch.linger must be >= 0, got "
                                + table.getBatch().getLinger());
            }
            placement(
                    errors,
                    table.getPlacement(),
                    field + ".placement",
                    prefix + ".placement",
                    clickHouse.getShards().size());
            from(errors, table.getFrom(), field + ".from", prefix + ".from");
        });
    }

    /**
     * The checks of one {@code from} group: at most one reader schema, none for JSON, and nothing else set
     * without a topic (the topic is what turns the derived pipeline on).
     */
    static void from(Errors errors, ClickHouseTableSourceProperties from, String field, String prefix) {
        List<String> schemas = from.schemaSources();
        if (!from.isConfigured()) {
            boolean anything = !schemas.isEmpty()
                    || from.getExplode() != null
                    || from.getIndex() != null
                    || from.getShardKey() != null
                    || !from.getColumns().isEmpty()
                    || !from.getDropWhen().isEmpty()
                    || !from.getKeepWhen().isEmpty();
            if (anything) {
                errors.rejectValue(
                        field + ".topic",
                        INVALID,
                        prefix + ".topic must be set: it names the topic whose records are the table's rows, and "
                                + "the rest of " + prefix + ".* describes how they are read");
            }
            return;
        }
        if (schemas.size() > 1) {
            errors.rejectValue(
                    field + ".subject",
                    INVALID,
                    prefix + " names its Avro reader schema " + schemas.size() + " ways " + schemas
                            + ": set one of subject, schema and schema-class");
        }
        if (from.getFormat() == ClickHouseTableSourceProperties.Format.JSON && !schemas.isEmpty()) {
            errors.rejectValue(
                    field + ".format",
                    INVALID,
                    prefix + ".format=json reads fields by column name and takes no Avro reader schema, but " + schemas
                            + " is set");
        }
        if (from.getIndex() != null && from.getExplode() == null) {
            errors.rejectValue(
                    field + ".index",
                    INVALID,
                    prefix + ".index (" + from.getIndex() + ") numbers the elements of the exploded array: set "
                            + prefix + ".explode too");
        }
    }

    /**
     * The checks of one {@code placement} group: {@code field} is its path from the bound object,
     * {@code prefix} its property name; {@code shards} the shards listed in the properties (0: not
     * listed, e.g. from connection details).
     */
    static void placement(
            Errors errors, ClickHousePlacementProperties placement, String field, String prefix, int shards) {
        boolean configured = placement.isConfigured();
        if (!configured) {
            if (placement.getShardingKey() != null
                    || placement.getKeyType() != null
                    || !placement.getWeights().isEmpty()
                    || placement.getDatabase() != null) {
                errors.rejectValue(
                        field + ".distributedTable",
                        INVALID,
                        prefix + ".distributed-table must be set " + "when other " + prefix
                                + ".* properties are: it names the Distributed table to match");
            }
            return;
        }
        String expression = placement.getShardingKey();
        if (expression == null || expression.isBlank()) {
            errors.rejectValue(
                    field + ".shardingKey",
                    INVALID,
                    prefix + ".sharding-key must be set with "
                            + prefix + ".distributed-table: the sharding expression the router computes, e.g. "
                            + "cityHash64(order_id)");
        } else {
            String keyType = placement.getKeyType();
            try {
                // the column's type may come from the encoder later: any integer type checks the form
                ShardingKey.parse(expression, (column) -> (keyType != null) ? keyType : "UInt64");
            } catch (IllegalArgumentException ex) {
                errors.rejectValue(field + ".shardingKey", INVALID, prefix + ".sharding-key " + ex.getMessage());
            }
        }
        if (placement.getKeyType() != null) {
            try {
                KeyType.of(placement.getKeyType());
            } catch (IllegalArgumentException ex) {
                errors.rejectValue(field + ".keyType", INVALID, prefix + ".key-type: " + ex.getMessage());
            }
        }
        List<Integer> weights = placement.getWeights();
        if (!weights.isEmpty()) {
            if (weights.stream().anyMatch((w) -> w == null || w < 0)
                    || weights.stream().allMatch((w) -> w == null || w == 0)) {
                errors.rejectValue(
                        field + ".weights",
                        INVALID,
                        prefix + ".weights must be >= 0 each and not all 0, " + "got " + weights);
            } else if (shards > 0 && weights.size() != shards) {
                errors.rejectValue(
                        field + ".weights",
                        INVALID,
                        prefix + ".weights must list one weight per shard (" + shards + " shards), got " + weights);
            }
        }
        if (placement.getSampleSize() < 1) {
            errors.rejectValue(
                    field + ".sampleSize",
                    INVALID,
                    prefix + ".sample-size must be >= 1, got " + placement.getSampleSize());
        }
    }

    private static void atLeastOne(Errors errors, String field, String key, int value) {
        if (value < 1) {
            errors.rejectValue(field, INVALID, key + " must be >= 1, got " + value);
        }
    }
}
