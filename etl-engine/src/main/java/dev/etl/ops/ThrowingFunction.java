package dev.etl.ops;

/**
 * The function of a {@code tryMap} stage: a one-to-one mapping that may fail, including with checked
 * exceptions (parsing, lookups). A failure goes to the stage's {@link dev.etl.error.ErrorPolicy}.
 *
 * <p>Stateless by contract; called on the lane thread only. {@code in} may be reused by the
 * deserializer for the next record: copy what you keep. Must not return {@code null}.
 *
 * @param <T> input type
 * @param <R> output type
 */
@FunctionalInterface
public interface ThrowingFunction<T, R> {
    /** Maps {@code in}; throws to reject the record. */
    R apply(T in) throws Exception;
}
