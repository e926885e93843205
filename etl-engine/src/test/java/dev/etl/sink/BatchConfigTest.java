package dev.etl.sink;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Duration;
import org.junit.jupiter.api.Test;

class BatchConfigTest {

    /** ClickHouse's default max_insert_block_size: a larger insert is split into several blocks. */
    static final int MAX_INSERT_BLOCK_SIZE = 1_048_576;

    @Test
    void defaultsSealAtAMillionRowsUnderTheServersInsertBlockSize() {
        assertThat(BatchConfig.DEFAULTS.maxRows()).isEqualTo(1_000_000).isLessThan(MAX_INSERT_BLOCK_SIZE);
    }

    @Test
    void defaultsKeepTheBytesAndTheLingerThatBoundMemoryAndLatency() {
        assertThat(BatchConfig.DEFAULTS.maxBytes()).isEqualTo(32L << 20);
        assertThat(BatchConfig.DEFAULTS.linger()).isEqualTo(Duration.ofSeconds(1));
    }

    @Test
    void rejectsLimitsThatWouldNeverSeal() {
        assertThatThrownBy(() -> new BatchConfig(0, 1, Duration.ZERO)).hasMessageContaining("max-rows");
        assertThatThrownBy(() -> new BatchConfig(1, 0, Duration.ZERO)).hasMessageContaining("max-bytes");
        assertThatThrownBy(() -> new BatchConfig(1, 1, Duration.ofSeconds(-1))).hasMessageContaining("linger");
    }
}
