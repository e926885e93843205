package dev.etl.it.support;

import static org.assertj.core.api.Assertions.fail;

import java.time.Duration;

/** Bounded waits on conditions the ITs observe from outside (commits, rows, HTTP probes). */
public final class Eventually {

    private Eventually() {}

    /**
     * Polls {@code condition} every 100 ms until it is true.
     * @param timeout how long to wait
     * @param what what is awaited, for the failure message
     * @param condition the condition; an exception it throws fails the wait at once
     * @throws AssertionError if the condition is still false after {@code timeout}
     * @throws Exception what the condition threw
     */
    public static void await(Duration timeout, String what, Condition condition) throws Exception {
        long deadline = System.nanoTime() + timeout.toNanos();
        while (!condition.isMet()) {
            if (System.nanoTime() - deadline > 0) {
                fail("timed out after " + timeout + " waiting for " + what);
            }
            Thread.sleep(100);
        }
    }

    /** A condition that may throw (e.g. asking a server). */
    @FunctionalInterface
    public interface Condition {

        /**
         * Whether the awaited state is reached.
         * @return true to stop waiting
         * @throws Exception to fail the wait
         */
        boolean isMet() throws Exception;
    }
}
