-- One row per order line. Replicated, so identical blocks are dropped on insert: retried batches,
-- and the deterministic blocks a replay after a crash, restart or rebalance rebuilds, as long as
-- they are among the table's last replicated_deduplication_window blocks (1,000 here; the server's
-- default of 100 is too few for a replay, and the sink warns at startup below 1,000).
-- ReplacingMergeTree still collapses what falls outside that window (same order id and line number,
-- the highest updated_ms wins); query with FINAL for exact results in that case.
CREATE TABLE IF NOT EXISTS ${DB}.orders ON CLUSTER etl (
    order_id    UInt64,
    line_no     UInt16,
    customer    String,
    status      Enum8('NEW' = 0, 'PAID' = 1, 'SHIPPED' = 2, 'CANCELLED' = 3),
    sku         String,
    quantity    UInt32,
    price       Decimal64(2),
    coupon      Nullable(String),
    updated_ms  Int64
) ENGINE = ReplicatedReplacingMergeTree('/clickhouse/tables/{shard}/${DB}/orders', '{replica}', updated_ms)
ORDER BY (order_id, line_no)
SETTINGS replicated_deduplication_window = 1000
