/**
 * Shard placement that agrees with ClickHouse's Distributed engine: Java ports of the hash functions
 * ClickHouse 18.16 computes ({@link dev.etl.clickhouse.sharding.CityHash64},
 * {@link dev.etl.clickhouse.sharding.MurmurHash3}, {@link dev.etl.clickhouse.sharding.IntHash64}), the
 * Distributed slot mapping ({@link dev.etl.clickhouse.sharding.ShardWeights}), a router with those
 * semantics ({@link dev.etl.clickhouse.sharding.DistributedRouter}) and a startup check against the
 * server ({@link dev.etl.clickhouse.sharding.DistributedPlacementCheck},
 * {@link dev.etl.clickhouse.sharding.PlacementCheck}). Public API.
 */
@NullMarked
package dev.etl.clickhouse.sharding;

import org.jspecify.annotations.NullMarked;
