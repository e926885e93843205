package dev.etl.pipeline;

/**
 * Requests a graceful shutdown of a running pipeline: lanes stop polling, in-flight data drains
 * under {@code drain-timeout}, watermarks are committed synchronously, and the run ends. Safe to
 * call from any thread, any number of times; returns immediately.
 */
@FunctionalInterface
public interface ShutdownHandle {
    void trigger();
}
