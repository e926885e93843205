package dev.etl.clickhouse.sharding;

import dev.etl.clickhouse.ClickHouseRequestException;
import dev.etl.clickhouse.ClickHouseSinkConfig;
import dev.etl.clickhouse.ClickHouseTransport;
import java.net.URI;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The startup placement check of a ClickHouse sink: the pipeline's {@link DistributedPlacement} (the
 * one its {@link DistributedRouter} applies) against the Distributed table {@code database.table}
 * that fronts the sink's shard-local tables. Set it with
 * {@link ClickHouseSinkConfig.Builder#placementCheck}; the sink then runs it once, before the first
 * shard's schema validation, and a {@link PlacementCheckMode#FAIL FAIL} mismatch fails startup with a
 * {@link ShardPlacementException}. {@link #evaluate} (no enforcement) is what an operator endpoint
 * calls.
 *
 * <p>What it compares: {@code sampleSize} seeded keys placed by the pipeline and by the server
 * ({@link DistributedPlacementCheck}); the sink's shard count and order against the cluster's
 * ({@code system.clusters}); and that the Distributed table fronts the sink's table.
 *
 * @param database   database of the Distributed table
 * @param table      the Distributed table
 * @param placement  the pipeline's placement (its router's)
 * @param mode       what a mismatch does
 * @param sampleSize keys to compare (1,000 by default: two queries per 500 keys)
 * @param seed       seed of the generated keys
 */
public record PlacementCheck(
        String database,
        String table,
        DistributedPlacement placement,
        PlacementCheckMode mode,
        int sampleSize,
        long seed) {
    /** Default number of sample keys. */
    public static final int DEFAULT_SAMPLE_SIZE = 1000;
    /** Default seed of the sample keys. */
    public static final long DEFAULT_SEED = 0x5EED_CAFEL;

    private static final Logger log = LoggerFactory.getLogger(PlacementCheck.class);

    public PlacementCheck {
        Objects.requireNonNull(database, "database");
        Objects.requireNonNull(table, "table");
        Objects.requireNonNull(placement, "placement");
        Objects.requireNonNull(mode, "mode");
        if (sampleSize < 1) {
            throw new IllegalArgumentException("placement check sample size must be >= 1, got " + sampleSize);
        }
    }

    /** A check of {@link #DEFAULT_SAMPLE_SIZE} keys with the default seed. */
    public static PlacementCheck of(
            String database, String table, DistributedPlacement placement, PlacementCheckMode mode) {
        return new PlacementCheck(database, table, placement, mode, DEFAULT_SAMPLE_SIZE, DEFAULT_SEED);
    }

    /** {@code database.table}. */
    public String qualifiedTable() {
        return database + "." + table;
    }

    /**
     * Runs the check and applies the mode ({@link DistributedPlacementCheck#enforce}).
     *
     * @return the report, or null when the mode is OFF (nothing is queried)
     * @throws ShardPlacementException when the mode is FAIL and the placement does not match, or no
     *                                 replica could be asked
     */
    public @Nullable PlacementReport run(ClickHouseTransport transport, ClickHouseSinkConfig sink) {
        if (mode == PlacementCheckMode.OFF) {
            return null;
        }
        return DistributedPlacementCheck.enforce(evaluate(transport, sink), mode);
    }

    /**
     * Runs the check on the first replica of the sink's (in shard order) that answers, without
     * applying the mode. Never throws for a mismatch; a report whose problems say so when no replica
     * answered or the table cannot be read.
     */
    public PlacementReport evaluate(ClickHouseTransport transport, ClickHouseSinkConfig sink) {
        List<String> failures = new ArrayList<>();
        for (List<URI> replicas : sink.shards()) {
            for (URI uri : replicas) {
                try {
                    DistributedTable distributed = DistributedTable.read(transport, uri, database, table);
                    PlacementReport report = new DistributedPlacementCheck(transport, uri)
                            .check(distributed, placement, sampleSize, seed);
                    List<String> more = new ArrayList<>(DistributedPlacementCheck.shardOrderProblems(
                            transport, sink.shards(), distributed.cluster()));
                    if (!fronts(distributed, sink)) {
                        more.add(qualifiedTable() + " fronts " + distributed.localDatabase() + "."
                                + distributed.localTable() + ", not the sink's table " + sink.qualifiedTable());
                    }
                    return report.toBuilder().addProblems(more).build();
                } catch (ClickHouseRequestException e) {
                    if (e.kind() == ClickHouseRequestException.Kind.HTTP) {
                        return unverified(
                                sink, "reading " + qualifiedTable() + " on " + uri + " failed: " + e.serverText());
                    }
                    log.info("placement check: replica {} did not answer: {}", uri, e.serverText());
                    failures.add(uri + " (" + e.serverText() + ")");
                } catch (IllegalArgumentException e) {
                    return unverified(sink, e.getMessage());
                }
            }
        }
        return unverified(sink, "no replica of the sink answered: " + failures);
    }

    private static boolean fronts(DistributedTable distributed, ClickHouseSinkConfig sink) {
        boolean plainDatabase = distributed.localDatabase().matches("[A-Za-z0-9_]+");
        return !plainDatabase
                || (distributed.localDatabase().equals(sink.database())
                        && distributed.localTable().equals(sink.table()));
    }

    private PlacementReport unverified(ClickHouseSinkConfig sink, String problem) {
        return PlacementReport.builder()
                .table(qualifiedTable())
                .cluster(PlacementReport.UNKNOWN)
                .expression(PlacementReport.UNKNOWN)
                .keyColumn(placement.key().column())
                .keyType(placement.key().type().toString())
                .pipeline(placement.toString())
                .pipelineShards(sink.shards().size())
                .problems(List.of("placement could not be checked: " + problem))
                .build();
    }
}
