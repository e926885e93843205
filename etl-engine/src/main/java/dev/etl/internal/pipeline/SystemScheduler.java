package dev.etl.internal.pipeline;

import dev.etl.pipeline.Scheduler;
import java.util.Random;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;
import java.util.random.RandomGenerator;

/** {@link Scheduler#system()}: the JVM's clock, platform threads, {@link LockSupport}. */
public final class SystemScheduler implements Scheduler {
    public static final SystemScheduler INSTANCE = new SystemScheduler();

    /** Shared by every io thread's backoff: {@link Random} is thread-safe. */
    private final Random random = new Random();

    private SystemScheduler() {}

    @Override
    public long nanoTime() {
        return System.nanoTime();
    }

    @Override
    public void parkNanos(long nanos) {
        if (nanos > 0) {
            LockSupport.parkNanos(nanos);
        } else {
            Thread.yield();
        }
    }

    @Override
    public void unpark(Thread thread) {
        LockSupport.unpark(thread);
    }

    @Override
    public Thread newThread(Runnable task, String name) {
        Thread thread = new Thread(task, name);
        thread.setDaemon(false);
        return thread;
    }

    @Override
    public boolean join(Thread thread, long timeoutNanos) throws InterruptedException {
        thread.join(Math.max(1, TimeUnit.NANOSECONDS.toMillis(timeoutNanos)));
        return !thread.isAlive();
    }

    @Override
    public Latch newLatch() {
        CountDownLatch latch = new CountDownLatch(1);
        return new Latch() {
            @Override
            public void release() {
                latch.countDown();
            }

            @Override
            public boolean isReleased() {
                return latch.getCount() == 0;
            }

            @Override
            public void await() throws InterruptedException {
                latch.await();
            }

            @Override
            public boolean await(long timeoutNanos) throws InterruptedException {
                return latch.await(timeoutNanos, TimeUnit.NANOSECONDS);
            }
        };
    }

    @Override
    public RandomGenerator random() {
        return random;
    }
}
