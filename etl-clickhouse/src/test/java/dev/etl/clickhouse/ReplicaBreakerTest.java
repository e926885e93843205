package dev.etl.clickhouse;

import static org.assertj.core.api.Assertions.assertThat;

import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;

class ReplicaBreakerTest {
    private final AtomicLong now = new AtomicLong();
    private final ReplicaBreaker breaker = new ReplicaBreaker(3, 1_000, now::get);

    @Test
    void staysClosedBelowThresholdAndSuccessResetsTheCount() {
        breaker.onFailure();
        breaker.onFailure();
        breaker.onSuccess();
        breaker.onFailure();
        breaker.onFailure();
        assertThat(breaker.state()).isEqualTo(ClickHouseShardWriter.BreakerState.CLOSED);
        assertThat(breaker.tryAcquire()).isTrue();
    }

    @Test
    void opensAtThresholdAndRefusesUntilOpenTimeElapses() {
        for (int i = 0; i < 3; i++) {
            breaker.onFailure();
        }
        assertThat(breaker.state()).isEqualTo(ClickHouseShardWriter.BreakerState.OPEN);
        assertThat(breaker.opens()).isEqualTo(1);
        assertThat(breaker.isAvailable()).isFalse();
        now.set(999);
        assertThat(breaker.tryAcquire()).isFalse();
        assertThat(breaker.remainingOpenNs()).isEqualTo(1);
    }

    @Test
    void halfOpenAdmitsExactlyOneProbe() {
        for (int i = 0; i < 3; i++) {
            breaker.onFailure();
        }
        now.set(1_000);
        assertThat(breaker.tryAcquire()).isTrue();
        assertThat(breaker.state()).isEqualTo(ClickHouseShardWriter.BreakerState.HALF_OPEN);
        assertThat(breaker.tryAcquire())
                .as("second caller while the probe runs")
                .isFalse();
        assertThat(breaker.isAvailable()).isTrue();
        assertThat(breaker.isClosed()).as("a pending probe is not health").isFalse();
    }

    @Test
    void healthyMetricReflectsClosedOnly() {
        SimpleMeterRegistry registry = new SimpleMeterRegistry();
        new ClickHouseReplicaMetrics(registry, "p", "s", 0, "http://r:1", breaker);
        Gauge healthy = registry.get("etl.clickhouse.replica.healthy").gauge();
        assertThat(healthy.value()).isEqualTo(1);
        for (int i = 0; i < 3; i++) {
            breaker.onFailure();
        }
        assertThat(healthy.value()).isZero();
        now.set(1_000);
        assertThat(breaker.tryAcquire()).isTrue(); // the half-open probe is in flight
        assertThat(healthy.value()).as("half-open").isZero();
        breaker.onSuccess();
        assertThat(healthy.value()).isEqualTo(1);
    }

    @Test
    void probeSuccessClosesAndProbeFailureReopensForAnotherOpenTime() {
        for (int i = 0; i < 3; i++) {
            breaker.onFailure();
        }
        now.set(1_000);
        breaker.tryAcquire();
        breaker.onFailure();
        assertThat(breaker.state()).isEqualTo(ClickHouseShardWriter.BreakerState.OPEN);
        assertThat(breaker.opens()).isEqualTo(2);
        now.set(1_999);
        assertThat(breaker.tryAcquire()).isFalse();
        now.set(2_000);
        assertThat(breaker.tryAcquire()).isTrue();
        breaker.onSuccess();
        assertThat(breaker.state()).isEqualTo(ClickHouseShardWriter.BreakerState.CLOSED);
        assertThat(breaker.consecutiveFailures()).isZero();
        assertThat(breaker.tryAcquire()).isTrue();
    }
}
