package dev.etl.ops;

import dev.etl.record.Collector;
import java.time.Duration;
import java.util.ArrayDeque;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Objects;
import java.util.function.BiConsumer;
import java.util.function.Function;

/**
 * A built-in stateful operator: collects the values of each key into an accumulator of yours and emits
 * the accumulator when it holds {@code maxRecords} values, when its first value is {@code maxDelay} old
 * (processing time, by the operator's {@link OperatorTimer timer}, so a key whose input pauses is still
 * emitted on time), when more than {@code maxKeys} keys are open (the oldest first), and at every flush
 * (shutdown, revoke). "Many small events per customer into one row per customer every few seconds", a
 * micro-batch per device, a per-key summary row: what users otherwise hand-roll with {@link HeldAcks}.
 *
 * <pre>{@code
 * .process("per-customer", BatchPerKey.<Order, String, CustomerBatch>by(o -> o.getCustomer().toString())
 *         .into(CustomerBatch::new, CustomerBatch::add)
 *         .maxRecords(1_000)
 *         .maxDelay(Duration.ofSeconds(5))
 *         .build())
 * }</pre>
 *
 * <p>At-least-once like everything else: each key's open accumulator holds the acks of the records it
 * took (one {@link HeldAcks} per open key), so their offsets are committed only once the emitted
 * accumulator is written; a crash replays them, so an accumulator may be emitted twice or in two parts.
 * Aggregation proper (sums, counts, uniques over time) is the database's job: write the rows to a
 * {@code SummingMergeTree}/{@code AggregatingMergeTree} table, or a materialized view, and let ClickHouse
 * merge them; this operator only makes the rows fewer and larger.
 *
 * <p>Costs: a map lookup per value; per open key an entry, your accumulator and a reused holder. The key
 * is kept while its accumulator is open, so it must not be a view the deserializer reuses (a
 * {@code CharSequence} of an Avro {@code Utf8}: call {@code toString()}). Your {@code add} must copy
 * what it keeps from the value, which the deserializer may reuse after the call. One instance per lane
 * (build it inside the {@code ChainFactory}).
 *
 * @param <T> the values
 * @param <K> the key
 * @param <A> the accumulator, emitted as it is
 */
public final class BatchPerKey<T, K, A> implements StatefulOperator<T, A> {
    private final Function<? super T, ? extends K> key;
    private final Function<? super K, ? extends A> create;
    private final BiConsumer<? super A, ? super T> add;
    private final int maxRecords;
    private final Duration maxDelay;
    private final int maxKeys;
    /** Open keys in the order they opened, which is also the order of their deadlines. */
    private final LinkedHashMap<K, Group<A>> open = new LinkedHashMap<>();
    /** Holders of emitted keys, reused for the next keys that open. */
    private final ArrayDeque<HeldAcks> spare = new ArrayDeque<>();

    private OperatorContext context;
    private OperatorTimer timer;

    private BatchPerKey(Builder<T, K, A> b) {
        this.key = b.key;
        this.create = b.create;
        this.add = b.add;
        this.maxRecords = b.maxRecords;
        this.maxDelay = b.maxDelay;
        this.maxKeys = b.maxKeys;
    }

    /** Starts a builder: values are grouped by {@code key} (equal keys by {@link Object#equals}). */
    public static <T, K, A> Builder<T, K, A> by(Function<? super T, ? extends K> key) {
        return new Builder<>(Objects.requireNonNull(key, "key"));
    }

    @Override
    public void open(OperatorContext context) {
        this.context = context;
        this.timer = context.timer();
    }

    @Override
    public void process(T in, Collector<? super A> out) {
        K k = key.apply(in);
        Group<A> group = open.get(k);
        if (group == null) {
            if (open.size() >= maxKeys) {
                emitOldest(out);
            }
            HeldAcks held = spare.isEmpty() ? context.heldAcks() : spare.pop();
            group = new Group<>(create.apply(k), held, context.nanoTime() + maxDelay.toNanos());
            open.put(k, group);
            if (open.size() == 1) {
                timer.scheduleAt(group.deadlineNs);
            }
        }
        add.accept(group.accumulator, in);
        group.held.holdCurrent();
        if (++group.records >= maxRecords) {
            open.remove(k);
            emit(group, out);
            schedule();
        }
    }

