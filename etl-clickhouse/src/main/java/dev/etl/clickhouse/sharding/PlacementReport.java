package dev.etl.clickhouse.sharding;

import java.util.ArrayList;
import java.util.List;
import java.util.Objects;

/**
 * The result of comparing the pipeline's shard placement with a Distributed table's on a sample of
 * keys, the server computing its side. Shard indices are 0-based (the sink's; the cluster's
 * {@code shard_num} is one more).
 *
 * <p>The placement check builds it ({@link #builder()}); {@link #toBuilder()} makes a changed copy.
 */
public final class PlacementReport {

    /** The {@link #cluster()} and {@link #expression()} of a report whose table could not be read. */
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

    private final String table;
    private final String cluster;
    private final String expression;
    private final String keyColumn;
    private final String keyType;
    private final String pipeline;
    private final List<Integer> serverWeights;
    private final int pipelineShards;
    private final int checked;
    private final int mismatched;
    private final List<Mismatch> mismatches;
    private final List<String> problems;
    private final List<ShardSample> shards;

    /** The build step: copies the builder's lists. */
    private PlacementReport(Builder b) {
        this.table = b.table;
        this.cluster = b.cluster;
        this.expression = b.expression;
        this.keyColumn = b.keyColumn;
        this.keyType = b.keyType;
        this.pipeline = b.pipeline;
        this.serverWeights = List.copyOf(b.serverWeights);
        this.pipelineShards = b.pipelineShards;
        this.checked = b.checked;
        this.mismatched = b.mismatched;
        this.mismatches = List.copyOf(b.mismatches);
        this.problems = List.copyOf(b.problems);
        this.shards = List.copyOf(b.shards);
    }

    /** A builder of an empty report: no keys checked, no problems, no per-shard counts. */
    public static Builder builder() {
        return new Builder();
    }

    /** A builder holding this report, to build a changed copy. */
    public Builder toBuilder() {
        return new Builder()
                .table(table)
                .cluster(cluster)
                .expression(expression)
                .keyColumn(keyColumn)
                .keyType(keyType)
                .pipeline(pipeline)
                .serverWeights(serverWeights)
                .pipelineShards(pipelineShards)
                .checked(checked)
                .mismatched(mismatched)
                .mismatches(mismatches)
                .problems(problems)
                .shards(shards);
    }

    /** The Distributed table ({@code db.name}), or a description for an expression. */
    public String table() {
        return table;
    }

    /** Its cluster ({@link #UNKNOWN} when the table could not be read). */
    public String cluster() {
        return cluster;
    }

    /** The server's sharding expression ({@link #UNKNOWN} when the table could not be read). */
    public String expression() {
        return expression;
    }

    /** The key column the sample was bound to. */
    public String keyColumn() {
        return keyColumn;
    }

    /** That column's ClickHouse type. */
    public String keyType() {
        return keyType;
    }

    /** The pipeline's router or placement, as it describes itself. */
    public String pipeline() {
        return pipeline;
    }

    /** The cluster's shard weights from {@code system.clusters}, in shard order. */
    public List<Integer> serverWeights() {
        return serverWeights;
    }

    /** How many shards the pipeline routes over. */
    public int pipelineShards() {
        return pipelineShards;
    }

    /** Sample keys compared. */
    public int checked() {
        return checked;
    }

    /** How many of them the pipeline places on another shard. */
    public int mismatched() {
        return mismatched;
    }

    /** The first mismatching keys (at most {@link DistributedPlacementCheck#MAX_REPORTED_MISMATCHES}). */
    public List<Mismatch> mismatches() {
        return mismatches;
    }

    /**
     * Mismatches that are not about single keys (shard count, shard order, an expression the server cannot
     * evaluate); empty when there are none.
     */
    public List<String> problems() {
        return problems;
    }

    /** Per shard (index = shard), how the sample keys fell on it; empty when no key was compared. */
    public List<ShardSample> shards() {
        return shards;
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

    @Override
    public boolean equals(Object o) {
        return o instanceof PlacementReport r
                && Objects.equals(table, r.table)
                && Objects.equals(cluster, r.cluster)
                && Objects.equals(expression, r.expression)
                && Objects.equals(keyColumn, r.keyColumn)
                && Objects.equals(keyType, r.keyType)
                && Objects.equals(pipeline, r.pipeline)
                && serverWeights.equals(r.serverWeights)
                && pipelineShards == r.pipelineShards
                && checked == r.checked
                && mismatched == r.mismatched
                && mismatches.equals(r.mismatches)
                && problems.equals(r.problems)
                && shards.equals(r.shards);
    }

    @Override
    public int hashCode() {
        return Objects.hash(
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
                shards);
    }

    /** {@link #message()}. */
    @Override
    public String toString() {
        return message();
    }

    /** Builder of a {@link PlacementReport}; every list starts empty, every count at 0. */
    public static final class Builder {
        private String table;
        private String cluster;
        private String expression;
        private String keyColumn;
        private String keyType;
        private String pipeline;
        private List<Integer> serverWeights = List.of();
        private int pipelineShards;
        private int checked;
        private int mismatched;
        private List<Mismatch> mismatches = List.of();
        private final List<String> problems = new ArrayList<>();
        private List<ShardSample> shards = List.of();

        private Builder() {}

        /** See {@link PlacementReport#table()}. */
        public Builder table(String table) {
            this.table = table;
            return this;
        }

        /** See {@link PlacementReport#cluster()}. */
        public Builder cluster(String cluster) {
            this.cluster = cluster;
            return this;
        }

        /** See {@link PlacementReport#expression()}. */
        public Builder expression(String expression) {
            this.expression = expression;
            return this;
        }

        /** See {@link PlacementReport#keyColumn()}. */
        public Builder keyColumn(String keyColumn) {
            this.keyColumn = keyColumn;
            return this;
        }

        /** See {@link PlacementReport#keyType()}. */
        public Builder keyType(String keyType) {
            this.keyType = keyType;
            return this;
        }

        /** See {@link PlacementReport#pipeline()}. */
        public Builder pipeline(String pipeline) {
            this.pipeline = pipeline;
            return this;
        }

        /** See {@link PlacementReport#serverWeights()}. */
        public Builder serverWeights(List<Integer> serverWeights) {
            this.serverWeights = serverWeights;
            return this;
        }

        /** See {@link PlacementReport#pipelineShards()}. */
        public Builder pipelineShards(int pipelineShards) {
            this.pipelineShards = pipelineShards;
            return this;
        }

        /** See {@link PlacementReport#checked()}. */
        public Builder checked(int checked) {
            this.checked = checked;
            return this;
        }

        /** See {@link PlacementReport#mismatched()}. */
        public Builder mismatched(int mismatched) {
            this.mismatched = mismatched;
            return this;
        }

        /** See {@link PlacementReport#mismatches()}. */
        public Builder mismatches(List<Mismatch> mismatches) {
            this.mismatches = mismatches;
            return this;
        }

        /** Replaces the problems given before (see {@link PlacementReport#problems()}). */
        public Builder problems(List<String> problems) {
            this.problems.clear();
            this.problems.addAll(problems);
            return this;
        }

        /** Adds structural problems after those given before (e.g. from the shard order check). */
        public Builder addProblems(List<String> more) {
            this.problems.addAll(more);
            return this;
        }

        /** See {@link PlacementReport#shards()}. */
        public Builder shards(List<ShardSample> shards) {
            this.shards = shards;
            return this;
        }

        /** The report. */
        public PlacementReport build() {
            return new PlacementReport(this);
        }
    }
}
