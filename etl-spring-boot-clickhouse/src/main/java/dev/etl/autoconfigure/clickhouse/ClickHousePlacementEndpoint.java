package dev.etl.autoconfigure.clickhouse;

import dev.etl.clickhouse.ClickHouseSinkConfig;
import dev.etl.clickhouse.ClickHouseTransport;
import dev.etl.clickhouse.sharding.PlacementCheck;
import dev.etl.clickhouse.sharding.PlacementReport;
import dev.etl.error.Secrets;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Function;
import org.jspecify.annotations.Nullable;
import org.springframework.boot.actuate.endpoint.annotation.Endpoint;
import org.springframework.boot.actuate.endpoint.annotation.ReadOperation;
import org.springframework.boot.actuate.endpoint.annotation.Selector;

/**
 * The {@code etlplacement} Actuator endpoint: runs the shard-placement check of every ClickHouse sink
 * that has one ({@code etl.sink.clickhouse.placement.*}) on demand, against the server, and returns the
 * result: per shard how many sample keys the pipeline and the Distributed table agree on, the server's
 * sharding expression, the first disagreeing keys, and a verdict. {@code GET /actuator/etlplacement}
 * checks every sink; {@code GET /actuator/etlplacement/{sink}} one (404 when it has no check).
 *
 * <p>Each call is a few blocking read queries per sink (two per 500 sample keys, bounded by the sink's
 * socket timeout) on the first replica that answers; nothing is written, and the mode (FAIL, WARN, OFF)
 * is not applied: the endpoint reports, it never stops the pipeline. The queries go through one
 * {@link PlacementQueries} per sink, kept for the endpoint's lifetime: {@code readonly=1} on every query
 * (they evaluate the server's own sharding expression), answers of at most 1 MiB. Credentials are sent as
 * the sink's own reads send them and appear nowhere in the result; its problems and message (which
 * may quote the server's error texts) are {@linkplain Secrets#mask masked}.
 */
@Endpoint(id = "etlplacement")
public class ClickHousePlacementEndpoint implements AutoCloseable {

    private final ClickHouseSinkConfigs sinks;

    private final Function<ClickHouseSinkConfig, ClickHouseTransport> transports;

    private final Map<ClickHouseSinkConfig, ClickHouseTransport> open = new ConcurrentHashMap<>();

    ClickHousePlacementEndpoint(ClickHouseSinkConfigs sinks) {
        this(sinks, PlacementQueries::new);
    }

    ClickHousePlacementEndpoint(
            ClickHouseSinkConfigs sinks, Function<ClickHouseSinkConfig, ClickHouseTransport> transports) {
        this.sinks = sinks;
        this.transports = transports;
    }

    /**
     * Checks every sink that has a placement check.
     * @return the result per sink name
     */
    @ReadOperation
    public Placements placements() {
        Map<String, SinkPlacement> results = new LinkedHashMap<>();
        this.sinks.withPlacementCheck().forEach((name, config) -> results.put(name, check(config)));
        return new Placements(results);
    }

    /**
     * Checks one sink.
     * @param sink the sink's name
     * @return the result, or null (404) when the sink has no placement check
     */
    @ReadOperation
    public @Nullable SinkPlacement placement(@Selector String sink) {
        ClickHouseSinkConfig config = this.sinks.withPlacementCheck().get(sink);
        return (config != null) ? check(config) : null;
    }

    private SinkPlacement check(ClickHouseSinkConfig config) {
        PlacementCheck check = config.placementCheck();
        PlacementReport report;
        try {
            report = check.evaluate(this.open.computeIfAbsent(config, this.transports), config);
        } catch (RuntimeException ex) {
            // evaluate() reports what it expects; anything else is still an answer, not a 500
            return SinkPlacement.unverified(config, "placement could not be checked: " + ex);
        }
        return SinkPlacement.of(config, report);
    }

    /** Closes the sinks' transports (when the application context closes). */
    @Override
    public void close() {
        this.open.values().forEach(ClickHouseTransport::close);
        this.open.clear();
    }

    /** What a check concluded. */
    public enum Verdict {

        /** Every sample key is on the same shard, and shard count, order and table agree. */
        MATCH,

        /** Some keys land elsewhere, or the structure differs (see problems). */
        MISMATCH,

        /** The server could not be asked (no replica answered, the table is missing). */
        UNVERIFIED
    }

    /**
     * The results of all sinks.
     * @param sinks by sink name
     */
    public record Placements(Map<String, SinkPlacement> sinks) {}

