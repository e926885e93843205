package dev.etl.autoconfigure.clickhouse;

import dev.etl.sink.ChunkConfig;
import org.springframework.util.unit.DataSize;

/**
 * When a lane hands its open chunk of a shard to the shard's worker, besides the end of every poll
 * ({@code etl.sink.clickhouse.chunk.*}).
 */
public class ClickHouseChunkProperties {

    /**
     * Rows at which a lane hands a shard's open chunk off.
     */
    private int maxRows = ChunkConfig.DEFAULTS.maxRows();

    /**
     * Encoded size at which a lane hands a shard's open chunk off.
     */
    private DataSize maxBytes = DataSize.ofBytes(ChunkConfig.DEFAULTS.maxBytes());

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
}
