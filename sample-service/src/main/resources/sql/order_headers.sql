-- The `tables` profile (application-tables.yaml): one row per order that is not cancelled, written
-- next to its line rows in `orders` (sql/orders.sql); an order's offset is committed once both are.
-- Replicated and ReplacingMergeTree like `orders`, for the same reasons: identical blocks of a replay
-- are dropped within the last replicated_deduplication_window blocks, and what falls outside it
-- collapses by order id (the highest updated_ms wins); query with FINAL for exact results then.
CREATE TABLE IF NOT EXISTS ${DB}.order_headers ON CLUSTER etl (
    order_id    UInt64,
    customer    String,
    status      Enum8('NEW' = 0, 'PAID' = 1, 'SHIPPED' = 2, 'CANCELLED' = 3),
    line_count  UInt16,
    quantity    UInt32,
    total       Decimal64(2),
    coupon      Nullable(String),
    updated_ms  Int64
) ENGINE = ReplicatedReplacingMergeTree('/clickhouse/tables/{shard}/${DB}/order_headers', '{replica}', updated_ms)
ORDER BY order_id
SETTINGS replicated_deduplication_window = 1000
