package dev.etl.clickhouse;

import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.FunctionCounter;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Tags;
import io.micrometer.core.instrument.Timer;
import java.util.concurrent.TimeUnit;

/**
 * Pre-registered meters of one replica of one shard (tags {@code pipeline}, {@code sink},
 * {@code shard}, {@code replica}); recording allocates nothing. Prometheus names:
 * {@code etl_clickhouse_replica_healthy}, {@code etl_clickhouse_breaker_opens_total},
 * {@code etl_clickhouse_insert_duration_seconds{outcome}}, {@code etl_clickhouse_inserts_total{outcome}}
 * with outcome {@code success}, {@code transient} or {@code permanent},
 * {@code etl_clickhouse_deduplicated_inserts_total}, and {@code etl_clickhouse_isolation_inserts_total{outcome}}
 * with outcome {@code success} or {@code rejected} (the pieces of batches whose rows the server refused,
 * see {@link ClickHouseShardWriter}).
 */
final class ClickHouseReplicaMetrics {
    private final Timer successDuration;
    private final Timer transientDuration;
    private final Timer permanentDuration;
    private final Counter success;
    private final Counter transientFailures;
    private final Counter permanentFailures;
    private final Counter deduplicated;
    private final Counter piecesWritten;
    private final Counter piecesRejected;

    ClickHouseReplicaMetrics(
            MeterRegistry registry, String pipeline, String sink, int shard, String replica, ReplicaBreaker breaker) {
        Tags tags = Tags.of("pipeline", pipeline, "sink", sink, "shard", Integer.toString(shard), "replica", replica);
        Gauge.builder("etl.clickhouse.replica.healthy", breaker, b -> b.isClosed() ? 1 : 0)
                .description(
                        "1 while the replica's circuit breaker is closed, else 0 (open, or half-open probe pending)")
                .tags(tags)
                .strongReference(true)
                .register(registry);
        FunctionCounter.builder("etl.clickhouse.breaker.opens", breaker, ReplicaBreaker::opens)
                .description("Times the replica's circuit breaker opened")
                .tags(tags)
                .register(registry);
        successDuration = timer(registry, tags, "success");
        transientDuration = timer(registry, tags, "transient");
        permanentDuration = timer(registry, tags, "permanent");
        success = counter(registry, tags, "success");
        transientFailures = counter(registry, tags, "transient");
        permanentFailures = counter(registry, tags, "permanent");
        deduplicated = Counter.builder("etl.clickhouse.deduplicated.inserts")
                .description("Successful inserts the replica reported as writing no row (X-ClickHouse-Summary "
                        + "written_rows 0): a block it already had, dropped as a duplicate. Servers without that "
                        + "header (18.16) never report it")
                .tags(tags)
                .register(registry);
        piecesWritten = pieceCounter(registry, tags, "success");
        piecesRejected = pieceCounter(registry, tags, "rejected");
    }

    private static Counter pieceCounter(MeterRegistry registry, Tags tags, String outcome) {
        return Counter.builder("etl.clickhouse.isolation.inserts")
                .description("Inserts of pieces of a batch the server refused rows of for their content (the shard "
                        + "writer isolating those rows), by outcome: success (the piece's rows are written) or "
                        + "rejected (the piece holds a row the server refuses)")
                .tags(tags)
                .tag("outcome", outcome)
                .register(registry);
    }

    private static Timer timer(MeterRegistry registry, Tags tags, String outcome) {
        return Timer.builder("etl.clickhouse.insert.duration")
                .description("Insert requests to one replica, by outcome")
                .tags(tags)
                .tag("outcome", outcome)
                .register(registry);
    }

    private static Counter counter(MeterRegistry registry, Tags tags, String outcome) {
        return Counter.builder("etl.clickhouse.inserts")
                .description("Insert requests to one replica, by outcome")
                .tags(tags)
                .tag("outcome", outcome)
                .register(registry);
    }

    void success(long durationNs) {
        successDuration.record(durationNs, TimeUnit.NANOSECONDS);
        success.increment();
    }

    void deduplicated() {
        deduplicated.increment();
    }

    /** A piece of a batch whose rows the server refused was written ({@code true}) or refused. */
    void piece(boolean written) {
        (written ? piecesWritten : piecesRejected).increment();
    }

    void failure(boolean transientFailure, long durationNs) {
        if (transientFailure) {
            transientDuration.record(durationNs, TimeUnit.NANOSECONDS);
            transientFailures.increment();
        } else {
            permanentDuration.record(durationNs, TimeUnit.NANOSECONDS);
            permanentFailures.increment();
        }
    }
}
