package dev.etl.record;

/**
 * Where a deserializer or a {@code flatMap}/{@code process} operator pushes its outputs. Each
 * {@link #collect} runs the rest of the chain synchronously on the lane thread before returning.
 */
@FunctionalInterface
public interface Collector<T> {
    void collect(T value);
}
