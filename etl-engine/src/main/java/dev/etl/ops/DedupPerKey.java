package dev.etl.ops;

import dev.etl.record.Collector;
import io.micrometer.core.instrument.Counter;
import java.time.Duration;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Objects;
import java.util.function.Function;

/**
 * A built-in stateful operator: passes the first value of each key and drops the values of the same key
 * that arrive within {@code within} after it (processing time), e.g. a producer's retries or a source
 * that sends each event twice. Keys are forgotten when their time is up (by the operator's
 * {@link OperatorTimer timer}, so memory shrinks on an idle topic too) or, beyond {@code maxKeys} per
 * lane, the oldest first.
 *
 * <pre>{@code
 * .process("dedup-events", DedupPerKey.<Event, String>by(e -> e.getEventId().toString())
 *         .within(Duration.ofMinutes(10))
 *         .build())
 * }</pre>
 *
 * <p>It keeps no values, only keys, so it holds no acks: a dropped value resolves its record as success
 * (as a filter does) and a passed one is written like any other. Best effort, and at-least-once: the
 * state is per lane and lives in memory, so a duplicate is passed when the two copies are read by
 * different lanes or instances (partition by the key to avoid that), after a restart or a rebalance, or
 * once the first copy's key was forgotten. For exact deduplication, let the table do it
 * ({@code ReplacingMergeTree} with the key in the sorting key).
 *
 * <p>Meter: {@code etl_ops_dedup_dropped_total{pipeline, stage}}, the values dropped. Costs: a map lookup
 * per value, an entry per key kept. The key is kept, so it must not be a view the deserializer reuses.
 * One instance per lane (build it inside the {@code ChainFactory}).
 *
 * @param <T> the values
 * @param <K> the key
 */
public final class DedupPerKey<T, K> implements StatefulOperator<T, T> {
    private final Function<? super T, ? extends K> key;
    private final Duration within;
    private final int maxKeys;
    /** Keys in the order first seen, which is also the order they expire in; the value is the expiry. */
    private final LinkedHashMap<K, Long> seen = new LinkedHashMap<>();

    private OperatorContext context;
    private OperatorTimer timer;
    private Counter dropped;

    private DedupPerKey(Function<? super T, ? extends K> key, Duration within, int maxKeys) {
        this.key = key;
        this.within = within;
        this.maxKeys = maxKeys;
    }

    /** Starts a builder: values with equal keys ({@link Object#equals}) are duplicates. */
    public static <T, K> Builder<T, K> by(Function<? super T, ? extends K> key) {
        return new Builder<>(Objects.requireNonNull(key, "key"));
    }

    @Override
    public void open(OperatorContext context) {
        this.context = context;
        this.timer = context.timer();
        this.dropped = Counter.builder("etl.ops.dedup.dropped")
                .description("Values a DedupPerKey stage dropped as duplicates of a value seen shortly before")
                .tag("pipeline", context.pipelineName())
                .tag("stage", context.stageName())
                .register(context.meterRegistry());
    }

    @Override
    public void process(T in, Collector<? super T> out) {
        K k = key.apply(in);
        long now = context.nanoTime();
        Long expiry = seen.get(k);
        if (expiry != null && expiry - now > 0) {
            dropped.increment();
            return;
        }
        if (expiry != null) {
            seen.remove(k); // expired, not yet swept: seen again from now
        } else if (seen.size() >= maxKeys) {
            Iterator<K> oldest = seen.keySet().iterator();
            oldest.next();
            oldest.remove();
        }
        seen.put(k, now + within.toNanos());
        if (!timer.isScheduled()) {
            timer.scheduleAt(now + within.toNanos());
        }
        out.collect(in);
    }

    @Override
    public void onTimer(Collector<? super T> out) {
        long now = context.nanoTime();
        Iterator<Map.Entry<K, Long>> it = seen.entrySet().iterator();
        while (it.hasNext()) {
            Map.Entry<K, Long> entry = it.next();
            if (entry.getValue() - now > 0) {
                timer.scheduleAt(entry.getValue());
                return;
            }
            it.remove();
        }
    }

    /** Keys remembered now (tests, diagnostics). */
    int keys() {
        return seen.size();
    }

    /**
     * Configures a {@link DedupPerKey}; {@link #build()} makes a new operator (one per lane: call it inside
     * the {@code ChainFactory}).
     *
     * @param <T> the values
     * @param <K> the key
     */
    public static final class Builder<T, K> {
        private final Function<? super T, ? extends K> key;
        private Duration within = Duration.ofMinutes(1);
        private int maxKeys = 1_000_000;

        private Builder(Function<? super T, ? extends K> key) {
            this.key = key;
        }

        /** A value is dropped when a value of its key passed less than this long before (default 1 min). */
        public Builder<T, K> within(Duration within) {
            Objects.requireNonNull(within, "within");
            if (within.isNegative() || within.isZero()) {
                throw new IllegalArgumentException("within must be positive: " + within);
            }
            this.within = within;
            return this;
        }

        /** At most this many keys remembered per lane; one more forgets the oldest (default 1,000,000). */
        public Builder<T, K> maxKeys(int maxKeys) {
            if (maxKeys < 1) {
                throw new IllegalArgumentException("maxKeys must be at least 1: " + maxKeys);
            }
            this.maxKeys = maxKeys;
            return this;
        }

        /** A new operator. */
        public DedupPerKey<T, K> build() {
            return new DedupPerKey<>(key, within, maxKeys);
        }
    }
}
