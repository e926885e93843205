-- One row per order line. ReplacingMergeTree collapses replayed rows (same order id and line
-- number) to the one with the highest updated_ms; query with FINAL. Replicated, so identical
-- retried blocks are also dropped on insert.
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