    /**
     * One sink's check.
     * @param table the sink's shard-local table
     * @param distributedTable the Distributed table compared with
     * @param mode what the check does at startup (FAIL, WARN, OFF)
     * @param verdict what this run concluded
     * @param cluster the Distributed table's cluster
     * @param expression the server's sharding expression
     * @param keyColumn the sharding key's column
     * @param keyType its ClickHouse type
     * @param pipeline the pipeline's placement, as it describes itself
     * @param serverWeights the cluster's shard weights
     * @param checked sample keys compared
     * @param mismatched of those, placed on another shard by the pipeline
     * @param shards per shard, how the sample fell
     * @param mismatches the first keys placed differently
     * @param problems what differs beyond single keys (shard count, order, the table fronted)
     * @param message the report as the startup check logs it
     */
    public record SinkPlacement(
            String table,
            String distributedTable,
            String mode,
            Verdict verdict,
            String cluster,
            String expression,
            String keyColumn,
            String keyType,
            String pipeline,
            List<Integer> serverWeights,
            int checked,
            int mismatched,
            List<ShardPlacement> shards,
            List<KeyMismatch> mismatches,
            List<String> problems,
            String message) {

        static SinkPlacement of(ClickHouseSinkConfig config, PlacementReport report) {
            PlacementCheck check = config.placementCheck();
            Verdict verdict =
                    report.matches() ? Verdict.MATCH : (report.verified() ? Verdict.MISMATCH : Verdict.UNVERIFIED);
            List<ShardPlacement> shards = new ArrayList<>();
            for (PlacementReport.ShardSample sample : report.shards()) {
                List<String> keys = new ArrayList<>();
                for (PlacementReport.Mismatch m : report.mismatches()) {
                    if (m.serverShard() == sample.shard()) {
                        keys.add(m.key());
                    }
                }
                shards.add(new ShardPlacement(
                        sample.shard(),
                        sample.shard() + 1,
                        sample.serverKeys(),
                        sample.agreeing(),
                        sample.disagreeing(),
                        sample.pipelineKeys(),
                        keys));
            }
            List<KeyMismatch> mismatches = report.mismatches().stream()
                    .map((m) -> new KeyMismatch(m.key(), m.pipelineShard(), m.serverShard(), m.serverSlot()))
                    .toList();
            return new SinkPlacement(
                    config.qualifiedTable(),
                    check.qualifiedTable(),
                    check.mode().name(),
                    verdict,
                    report.cluster(),
                    report.expression(),
                    report.keyColumn(),
                    report.keyType(),
                    report.pipeline(),
                    report.serverWeights(),
                    report.checked(),
                    report.mismatched(),
                    shards,
                    mismatches,
                    report.problems().stream().map(Secrets::mask).toList(),
                    Secrets.mask(report.message()));
        }

        static SinkPlacement unverified(ClickHouseSinkConfig config, String text) {
            PlacementCheck check = config.placementCheck();
            String problem = Secrets.mask(text);
            return new SinkPlacement(
                    config.qualifiedTable(),
                    check.qualifiedTable(),
                    check.mode().name(),
                    Verdict.UNVERIFIED,
                    PlacementReport.UNKNOWN,
                    PlacementReport.UNKNOWN,
                    check.placement().key().column(),
                    check.placement().key().type().toString(),
                    check.placement().toString(),
                    List.of(),
                    0,
                    0,
                    List.of(),
                    List.of(),
                    List.of(problem),
                    problem);
        }
    }

    /**
     * How the sample keys fell on one shard.
     * @param shard the shard (0-based, the sink's index)
     * @param shardNum the cluster's shard_num
     * @param serverKeys sample keys the Distributed table puts here
     * @param agreeing of those, the keys the pipeline puts here too
     * @param disagreeing of those, the keys the pipeline puts elsewhere
     * @param pipelineKeys sample keys the pipeline puts here
     * @param disagreeingKeys the first disagreeing keys (of the report's first mismatches)
     */
    public record ShardPlacement(
            int shard,
            int shardNum,
            int serverKeys,
            int agreeing,
            int disagreeing,
            int pipelineKeys,
            List<String> disagreeingKeys) {}

    /**
     * A key placed differently.
     * @param key the key as the server saw it
     * @param pipelineShard the shard the pipeline picks
     * @param serverShard the shard the Distributed table picks
     * @param serverSlot the server's expression modulo the total weight
     */
    public record KeyMismatch(String key, int pipelineShard, int serverShard, long serverSlot) {}
}
