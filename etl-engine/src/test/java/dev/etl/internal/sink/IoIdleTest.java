package dev.etl.internal.sink;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;
import org.junit.jupiter.api.Test;

/** The io thread's idle: what it parks for after each cycle, and that a ring is never lost. */
class IoIdleTest {
    private static final long NONE = Long.MAX_VALUE;

    private final List<Long> parks = new ArrayList<>();
    private final List<Thread> unparked = new ArrayList<>();
    private final IoIdle idle = new IoIdle(parks::add, unparked::add, IoIdle.MAX_SLEEP_NS);

    @Test
    void yieldsAfterWorkAndForTheFirstIdleRoundsThenSleepsForTheLongestSleepWhenNothingIsTimed() {
        idle.idle(3, 0, false);
        for (int i = 0; i < IoIdle.YIELDS; i++) {
            idle.idle(0, NONE, false);
        }
        idle.idle(0, NONE, false);
        idle.idle(0, NONE, false);

        List<Long> expected = new ArrayList<>();
        for (int i = 0; i <= IoIdle.YIELDS; i++) {
            expected.add(0L);
        }
        expected.add(IoIdle.MAX_SLEEP_NS);
        expected.add(IoIdle.MAX_SLEEP_NS);
        assertThat(parks).isEqualTo(expected);
        assertThat(idle.sleeps()).isEqualTo(2);
    }

    @Test
    void sleepsUntilTheNextDeadlineAndWorkStartsTheYieldsAgain() {
        idleRounds(IoIdle.YIELDS);
        parks.clear();

        idle.idle(0, 5_000_000, false); // a linger ends in 5 ms
        idle.idle(0, 0, false); // due now: no sleep
        idle.idle(1, 0, false);
        idle.idle(0, 5_000_000, false); // after work: yields again first

        assertThat(parks).containsExactly(5_000_000L, 0L, 0L, 0L);
    }

    @Test
    void drainingSleepsAreShort() {
        idleRounds(IoIdle.YIELDS);
        parks.clear();

        idle.idle(0, NONE, true);

        assertThat(parks).containsExactly(IoIdle.DRAIN_SLEEP_NS);
    }

    @Test
    void aRingBeforeTheSleepKeepsTheThreadAwakeUntilTheNextCycleClearsIt() {
        idleRounds(IoIdle.YIELDS);
        parks.clear();

        idle.ring();
        idle.idle(0, NONE, false);
        assertThat(parks).as("rung: no sleep").isEmpty();
        assertThat(unparked).as("nobody asleep to unpark").isEmpty();

        idle.beginCycle();
        idle.idle(0, NONE, false);
        assertThat(parks).containsExactly(IoIdle.MAX_SLEEP_NS);
    }

    @Test
    void aRingWhileAsleepUnparksTheSleeper() throws Exception {
        CountDownLatch asleep = new CountDownLatch(1);
        IoIdle real = new IoIdle(
                nanos -> {
                    if (nanos > 0) {
                        asleep.countDown();
                        LockSupport.parkNanos(nanos);
                    }
                },
                LockSupport::unpark,
                TimeUnit.HOURS.toNanos(1));
        Thread io = new Thread(() -> {
            for (int i = 0; i <= IoIdle.YIELDS; i++) {
                real.idle(0, NONE, false);
            }
        });
        io.start();
        assertThat(asleep.await(10, TimeUnit.SECONDS)).isTrue();

        long ringAt = System.nanoTime();
        real.ring();
        io.join(TimeUnit.SECONDS.toMillis(10));

        assertThat(io.isAlive())
                .as("the ring woke the thread from an hour's sleep")
                .isFalse();
        assertThat(System.nanoTime() - ringAt).isLessThan(TimeUnit.SECONDS.toNanos(10));
    }

    /**
     * Many rings from other threads racing one sleeping thread, each ring after a "hand-off" the thread must
     * see: it never sleeps through one (with a one-hour sleep, a lost ring would hang the test).
     */
    @Test
    void noRingIsLostRacingTheSleep() throws Exception {
        int rounds = 20_000;
        java.util.concurrent.atomic.AtomicLong handedOff = new java.util.concurrent.atomic.AtomicLong();
        IoIdle real = new IoIdle(
                nanos -> {
                    if (nanos > 0) {
                        LockSupport.parkNanos(nanos);
                    }
                },
                LockSupport::unpark,
                TimeUnit.HOURS.toNanos(1));
        java.util.concurrent.atomic.AtomicLong seen = new java.util.concurrent.atomic.AtomicLong();
        Thread io = new Thread(() -> {
            while (seen.get() < rounds) {
                real.beginCycle();
                long now = handedOff.get();
                int work = (int) (now - seen.get());
                seen.set(now);
                real.idle(work, NONE, false);
            }
        });
        io.start();
        Thread[] lanes = new Thread[2];
        for (int l = 0; l < lanes.length; l++) {
            lanes[l] = new Thread(() -> {
                java.util.concurrent.ThreadLocalRandom random = java.util.concurrent.ThreadLocalRandom.current();
                for (int i = 0; i < rounds / lanes.length; i++) {
                    if (random.nextInt(8) == 0) {
                        LockSupport.parkNanos(random.nextLong(20_000));
                    }
                    handedOff.incrementAndGet();
                    real.ring();
                }
            });
            lanes[l].start();
        }
        for (Thread lane : lanes) {
            lane.join();
        }
        io.join(TimeUnit.SECONDS.toMillis(30));

        assertThat(io.isAlive())
                .as(
                        "the io thread saw every hand-off (seen %d of %d, slept %d times)",
                        seen.get(), rounds, real.sleeps())
                .isFalse();
        assertThat(real.sleeps()).as("it did fall asleep between hand-offs").isPositive();
    }

    @Test
    void refusesANonPositiveLongestSleep() {
        assertThatThrownBy(() -> new IoIdle(n -> {}, t -> {}, 0)).hasMessageContaining("max sleep must be > 0");
    }

    private void idleRounds(int n) {
        for (int i = 0; i < n; i++) {
            idle.idle(0, NONE, false);
        }
    }
}
