package dev.etl.ops;

/**
 * A stateful operator: keeps state across records (dedup windows, counters, enrichment caches) and
 * has {@link #open} and {@link #close} hooks.
 *
 * <p>Thread confinement: the lane's {@link ChainFactory} creates the chain once per lane, so create
 * a new operator instance inside the factory — an instance belongs to exactly one lane thread and
 * needs no locks. Never share one instance across lanes (e.g. from a field of the factory bean).
 * Keyed state is only as partitioned as the source: a lane sees the partitions assigned to it, which
 * change on rebalance.
 *
 * <p>Life cycle: {@code open} once before the first record (chain order), {@code process} per value,
 * {@code close} once at the end, in reverse chain order, also after a failure — but only if
 * {@code open} returned normally.
 *
 * <p>Values may be reused by the deserializer: {@code in} is valid during {@code process} only; copy
 * what you keep in state.
 *
 * @param <T> input type
 * @param <R> output type
 */
public interface StatefulOperator<T, R> {
    /** Acquires resources and registers metrics. A thrown exception fails the pipeline. */
    default void open(OperatorContext context) throws Exception {
    }

    /**
     * Handles one value, pushing zero or more outputs to {@code out} (the next stage itself; see
     * {@link FlatMapper} for the rules on {@code out}). A thrown exception is a failure of the stage
     * and goes to its error policy ({@code OPERATOR} class, {@code FAIL} unless configured).
     */
    void process(T in, Collector<? super R> out) throws Exception;

    /** Releases resources. Called even if another operator's {@code close} threw. */
    default void close() throws Exception {
    }
}
