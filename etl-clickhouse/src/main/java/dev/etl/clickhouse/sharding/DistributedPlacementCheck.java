package dev.etl.clickhouse.sharding;

import dev.etl.clickhouse.ClickHouseRequestException;
import dev.etl.clickhouse.ClickHouseTransport;
import dev.etl.record.KeyHash;
import dev.etl.record.RecordMeta;
import dev.etl.sink.Router;
import java.net.URI;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.function.Function;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Compares the pipeline's shard placement with a Distributed table's on a sample of keys, the
 * server computing its side: each key is bound to the table's key column (with the column's type),
 * the server evaluates the table's own sharding expression over it and its unsigned remainder by the
 * cluster's total weight ({@code system.clusters}), and the slot is mapped to a shard through the
 * cluster's weights. The pipeline's side is its router (or {@link DistributedPlacement}) on the same
 * key. Nothing is written.
 *
 * <p>Typical use, at startup (see {@link PlacementCheck} for the hook the sink runs):
 * <pre>{@code
 * DistributedPlacementCheck check = new DistributedPlacementCheck(transport, URI.create("http://ch-1a:8123"));
 * DistributedTable table = DistributedTable.read(transport, replica, "shop", "orders");
 * PlacementReport report = check.check(table, router.placement(), 1000, 42L);
 * DistributedPlacementCheck.enforce(report, PlacementCheckMode.FAIL);   // throws ShardPlacementException
 * }</pre>
 *
 * <p>Blocking (a few queries per 500 keys); thread-safe. An expression the server cannot evaluate over
 * the key column alone (it uses other columns, or does not give an integer) is reported as a problem,
 * not thrown; a request that fails for another reason throws {@link ClickHouseRequestException}.
 */
public final class DistributedPlacementCheck {
    /** How many mismatching keys a report lists. */
    public static final int MAX_REPORTED_MISMATCHES = 10;

    private static final Logger log = LoggerFactory.getLogger(DistributedPlacementCheck.class);

    private final ClickHouseTransport transport;
    private final URI replica;

    /** A check that asks {@code replica} (any server that has the Distributed table and the cluster). */
    public DistributedPlacementCheck(ClickHouseTransport transport, URI replica) {
        this.transport = Objects.requireNonNull(transport, "transport");
        this.replica = Objects.requireNonNull(replica, "replica");
    }

    /**
     * Compares {@code placement} with {@code table} on {@code sampleSize} keys generated over the key
     * column's type as the table declares it, seeded by {@code seed}: the type's edges, small ids and
     * random values; for Strings the empty string and ASCII to 4-byte UTF-8 of every length class
     * CityHash distinguishes. Also reports a pipeline expression of another function or column than
     * the table's, and a String key where the column is an integer (or the reverse).
     *
     * @throws IllegalArgumentException   when the table has no such key column, or its type is not a
     *                                    {@link KeyType} (Enum columns need {@link #check(DistributedTable,
     *                                    String, Router, int, List, Function) a sample} of valid codes)
     * @throws ClickHouseRequestException when a query fails other than by the server refusing the
     *                                    expression (which is reported as a problem)
     */
    public PlacementReport check(DistributedTable table, DistributedPlacement placement, int sampleSize, long seed)
            throws ClickHouseRequestException {
        ShardingKey key = placement.key();
        List<String> problems = new ArrayList<>();
        ShardingKey serverKey = supportedKeyOrNull(table);
        if (serverKey != null
                && (serverKey.function() != key.function()
                        || !serverKey.column().equals(key.column()))) {
            problems.add("the pipeline computes " + key + " but the table's key is " + serverKey);
        }
        // keys over the column's real domain: a pipeline that declares a narrower type shows up
        KeyType columnType = KeyType.of(columnType(table, key.column()));
        List<?> keys;
        if (columnType.isInteger() != key.type().isInteger()) {
            problems.add(
                    "the pipeline hashes " + key.column() + " as " + key.type() + " but the column is " + columnType);
            keys = List.of();
        } else {
            keys = columnType.isInteger()
                    ? KeySample.integers(columnType, sampleSize, seed)
                    : KeySample.strings(sampleSize, seed);
        }
        int[] shards = new int[keys.size()];
        for (int i = 0; i < shards.length; i++) {
            shards[i] = keys.get(i) instanceof Long l ? placement.shardOf(l) : placement.shardOf((String) keys.get(i));
        }
        return compare(table, key.column(), placement.toString(), placement.shardCount(), keys, shards, problems);
    }

