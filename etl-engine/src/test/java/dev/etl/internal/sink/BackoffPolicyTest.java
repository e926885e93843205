package dev.etl.internal.sink;

import static org.assertj.core.api.Assertions.assertThat;

import dev.etl.sink.RetryConfig;
import java.time.Duration;
import java.util.Random;
import org.junit.jupiter.api.Test;

class BackoffPolicyTest {
    private static final long MS = 1_000_000L;

    @Test
    void delaysGrowByTheMultiplierUpToTheMaximumWithoutJitter() {
        BackoffPolicy policy = new BackoffPolicy(
                new RetryConfig(0, Duration.ofMillis(100), Duration.ofSeconds(1), 2.0, 0.0), new Random(1));

        assertThat(policy.delayNs(1)).isEqualTo(100 * MS);
        assertThat(policy.delayNs(2)).isEqualTo(200 * MS);
        assertThat(policy.delayNs(4)).isEqualTo(800 * MS);
        assertThat(policy.delayNs(5)).isEqualTo(1_000 * MS);
        assertThat(policy.delayNs(10_000)).isEqualTo(1_000 * MS);
    }

    @Test
    void jitterStaysWithinTheConfiguredFraction() {
        BackoffPolicy policy = new BackoffPolicy(
                new RetryConfig(0, Duration.ofMillis(100), Duration.ofSeconds(1), 2.0, 0.2), new Random(7));

        long min = Long.MAX_VALUE;
        long max = Long.MIN_VALUE;
        for (int i = 0; i < 10_000; i++) {
            long delay = policy.delayNs(1);
            min = Math.min(min, delay);
            max = Math.max(max, delay);
        }
        assertThat(min).isBetween(80 * MS, 85 * MS);
        assertThat(max).isBetween(115 * MS, 120 * MS);
    }

    @Test
    void maxAttemptsZeroRetriesForeverOtherwiseUpToTheLimit() {
        BackoffPolicy unbounded = new BackoffPolicy(RetryConfig.DEFAULTS, new Random());
        BackoffPolicy three = new BackoffPolicy(
                new RetryConfig(3, Duration.ofMillis(1), Duration.ofMillis(1), 1.0, 0.0), new Random());

        assertThat(unbounded.mayRetry(1_000_000)).isTrue();
        assertThat(three.mayRetry(2)).isTrue();
        assertThat(three.mayRetry(3)).isFalse();
    }
}
