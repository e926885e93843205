-- The `tables` profile (application-tables.yaml): one row per cancelled order, which the default
-- profile drops. The columns of order_headers.sql without the status (always CANCELLED here).
-- Replicated and ReplacingMergeTree like `orders` (see sql/orders.sql).
CREATE TABLE IF NOT EXISTS ${DB}.cancelled_orders ON CLUSTER etl (
    order_id    UInt64,
    customer    String,
    line_count  UInt16,
    quantity    UInt32,
    total       Decimal64(2),
    coupon      Nullable(String),
    updated_ms  Int64
) ENGINE = ReplicatedReplacingMergeTree('/clickhouse/tables/{shard}/${DB}/cancelled_orders', '{replica}', updated_ms)
ORDER BY order_id
SETTINGS replicated_deduplication_window = 1000
