package dev.etl.autoconfigure.clickhouse;

import dev.etl.sink.BatchConfig;
import java.time.Duration;
import org.springframework.util.unit.DataSize;

/** When a shard worker seals a batch ({@code etl.sink.clickhouse.batch.*}). */
public class ClickHouseBatchProperties {

    /**
     * Rows at which a batch is sealed. Keep it under the server's max_insert_block_size (1048576 by
     * default), which splits a larger insert into several blocks.
     */
    private int maxRows = BatchConfig.DEFAULTS.maxRows();

    /**
     * Encoded size at which a batch is sealed.
     */
    private DataSize maxBytes = DataSize.ofBytes(BatchConfig.DEFAULTS.maxBytes());

    /**
     * Time after a batch's first row at which it is sealed, full or not (a deterministic block of a
     * partition that is far behind waits up to ten times as long to fill).
     */
    private Duration linger = BatchConfig.DEFAULTS.linger();

    public int getMaxRows() {
        return this.maxRows;
    }

    public void setMaxRows(int maxRows) {
        this.maxRows = maxRows;
    }

    public DataSize getMaxBytes() {
        return this.maxBytes;
    }

    public void setMaxBytes(DataSize maxBytes) {
        this.maxBytes = maxBytes;
    }

    public Duration getLinger() {
        return this.linger;
    }

    public void setLinger(Duration linger) {
        this.linger = linger;
    }
}
