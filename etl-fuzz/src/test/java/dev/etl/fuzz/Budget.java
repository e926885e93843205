package dev.etl.fuzz;

import java.lang.management.ManagementFactory;

/**
 * The per-input bounds every fuzz target enforces on the decoder it drives: wall time (default 1 s,
 * {@code -Detl.fuzz.maxMillis}) and bytes allocated on the calling thread, at most a fixed allowance
 * plus so many bytes per input byte ({@code ThreadMXBean} counts every allocation, TLAB or not, so
 * a decoder that sizes an array from a count it read, or fills a list with items that take no bytes,
 * is caught even when the heap could hold it). Over either bound the target fails with an
 * {@link AssertionError} naming the decoder, the input length and what it took.
 *
 * <p>The measured call returns a value or throws an exception: both are an {@link Outcome} for the
 * oracle to judge. An {@link Error} (an {@code OutOfMemoryError}, a {@code StackOverflowError}, an
 * assertion inside) propagates: Jazzer reports it as a finding. A call that never returns is caught by
 * the hard timeout instead: JUnit's per-invocation timeout in regression mode and libFuzzer's
 * {@code -timeout} in fuzzing mode, both set in {@code junit-platform.properties}; the heap of the test
 * JVM is bounded too ({@code -Xmx2g}).
 */
public final class Budget {
    /** The most one input may take in one decoder call. */
    public static final long MAX_MILLIS = Long.getLong("etl.fuzz.maxMillis", 1000);

    private static final com.sun.management.ThreadMXBean THREADS =
            (com.sun.management.ThreadMXBean) ManagementFactory.getThreadMXBean();

    static {
        if (!THREADS.isThreadAllocatedMemorySupported() || !THREADS.isThreadAllocatedMemoryEnabled()) {
            throw new IllegalStateException("the fuzz targets need the JVM's per-thread allocation counter");
        }
    }

    /** Prints the stack of a call that overran the time limit, while it still runs (a hang's only trace). */
    private static final java.util.concurrent.ScheduledThreadPoolExecutor WATCHDOG;

    static {
        WATCHDOG = new java.util.concurrent.ScheduledThreadPoolExecutor(1, r -> {
            Thread t = new Thread(r, "fuzz-budget-watchdog");
            t.setDaemon(true);
            return t;
        });
        WATCHDOG.setRemoveOnCancelPolicy(true);
    }

    private Budget() {}

    /** A decoder call: returns what it decoded or throws. */
    @FunctionalInterface
    public interface Call<T> {
        T call() throws Exception;
    }

    /** What a decoder did with one input: a value, or the exception it threw. */
    public static final class Outcome<T> {
        private final T value;
        private final Exception failure;

        private Outcome(T value, Exception failure) {
            this.value = value;
            this.failure = failure;
        }

        public boolean ok() {
            return failure == null;
        }

        public T value() {
            if (failure != null) {
                throw new IllegalStateException("the call failed", failure);
            }
            return value;
        }

        public Exception failure() {
            return failure;
        }

        @Override
        public String toString() {
            return ok() ? "ok: " + value : "failed: " + failure;
        }
    }

    /**
     * Runs {@code call} within the time limit and within {@code fixedBytes + bytesPerInputByte *
     * inputLength} bytes allocated. A call over either bound runs a second time and is judged on that
     * run: the first use of a code path loads classes on the calling thread (and, under Jazzer,
     * instruments them), which costs time and allocations the decoder does not make per input. The
     * calls the targets measure are deterministic, so the second run does what the first did.
     *
     * @param what names the decoder in the failure message
     */
    public static <T> Outcome<T> run(
            String what, int inputLength, long fixedBytes, long bytesPerInputByte, Call<T> call) {
        long allowed = fixedBytes + bytesPerInputByte * inputLength;
        for (int attempt = 0; ; attempt++) {
            Thread caller = Thread.currentThread();
            java.util.concurrent.ScheduledFuture<?> watch = WATCHDOG.schedule(
                    () -> {
                        Throwable where = new Throwable(what + " still running after " + MAX_MILLIS + " ms on a "
                                + inputLength + "-byte input; it is at:");
                        where.setStackTrace(caller.getStackTrace());
                        where.printStackTrace();
                    },
                    MAX_MILLIS * (attempt + 1),
                    java.util.concurrent.TimeUnit.MILLISECONDS);
            long allocatedBefore = THREADS.getCurrentThreadAllocatedBytes();
            long start = System.nanoTime();
            T value = null;
            Exception failure = null;
            try {
                value = call.call();
            } catch (Exception e) {
                failure = e;
            }
            long nanos = System.nanoTime() - start;
            long allocated = THREADS.getCurrentThreadAllocatedBytes() - allocatedBefore;
            watch.cancel(false);
            boolean slow = nanos > MAX_MILLIS * 1_000_000;
            if (!slow && allocated <= allowed) {
                return new Outcome<>(value, failure);
            }
            if (attempt == 0) {
                // Loading (and, under Jazzer, instrumenting) the classes a path needs the first time it
                // runs allocates and takes time on this thread: measure the same call once more.
                continue;
            }
            String outcome = failure == null ? "returned" : "threw " + failure;
            if (slow) {
                throw new AssertionError(what + " took " + nanos / 1_000_000 + " ms on a " + inputLength
                        + "-byte input (the limit is " + MAX_MILLIS + " ms per input); it " + outcome);
            }
            throw new AssertionError(what + " allocated " + allocated + " bytes on a " + inputLength
                    + "-byte input (the limit is " + fixedBytes + " + " + bytesPerInputByte + " per input byte = "
                    + allowed + "); it " + outcome);
        }
    }

    /** Fails unless {@code failure} is one of the exception classes the decoder declares for bad input. */
    @SafeVarargs
    public static void expectDeclared(String what, Exception failure, Class<? extends Exception>... declared) {
        for (Class<? extends Exception> c : declared) {
            if (c.isInstance(failure)) {
                return;
            }
        }
        throw new AssertionError(
                what + " threw " + failure.getClass().getName() + ", not one of its declared "
                        + "malformed-input exceptions " + java.util.Arrays.toString(declared),
                failure);
    }
}
