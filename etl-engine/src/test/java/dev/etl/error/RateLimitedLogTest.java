package dev.etl.error;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.concurrent.atomic.AtomicLong;

import org.junit.jupiter.api.Test;

class RateLimitedLogTest {
    @Test
    void permitsOneMessagePerIntervalAndReportsHowManyWereSuppressed() {
        AtomicLong now = new AtomicLong(5_000);
        RateLimitedLog log = new RateLimitedLog(1_000, now::get);

        assertThat(log.permit()).isZero();
        assertThat(log.permit()).isEqualTo(-1);
        now.addAndGet(999);
        assertThat(log.permit()).isEqualTo(-1);
        assertThat(log.suppressedCount()).isEqualTo(2);

        now.addAndGet(1);
        assertThat(log.permit()).isEqualTo(2);
        assertThat(log.suppressedCount()).isZero();
    }
}
