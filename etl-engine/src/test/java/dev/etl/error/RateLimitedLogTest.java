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

    @Test
    void aPeriodicPollReportsWhatWasSuppressedOnceTheIntervalPassesEvenWithoutAnotherMessage() {
        AtomicLong now = new AtomicLong(0);
        RateLimitedLog log = new RateLimitedLog(1_000, now::get);

        assertThat(log.pollSuppressed()).as("nothing pending").isEqualTo(-1);
        assertThat(log.permit()).isZero();
        for (int i = 0; i < 5; i++) {
            assertThat(log.permit()).isEqualTo(-1);
        }
        now.addAndGet(500);
        assertThat(log.pollSuppressed()).as("interval not over").isEqualTo(-1);
        now.addAndGet(500);
        assertThat(log.pollSuppressed()).isEqualTo(5);
        assertThat(log.pollSuppressed()).as("reported once").isEqualTo(-1);
        // The summary took this interval's permit: the next message waits for the next interval.
        assertThat(log.permit()).isEqualTo(-1);
        now.addAndGet(1_000);
        assertThat(log.permit()).isEqualTo(1);
    }

    @Test
    void drainReportsThePendingCountWhateverTheInterval() {
        AtomicLong now = new AtomicLong(0);
        RateLimitedLog log = new RateLimitedLog(1_000, now::get);
        log.permit();
        log.permit();
        log.permit();
        assertThat(log.drainSuppressed()).isEqualTo(2);
        assertThat(log.drainSuppressed()).isZero();
    }
}
