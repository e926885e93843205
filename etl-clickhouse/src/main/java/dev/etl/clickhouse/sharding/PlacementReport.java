package dev.etl.clickhouse.sharding;

import java.util.List;

/**
 * The result of comparing the pipeline's shard placement with a Distributed table's on a sample of
 * keys, the server computing its side. Shard indices are 0-based (the sink's; the cluster's
 * {@code shard_num} is one more).
 *
 * @param table            the Distributed table ({@code db.name}), or a description for an expression
 * @param cluster          its cluster
 * @param expression       the server's sharding expression
 * @param keyColumn        the key column the sample was bound to
 * @param keyType          that column's ClickHouse type
 * @param pipeline         the pipeline's router or placement, as it describes itself
 * @param serverWeights    the cluster's shard weights from {@code system.clusters}, in shard order
 * @param pipelineShards   how many shards the pipeline routes over
 * @param checked          sample keys compared
 * @param mismatched       how many of them the pipeline places on another shard
 * @param mismatches       the first mismatching keys (at most {@link DistributedPlacementCheck#MAX_REPORTED_MISMATCHES})
 * @param problems         mismatches that are not about single keys (shard count, shard order, an
 *                         expression the server cannot evaluate); empty when there are none
 * @param shards           per shard (index = shard), how the sample keys fell on it; empty when no key
 *                         was compared
 */
public record PlacementReport(
        String table,
        String cluster,
        String expression,
        String keyColumn,
        String keyType,
        String pipeline,
        List<Integer> serverWeights,
        int pipelineShards,
        int checked,
        int mismatched,
        List<Mismatch> mismatches,
        List<String> problems,
        List<ShardSample> shards) {

    /** The {@link #cluster} and {@link #expression} of a report whose table could not be read. */
    public static final String UNKNOWN = "?";

    /**
     * How the sample keys fell on one shard.
     *
     * @param shard        the shard (0-based; {@code shard_num} is one more)
     * @param serverKeys   sample keys the Distributed table puts on this shard
     * @param agreeing     of those, the keys the pipeline puts on this shard too
     * @param pipelineKeys sample keys the pipeline puts on this shard
     */
    public record ShardSample(int shard, int serverKeys, int agreeing, int pipelineKeys) {
        /** Sample keys the Distributed table puts on this shard and the pipeline elsewhere. */
        public int disagreeing() {
            return serverKeys - agreeing;
        }
    }

    /**
     * One key placed differently.
     *
     * @param key            the key as the server saw it (a number, or a quoted string)
     * @param pipelineShard  the shard the pipeline's router picked
     * @param serverShard    the shard the Distributed table puts it on
     * @param serverSlot     the server's {@code expression % total weight}
     */
    public record Mismatch(String key, int pipelineShard, int serverShard, long serverSlot) {
        @Override
        public String toString() {
            return "key " + key + " -> pipeline shard " + pipelineShard + " (shard_num " + (pipelineShard + 1)
                    + "), server shard " + serverShard + " (shard_num " + (serverShard + 1) + ", slot " + serverSlot
                    + ")";
        }
    }

    public PlacementReport {
        serverWeights = List.copyOf(serverWeights);
        mismatches = List.copyOf(mismatches);
        problems = List.copyOf(problems);
        shards = List.copyOf(shards);
    }

    /** A report without per-shard counts. */
    public PlacementReport(
            String table,
            String cluster,
            String expression,
            String keyColumn,
            String keyType,
            String pipeline,
            List<Integer> serverWeights,
            int pipelineShards,
            int checked,
            int mismatched,
            List<Mismatch> mismatches,
            List<String> problems) {
        this(
                table,
                cluster,
                expression,
                keyColumn,
                keyType,
                pipeline,
                serverWeights,
                pipelineShards,
                checked,
                mismatched,
                mismatches,
                problems,
                List.of());
    }

    /**
     * Whether the server was asked at all: false when the Distributed table could not be read (no
     * replica answered, the table is missing, its key column is unknown); {@link #problems} says why.
     */
    public boolean verified() {
        return !UNKNOWN.equals(cluster);
    }

    /** Whether every sampled key lands on the same shard and nothing structural differs. */
    public boolean matches() {
        return mismatched == 0 && problems.isEmpty();
    }

    /** The same report with more structural problems (e.g. from the shard order check). */
    public PlacementReport withProblems(List<String> more) {
        if (more.isEmpty()) {
            return this;
        }
        List<String> all = new java.util.ArrayList<>(problems);
        all.addAll(more);
        return new PlacementReport(
                table,
                cluster,
                expression,
                keyColumn,
                keyType,
                pipeline,
                serverWeights,
                pipelineShards,
                checked,
                mismatched,
                mismatches,
                all,
                shards);
    }

    /** One paragraph for logs and exceptions: what was compared, and what differs. */
    public String message() {
        StringBuilder sb = new StringBuilder();
        sb.append("shard placement ")
                .append(matches() ? "matches" : "does not match")
                .append(" Distributed table ")
                .append(table)
                .append(" (cluster ")
                .append(cluster)
                .append(", sharding key ")
                .append(expression)
                .append(" over ")
                .append(keyColumn)
                .append(' ')
                .append(keyType)
                .append(", weights ")
                .append(serverWeights)
                .append("): pipeline ")
                .append(pipeline)
                .append(" over ")
                .append(pipelineShards)
                .append(" shards");
        if (checked > 0 || mismatched > 0) {
            sb.append("; ").append(mismatched).append(" of ").append(checked).append(" sample keys on another shard");
        }
        if (!mismatches.isEmpty()) {
            sb.append("; first: ");
            for (int i = 0; i < mismatches.size() && i < 3; i++) {
                sb.append(i == 0 ? "" : "; ").append(mismatches.get(i));
            }
        }
        for (String p : problems) {
            sb.append("; ").append(p);
        }
        if (!matches()) {
            sb.append(". Rows written to the shard-local tables would not be where ")
                    .append(table)
                    .append(" expects them (queries with distributed_group_by_no_merge or optimize_skip_unused_shards,"
                            + " and ReplacingMergeTree collapsing, go wrong); route with a DistributedRouter for ")
                    .append(expression)
                    .append(" or change the table's sharding key");
        }
        return sb.toString();
    }
}