    /**
     * Compares any router with {@code table} on sample values: the pipeline's shard is
     * {@code router.shard(value, meta, shardCount)}, the server's comes from {@code keyOf(value)} (a
     * {@link Number} for an integer column, a {@link CharSequence} or {@code byte[]} for a String
     * column) bound to {@code keyColumn}. The {@link RecordMeta} passed to the router carries the key
     * as the source key (its bytes, or UTF-8 for text; absent for numbers) and its
     * {@link KeyHash}, so routers on the record key can be checked too.
     *
     * @param keyColumn the column the sample keys are for; null to take it from the table's sharding
     *                  expression (which must then be a {@link ShardingKey} form)
     * @throws IllegalArgumentException   when the table has no such key column, its type is not a
     *                                    {@link KeyType}, or a key is not of the column's kind
     * @throws ClickHouseRequestException when a query fails other than by the server refusing the
     *                                    expression (which is reported as a problem)
     */
    public <T> PlacementReport check(
            DistributedTable table,
            @Nullable String keyColumn,
            Router<? super T> router,
            int shardCount,
            List<? extends T> sample,
            Function<? super T, ?> keyOf)
            throws ClickHouseRequestException {
        String column = keyColumn != null ? keyColumn : table.shardingKey().column();
        SampleMeta meta = new SampleMeta();
        List<Object> keys = new ArrayList<>(sample.size());
        int[] shards = new int[sample.size()];
        for (T value : sample) {
            Object key = keyOf.apply(value);
            meta.use(key);
            shards[keys.size()] = router.shard(value, meta, shardCount);
            keys.add(key);
        }
        return compare(table, column, describe(router), shardCount, keys, shards, new ArrayList<>());
    }

    /**
     * Applies {@code mode} to a report: FAIL throws {@link ShardPlacementException} when it does not
     * match, WARN logs it at WARN, OFF does nothing. A matching report is logged at INFO (except OFF).
     *
     * @return {@code report}
     */
    public static PlacementReport enforce(PlacementReport report, PlacementCheckMode mode) {
        if (mode == PlacementCheckMode.OFF) {
            return report;
        }
        if (report.matches()) {
            log.info("{}", report.message());
        } else if (mode == PlacementCheckMode.FAIL) {
            throw new ShardPlacementException(report);
        } else {
            log.warn("{}", report.message());
        }
        return report;
    }

    /**
     * Checks that the sink's shard {@code i} is the cluster's {@code shard_num i + 1}: asks a replica
     * of each sink shard which shard of {@code cluster} is local to it ({@code system.clusters.is_local}).
     * Returns one problem per shard that says it is another shard; shards whose replicas cannot tell
     * (no or several local shards, unreachable) are logged and skipped.
     */
    public static List<String> shardOrderProblems(
            ClickHouseTransport transport, List<List<URI>> sinkShards, String cluster) {
        List<String> problems = new ArrayList<>();
        for (int i = 0; i < sinkShards.size(); i++) {
            String answer = null;
            URI asked = null;
            for (URI uri : sinkShards.get(i)) {
                try {
                    answer = transport
                            .query(
                                    uri,
                                    "SELECT DISTINCT shard_num FROM system.clusters WHERE cluster = "
                                            + Sql.literal(cluster) + " AND is_local = 1 FORMAT TabSeparated")
                            .strip();
                    asked = uri;
                    break;
                } catch (ClickHouseRequestException e) {
                    log.info("shard order check: sink shard {} replica {} did not answer: {}", i, uri, e.serverText());
                }
            }
            if (answer == null || answer.isEmpty() || answer.contains("\n")) {
                log.info(
                        "shard order check: sink shard {} cannot tell which shard of cluster {} it is ({})",
                        i,
                        cluster,
                        answer == null ? "no replica answered" : "local shards: [" + answer.replace('\n', ',') + "]");
                continue;
            }
            int shardNum = Integer.parseInt(answer);
            if (shardNum != i + 1) {
                problems.add("sink shard " + i + " (replica " + asked + ") is shard_num " + shardNum + " of cluster "
                        + cluster + ", so it must be sink shard " + (shardNum - 1) + ": list the sink's shards in the "
                        + "cluster's order");
            }
        }
        return problems;
    }

