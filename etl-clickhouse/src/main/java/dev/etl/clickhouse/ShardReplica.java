package dev.etl.clickhouse;

import java.net.URI;

/** One replica of a {@link ClickHouseShardWriter}'s shard: its URI, its name in messages, breaker and meters. */
final class ShardReplica {
    final URI uri;
    final String name;
    final ReplicaBreaker breaker;
    final ClickHouseReplicaMetrics metrics;

    ShardReplica(URI uri, ReplicaBreaker breaker, ClickHouseReplicaMetrics metrics) {
        this.uri = uri;
        this.name = ClickHouseShardWriter.describe(uri);
        this.breaker = breaker;
        this.metrics = metrics;
    }
}
