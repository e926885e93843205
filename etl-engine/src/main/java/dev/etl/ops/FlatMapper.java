package dev.etl.ops;

import dev.etl.record.Collector;

/**
 * The function of a {@code flatMap} stage: turns one value into zero or more, push-style, by calling
 * {@code out.collect} once per output — no collection is allocated.
 *
 * <p>Stateless by contract: it must not keep state between calls (use a {@link StatefulOperator} for
 * that). Called on the lane thread only. {@code in} may be an object the deserializer reuses for the
 * next record: do not keep a reference to it after {@code apply} returns unless you copy it.
 *
 * <p>{@code out} is the next stage itself: each {@code collect} runs the rest of the chain before
 * returning. Never catch what {@code out.collect} throws (a downstream {@code FAIL} stage must stop the
 * pipeline), and never keep {@code out} beyond the call.
 *
 * @param <T> input type
 * @param <R> output type
 */
@FunctionalInterface
public interface FlatMapper<T, R> {
    /**
     * Pushes the outputs for {@code in} to {@code out}. A thrown exception is a failure of the stage
     * and goes to its error policy; outputs already pushed stay pushed.
     */
    void apply(T in, Collector<? super R> out) throws Exception;
}
