package dev.etl.clickhouse.sharding;

import java.util.ArrayList;
import java.util.List;
import org.jspecify.annotations.Nullable;

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

    /** The report's values: a record for its equals and hashCode; its constructor copies the lists. */
    private record Values(
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
        Values {
            serverWeights = List.copyOf(serverWeights);
            mismatches = List.copyOf(mismatches);
            problems = List.copyOf(problems);
            shards = List.copyOf(shards);
        }
    }

    private final Values v;

    private PlacementReport(Values v) {
        this.v = v;
    }

    /** A builder of an empty report: no keys checked, no problems, no per-shard counts. */
    public static Builder builder() {
        return new Builder();
    }

    /** A builder holding this report, to build a changed copy. */
    public Builder toBuilder() {
        return new Builder()
                .table(v.table())
                .cluster(v.cluster())
                .expression(v.expression())
                .keyColumn(v.keyColumn())
                .keyType(v.keyType())
                .pipeline(v.pipeline())
                .serverWeights(v.serverWeights())
                .pipelineShards(v.pipelineShards())
                .checked(v.checked())
                .mismatched(v.mismatched())
                .mismatches(v.mismatches())
                .problems(v.problems())
                .shards(v.shards());
    }

    /** The Distributed table ({@code db.name}), or a description for an expression. */
    public String table() {
        return v.table();
    }

    /** Its cluster ({@link #UNKNOWN} when the table could not be read). */
    public String cluster() {
        return v.cluster();
    }

    /** The server's sharding expression ({@link #UNKNOWN} when the table could not be read). */
    public String expression() {
        return v.expression();
    }

    /** The key column the sample was bound to. */
    public String keyColumn() {
        return v.keyColumn();
    }

    /** That column's ClickHouse type. */
    public String keyType() {
        return v.keyType();
    }

    /** The pipeline's router or placement, as it describes itself. */
    public String pipeline() {
        return v.pipeline();
    }

    /** The cluster's shard weights from {@code system.clusters}, in shard order. */
    public List<Integer> serverWeights() {
        return v.serverWeights();
    }

    /** How many shards the pipeline routes over. */
    public int pipelineShards() {
        return v.pipelineShards();
    }

    /** Sample keys compared. */
    public int checked() {
        return v.checked();
    }

    /** How many of them the pipeline places on another shard. */
    public int mismatched() {
        return v.mismatched();
    }

    /** The first mismatching keys (at most {@link DistributedPlacementCheck#MAX_REPORTED_MISMATCHES}). */
    public List<Mismatch> mismatches() {
        return v.mismatches();
    }

    /**
     * Mismatches that are not about single keys (shard count, shard order, an expression the server cannot
     * evaluate); empty when there are none.
     */
    public List<String> problems() {
        return v.problems();
    }

    /** Per shard (index = shard), how the sample keys fell on it; empty when no key was compared. */
    public List<ShardSample> shards() {
        return v.shards();
    }

    /**
     * Whether the server was asked at all: false when the Distributed table could not be read (no
     * replica answered, the table is missing, its key column is unknown); {@link #problems} says why.
     */
    public boolean verified() {
        return !UNKNOWN.equals(v.cluster());
    }

    /** Whether every sampled key lands on the same shard and nothing structural differs. */
    public boolean matches() {
        return v.mismatched() == 0 && v.problems().isEmpty();
    }

    /** One paragraph for logs and exceptions: what was compared, and what differs. */
    public String message() {
        StringBuilder sb = new StringBuilder();
        sb.append("shard placement ")
                .append(matches() ? "matches" : "does not match")
                .append(" Distributed table ")
                .append(v.table())
                .append(" (cluster ")
                .append(v.cluster())
                .append(", sharding key ")
                .append(v.expression())
                .append(" over ")
                .append(v.keyColumn())
                .append(' ')
                .append(v.keyType())
                .append(", weights ")
                .append(v.serverWeights())
                .append("): pipeline ")
                .append(v.pipeline())
                .append(" over ")
                .append(v.pipelineShards())
                .append(" shards");
        if (v.checked() > 0 || v.mismatched() > 0) {
            sb.append("; ")
                    .append(v.mismatched())
                    .append(" of ")
                    .append(v.checked())
                    .append(" sample keys on another shard");
        }
        if (!v.mismatches().isEmpty()) {
            sb.append("; first: ");
            for (int i = 0; i < v.mismatches().size() && i < 3; i++) {
                sb.append(i == 0 ? "" : "; ").append(v.mismatches().get(i));
            }
        }
        for (String p : v.problems()) {
            sb.append("; ").append(p);
        }
        if (!matches()) {
            sb.append(". Rows written to the shard-local tables would not be where ")
                    .append(v.table())
                    .append(" expects them (queries with distributed_group_by_no_merge or optimize_skip_unused_shards,"
                            + " and ReplacingMergeTree collapsing, go wrong); route with a DistributedRouter for ")
                    .append(v.expression())
                    .append(" or change the table's sharding key");
        }
        return sb.toString();
    }

    @Override
    public boolean equals(@Nullable Object o) {
        return o instanceof PlacementReport r && v.equals(r.v);
    }

    @Override
    public int hashCode() {
        return v.hashCode();
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
            return new PlacementReport(new Values(
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
                    shards));
        }
    }
}