    /** {@code pipelineShard[i]}: the pipeline's shard for {@code keys.get(i)}. */
    private PlacementReport compare(
            DistributedTable table,
            String column,
            String pipeline,
            int pipelineShards,
            List<?> keys,
            int[] pipelineShard,
            List<String> problems)
            throws ClickHouseRequestException {
        String columnType = columnType(table, column);
        KeyType keyType = KeyType.of(columnType);
        String expression = table.shardingExpression() == null ? "(none)" : table.shardingExpression();
        ShardWeights weights = ShardWeights.read(transport, replica, table.cluster());
        if (weights.count() != pipelineShards) {
            problems.add("the pipeline routes over " + pipelineShards + " shards but cluster " + table.cluster()
                    + " has " + weights.count());
        }
        List<PlacementReport.Mismatch> mismatches = new ArrayList<>();
        int mismatched = 0;
        int checked = 0;
        int shardCount = Math.max(weights.count(), pipelineShards);
        int[] serverKeys = new int[shardCount];
        int[] agreeing = new int[shardCount];
        int[] pipelineKeys = new int[shardCount];
        String unsignedCast = table.shardingExpression() == null || keys.isEmpty()
                ? null
                : unsignedCast(table, column, columnType, keyType, keys.get(0), problems);
        for (int from = 0, to; unsignedCast != null && from < keys.size(); from = to) {
            to = PlacementKeySql.batchEnd(keys, from, columnType, keyType);
            List<?> batch = keys.subList(from, to);
            String sql = PlacementKeySql.bound(
                    column, columnType, keyType, batch, unsignedCast + "(" + expression + ") % " + weights.total());
            long[] slots = new long[batch.size()];
            for (String line : transport.query(replica, sql).split("\n")) {
                if (!line.isEmpty()) {
                    String[] f = line.split("\t");
                    slots[Integer.parseInt(f[0]) - 1] = Long.parseUnsignedLong(f[1]);
                }
            }
            for (int i = 0; i < batch.size(); i++) {
                int mine = pipelineShard[from + i];
                int theirs = weights.shardOfSlot(slots[i]);
                checked++;
                serverKeys[theirs]++;
                if (mine >= 0 && mine < shardCount) {
                    pipelineKeys[mine]++;
                }
                if (mine == theirs) {
                    agreeing[theirs]++;
                } else {
                    mismatched++;
                    if (mismatches.size() < MAX_REPORTED_MISMATCHES) {
                        mismatches.add(new PlacementReport.Mismatch(
                                PlacementKeySql.display(batch.get(i), keyType), mine, theirs, slots[i]));
                    }
                }
            }
        }
        if (table.shardingExpression() == null) {
            problems.add("the table has no sharding key: Distributed cannot insert into it over several shards, so "
                    + "no placement is defined");
        }
        List<PlacementReport.ShardSample> perShard = new ArrayList<>(shardCount);
        for (int s = 0; checked > 0 && s < shardCount; s++) {
            perShard.add(new PlacementReport.ShardSample(s, serverKeys[s], agreeing[s], pipelineKeys[s]));
        }
        return PlacementReport.builder()
                .table(table.qualifiedName())
                .cluster(table.cluster())
                .expression(expression)
                .keyColumn(column)
                .keyType(columnType)
                .pipeline(pipeline)
                .serverWeights(toList(weights))
                .pipelineShards(pipelineShards)
                .checked(checked)
                .mismatched(mismatched)
                .mismatches(mismatches)
                .problems(problems)
                .shards(perShard)
                .build();
    }

    private static String columnType(DistributedTable table, String column) {
        String type = table.columnTypes().get(column);
        if (type == null) {
            throw new IllegalArgumentException("Distributed table " + table.qualifiedName() + " has no column '"
                    + column + "' (columns: " + table.columnTypes().keySet() + ")");
        }
        return type;
    }

    /**
     * The unsigned cast Distributed applies to the expression's type (toUInt32 for Int32, …), or null
     * with a problem added when the server cannot evaluate it or it is not an integer.
     */
    private String unsignedCast(
            DistributedTable table,
            String column,
            String columnType,
            KeyType keyType,
            Object key,
            List<String> problems)
            throws ClickHouseRequestException {
        String type;
        try {
            type = transport
                    .query(
                            replica,
                            PlacementKeySql.bound(
                                    column,
                                    columnType,
                                    keyType,
                                    List.of(key),
                                    "toTypeName(" + table.shardingExpression() + ")"))
                    .strip()
                    .split("\t")[1];
        } catch (ClickHouseRequestException e) {
            if (e.kind() != ClickHouseRequestException.Kind.HTTP) {
                throw e;
            }
            problems.add("the server cannot evaluate " + table.shardingExpression() + " over column " + column
                    + " alone: " + e.serverText());
            return null;
        }
        String cast = switch (type) {
            case "UInt8", "Int8" -> "toUInt8";
            case "UInt16", "Int16" -> "toUInt16";
            case "UInt32", "Int32" -> "toUInt32";
            case "UInt64", "Int64" -> "toUInt64";
            default -> null;
        };
        if (cast == null) {
            problems.add("the sharding expression " + table.shardingExpression() + " is of type " + type
                    + "; Distributed needs an integer");
        }
        return cast;
    }

    /** The router's own description, or its class's simple name when it has only Object's. */
    static String describe(Router<?> router) {
        String text = router.toString();
        boolean objectDefault = text.equals(router.getClass().getName() + "@" + Integer.toHexString(router.hashCode()));
        return objectDefault ? router.getClass().getSimpleName() : text;
    }

    private static ShardingKey supportedKeyOrNull(DistributedTable table) {
        try {
            return table.shardingExpression() == null ? null : table.shardingKey();
        } catch (IllegalArgumentException e) {
            return null; // an expression we do not reproduce: the per-key comparison still decides
        }
    }

    private static List<Integer> toList(ShardWeights weights) {
        List<Integer> list = new ArrayList<>(weights.count());
        for (int w : weights.weights()) {
            list.add(w);
        }
        return list;
    }
}
