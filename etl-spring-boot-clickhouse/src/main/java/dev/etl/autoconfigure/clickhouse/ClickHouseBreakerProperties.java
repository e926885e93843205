package dev.etl.autoconfigure.clickhouse;

import dev.etl.clickhouse.ClickHouseSinkConfig;
import java.time.Duration;

/** Per-replica circuit breaker ({@code etl.sink.clickhouse.breaker.*}). */
public class ClickHouseBreakerProperties {

    /**
     * Consecutive transient failures that open a replica's breaker.
     */
    private int threshold = ClickHouseSinkConfig.DEFAULT_BREAKER_THRESHOLD;

    /**
     * How long an open breaker refuses its replica before one half-open probe.
     */
    private Duration openTime = ClickHouseSinkConfig.DEFAULT_BREAKER_OPEN_TIME;

    public int getThreshold() {
        return this.threshold;
    }

    public void setThreshold(int threshold) {
        this.threshold = threshold;
    }

    public Duration getOpenTime() {
        return this.openTime;
    }

    public void setOpenTime(Duration openTime) {
        this.openTime = openTime;
    }
}