    @Override
    public void onTimer(Collector<? super A> out) {
        long now = context.nanoTime();
        Iterator<Group<A>> it = open.values().iterator();
        while (it.hasNext()) {
            Group<A> group = it.next();
            if (group.deadlineNs - now > 0) {
                break; // opened later, so due later
            }
            it.remove();
            emit(group, out);
        }
        schedule();
    }

    @Override
    public void flush(Collector<? super A> out) {
        Iterator<Group<A>> it = open.values().iterator();
        while (it.hasNext()) {
            Group<A> group = it.next();
            it.remove();
            emit(group, out);
        }
        timer.cancel();
    }

    /** Keys open now (tests, diagnostics). */
    int openKeys() {
        return open.size();
    }

    private void emitOldest(Collector<? super A> out) {
        Iterator<Map.Entry<K, Group<A>>> it = open.entrySet().iterator();
        Group<A> oldest = it.next().getValue();
        it.remove();
        emit(oldest, out);
    }

    private void emit(Group<A> group, Collector<? super A> out) {
        try (HeldAcks.Emission<A> emission = group.held.emit(out)) {
            emission.collect(group.accumulator);
        }
        spare.push(group.held);
    }

    /** The timer at the oldest open key's deadline, or none. */
    private void schedule() {
        if (open.isEmpty()) {
            timer.cancel();
        } else {
            timer.scheduleAt(open.values().iterator().next().deadlineNs);
        }
    }

    private static final class Group<A> {
        final A accumulator;
        final HeldAcks held;
        final long deadlineNs;
        int records;

        Group(A accumulator, HeldAcks held, long deadlineNs) {
            this.accumulator = accumulator;
            this.held = held;
            this.deadlineNs = deadlineNs;
        }
    }

    /**
     * Configures a {@link BatchPerKey}; {@link #build()} makes a new operator (one per lane: call it inside
     * the {@code ChainFactory}).
     *
     * @param <T> the values
     * @param <K> the key
     * @param <A> the accumulator
     */
    public static final class Builder<T, K, A> {
        private final Function<? super T, ? extends K> key;
        private Function<? super K, ? extends A> create;
        private BiConsumer<? super A, ? super T> add;
        private int maxRecords = 1_000;
        private Duration maxDelay = Duration.ofSeconds(5);
        private int maxKeys = 100_000;

        private Builder(Function<? super T, ? extends K> key) {
            this.key = key;
        }

        /**
         * The accumulator: {@code create} makes a new one for a key's first value, {@code add} adds a value
         * to it (copy what you keep: the value may be reused after the call).
         */
        public Builder<T, K, A> into(Function<? super K, ? extends A> create, BiConsumer<? super A, ? super T> add) {
            this.create = Objects.requireNonNull(create, "create");
            this.add = Objects.requireNonNull(add, "add");
            return this;
        }

        /** A key's accumulator is emitted once it took this many values (default 1,000; at least 1). */
        public Builder<T, K, A> maxRecords(int maxRecords) {
            if (maxRecords < 1) {
                throw new IllegalArgumentException("maxRecords must be at least 1: " + maxRecords);
            }
            this.maxRecords = maxRecords;
            return this;
        }

        /**
         * A key's accumulator is emitted at the latest this long after its first value arrived (default 5 s;
         * processing time). Keep it well below {@code etl.checkpoint.interval} × a few and the table's
         * deduplication window: it is how long the key's records stay uncommitted.
         */
        public Builder<T, K, A> maxDelay(Duration maxDelay) {
            Objects.requireNonNull(maxDelay, "maxDelay");
            if (maxDelay.isNegative()) {
                throw new IllegalArgumentException("maxDelay must not be negative: " + maxDelay);
            }
            this.maxDelay = maxDelay;
            return this;
        }

        /** At most this many keys open per lane; one more emits the oldest first (default 100,000). */
        public Builder<T, K, A> maxKeys(int maxKeys) {
            if (maxKeys < 1) {
                throw new IllegalArgumentException("maxKeys must be at least 1: " + maxKeys);
            }
            this.maxKeys = maxKeys;
            return this;
        }

        /**
         * A new operator.
         *
         * @throws IllegalStateException when {@link #into} was not called
         */
        public BatchPerKey<T, K, A> build() {
            if (create == null) {
                throw new IllegalStateException("BatchPerKey needs an accumulator: call into(create, add)");
            }
            return new BatchPerKey<>(this);
        }
    }
}
