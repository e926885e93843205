package dev.etl.ops;

import dev.etl.error.ErrorClass;
import dev.etl.error.ErrorPolicy;
import dev.etl.internal.ops.BranchEnd;
import dev.etl.internal.ops.ChainAssembly;
import dev.etl.internal.ops.FanOutTerminal;
import dev.etl.internal.ops.FilterStage;
import dev.etl.internal.ops.FlatMapStage;
import dev.etl.internal.ops.LaneContext;
import dev.etl.internal.ops.MapStage;
import dev.etl.internal.ops.PeekStage;
import dev.etl.internal.ops.ProcessStage;
import dev.etl.internal.ops.SinkTerminal;
import dev.etl.internal.ops.StageContext;
import dev.etl.internal.ops.StageErrorPolicy;
import dev.etl.internal.ops.StageFactory;
import dev.etl.internal.ops.TryMapStage;
import dev.etl.record.Collector;
import dev.etl.sink.Router;
import dev.etl.sink.RowEncoder;
import java.util.Objects;
import java.util.function.Consumer;
import java.util.function.Function;
import java.util.function.Predicate;

/**
 * Declares a lane's operator chain, Kafka Streams / Flink style: each verb adds one stage and returns
 * the builder of its output; a terminal ({@code sink} or {@code fanOut}) builds the chain. Start with
 * {@link Chains#from}.
 *
 * <pre>{@code
 * Chain chain = Chains.from(ctx, new OrderDeserializer())
 *         .filter("not-cancelled", o -> !o.cancelled())
 *         .map("to-row", OrderRow::of)
 *         .sink(OrderRow.ENCODER, KeyHashRouter.byKey(OrderRow::id));
 * }</pre>
 *
 * <p><b>Execution.</b> The built chain is a sequence of final stage objects, each holding a final
 * reference to the next and calling it directly: a record runs through every stage synchronously on
 * the lane thread, with no queue, allocation or boxing between stages. The functions given here are
 * called once per value; they should not allocate either if the pipeline is to be garbage-free.
 *
 * <p><b>Threads and state.</b> A builder is used on one thread, at build time only, inside
 * {@link ChainFactory#create}, which runs once per lane. So every built chain, and every function and
 * {@link StatefulOperator} in it, is confined to one lane thread. Stateless operators must not keep
 * state between calls; {@code process} is the operator for state.
 *
 * <p><b>Values may be reused.</b> A deserializer may hand out the same object for every record,
 * refilled. A value is valid only during the call that receives it: do not keep a reference to an
 * input value after your function returns unless you copy it, and do not mutate it (in a
 * {@code fanOut}, later branches see the same object).
 *
 * <p><b>Failures.</b> Every stage has a name (given, or defaulted to {@code verb#n}, {@code n} the
 * operator's position in declaration order; given names must be unique and may not contain {@code #})
 * and an {@link ErrorPolicy}: the declared one, which
 * configuration may override per stage ({@code etl.errors.stages.<name>}). An exception thrown by a
 * {@code map}, {@code filter}, {@code flatMap}, {@code peek} or {@code process} function is an
 * {@link ErrorClass#OPERATOR} failure, {@code FAIL} unless configured. Under {@code SKIP} the record
 * is reported and dropped (outputs it already pushed stay pushed) and its share of the ack resolves
 * as success; under {@code DEAD_LETTER} the original source record goes to the pipeline's dead-letter
 * sink, whose chunk holds the record's share of the ack (its offset commits once that write is
 * durable); under {@code FAIL} the chain throws {@link dev.etl.error.FatalPipelineException} naming
 * stage, partition and offset. A function may throw {@code FatalPipelineException} itself to stop
 * the pipeline regardless of policy.
 *
 * <p><b>Acks.</b> Dropping a value ({@code filter}, {@code SKIP}) takes no ack reference, so it
 * resolves as success; {@code flatMap} children share their record's ack; each sink chunk that
 * receives rows of a batch holds its ack once; a {@code process} operator that buffers values keeps
 * their batches' acks open ({@link HeldAcks}) and emits them under one ack covering them all.
 *
 * <p>A builder is linear: each builder accepts one further operator or terminal, and none once the
 * chain is built. Use {@link #fanOut} to send values to several outputs.
 *
 * @param <T> type of the values at this point of the chain
 */
public final class ChainBuilder<T> {
    private final ChainAssembly<?> assembly;
    private final ChainBuilder<?> upstream;
    private final StageFactory<?, T> link;
    private final boolean branchRoot;
    private boolean extended;

    private ChainBuilder(
            ChainAssembly<?> assembly, ChainBuilder<?> upstream, StageFactory<?, T> link, boolean branchRoot) {
        this.assembly = assembly;
        this.upstream = upstream;
        this.link = link;
        this.branchRoot = branchRoot;
    }

    static <T> ChainBuilder<T> root(ChainAssembly<T> assembly) {
        return new ChainBuilder<>(assembly, null, null, false);
    }

    /** The sub-builder a {@code fanOut} branch is built on: its terminal ends the branch, not the chain. */
    static <T> ChainBuilder<T> branchRoot(ChainAssembly<?> assembly) {
        return new ChainBuilder<>(assembly, null, null, true);
    }

    // ---- map ---------------------------------------------------------------------------------

    /**
     * Adds a stateless one-to-one stage named {@code name}. {@code fn} must not return {@code null};
     * use {@link #filter} or {@link #flatMap} to drop values.
     */
    public <R> ChainBuilder<R> map(String name, Function<? super T, ? extends R> fn) {
        return mapStage(Objects.requireNonNull(name, "name"), fn);
    }

    /** Adds a stateless one-to-one stage with a default name ({@code map#n}); see {@link #map(String, Function)}. */
    public <R> ChainBuilder<R> map(Function<? super T, ? extends R> fn) {
        return mapStage(null, fn);
    }

    private <R> ChainBuilder<R> mapStage(String name, Function<? super T, ? extends R> fn) {
        Objects.requireNonNull(fn, "fn");
        int n = assembly.nextOperator();
        String stage = assembly.stageName(name, "map", n);
        LaneContext ctx = assembly.context();
        return then((Collector<? super R> downstream) -> new MapStage<T, R>(
                fn, StageErrorPolicy.resolve(ctx, stage, ErrorClass.OPERATOR, ErrorPolicy.FAIL), downstream));
    }

    // ---- tryMap ------------------------------------------------------------------------------

    /**
     * Adds a stateless one-to-one stage whose function may throw (checked exceptions included); a
     * failure goes to {@code onFailure} ({@link ErrorClass#OPERATOR}), which configuration may
     * override for stage {@code name}. {@code fn} must not return {@code null}.
     */
    public <R> ChainBuilder<R> tryMap(String name, ThrowingFunction<? super T, ? extends R> fn, ErrorPolicy onFailure) {
        return tryMapStage(Objects.requireNonNull(name, "name"), fn, onFailure);
    }

    /** Same as {@link #tryMap(String, ThrowingFunction, ErrorPolicy)} with a default name ({@code tryMap#n}). */
    public <R> ChainBuilder<R> tryMap(ThrowingFunction<? super T, ? extends R> fn, ErrorPolicy onFailure) {
        return tryMapStage(null, fn, onFailure);
    }

    private <R> ChainBuilder<R> tryMapStage(
            String name, ThrowingFunction<? super T, ? extends R> fn, ErrorPolicy onFailure) {
        Objects.requireNonNull(fn, "fn");
        Objects.requireNonNull(onFailure, "onFailure");
        int n = assembly.nextOperator();
        String stage = assembly.stageName(name, "tryMap", n);
        LaneContext ctx = assembly.context();
        return then((Collector<? super R> downstream) -> new TryMapStage<T, R>(
                fn, StageErrorPolicy.resolve(ctx, stage, ErrorClass.OPERATOR, onFailure), downstream));
    }

    // ---- filter ------------------------------------------------------------------------------

    /**
     * Adds a stateless stage that passes on the values {@code predicate} accepts. A dropped value
     * takes no ack reference: it resolves as success.
     */
    public ChainBuilder<T> filter(String name, Predicate<? super T> predicate) {
        return filterStage(Objects.requireNonNull(name, "name"), predicate);
    }

    /** Same as {@link #filter(String, Predicate)} with a default name ({@code filter#n}). */
    public ChainBuilder<T> filter(Predicate<? super T> predicate) {
        return filterStage(null, predicate);
    }

    private ChainBuilder<T> filterStage(String name, Predicate<? super T> predicate) {
        Objects.requireNonNull(predicate, "predicate");
        int n = assembly.nextOperator();
        String stage = assembly.stageName(name, "filter", n);
        LaneContext ctx = assembly.context();
        return then((Collector<? super T> downstream) -> new FilterStage<T>(
                predicate, StageErrorPolicy.resolve(ctx, stage, ErrorClass.OPERATOR, ErrorPolicy.FAIL), downstream));
    }

    // ---- flatMap -----------------------------------------------------------------------------

    /**
     * Adds a stateless one-to-many stage: {@code fn} pushes 0..N outputs per value into the next stage
     * (no collection in between). All outputs share the input record's metadata and ack; zero outputs
     * resolve its share as success.
     */
    public <R> ChainBuilder<R> flatMap(String name, FlatMapper<? super T, ? extends R> fn) {
        return flatMapStage(Objects.requireNonNull(name, "name"), fn);
    }

    /** Same as {@link #flatMap(String, FlatMapper)} with a default name ({@code flatMap#n}). */
    public <R> ChainBuilder<R> flatMap(FlatMapper<? super T, ? extends R> fn) {
        return flatMapStage(null, fn);
    }

    private <R> ChainBuilder<R> flatMapStage(String name, FlatMapper<? super T, ? extends R> fn) {
        Objects.requireNonNull(fn, "fn");
        int n = assembly.nextOperator();
        String stage = assembly.stageName(name, "flatMap", n);
        LaneContext ctx = assembly.context();
        return then((Collector<? super R> downstream) -> new FlatMapStage<T, R>(
                fn, StageErrorPolicy.resolve(ctx, stage, ErrorClass.OPERATOR, ErrorPolicy.FAIL), downstream));
    }

    // ---- peek --------------------------------------------------------------------------------

    /**
     * Adds a stateless stage that shows each value to {@code action} (logging, sampling, counting with
     * a pre-registered meter) and passes it on unchanged. {@code action} must not mutate the value.
     */
    public ChainBuilder<T> peek(String name, Consumer<? super T> action) {
        return peekStage(Objects.requireNonNull(name, "name"), action);
    }

    /** Same as {@link #peek(String, Consumer)} with a default name ({@code peek#n}). */
    public ChainBuilder<T> peek(Consumer<? super T> action) {
        return peekStage(null, action);
    }

    private ChainBuilder<T> peekStage(String name, Consumer<? super T> action) {
        Objects.requireNonNull(action, "action");
        int n = assembly.nextOperator();
        String stage = assembly.stageName(name, "peek", n);
        LaneContext ctx = assembly.context();
        return then((Collector<? super T> downstream) -> new PeekStage<T>(
                action, StageErrorPolicy.resolve(ctx, stage, ErrorClass.OPERATOR, ErrorPolicy.FAIL), downstream));
    }

    // ---- process -----------------------------------------------------------------------------

    /**
     * Adds a stateful stage. Pass a new {@code operator} instance each time the factory runs: it is
     * confined to this lane and never shared across lanes. The chain opens it in
     * {@link Chain#open()} (chain order), flushes it in {@link Chain#flush()} (chain order) and closes
     * it in {@link Chain#close()} (reverse order). An operator that buffers values holds their acks:
     * see {@link StatefulOperator} and {@link HeldAcks}.
     */
    public <R> ChainBuilder<R> process(String name, StatefulOperator<? super T, ? extends R> operator) {
        return processStage(Objects.requireNonNull(name, "name"), operator);
    }

    /** Same as {@link #process(String, StatefulOperator)} with a default name ({@code process#n}). */
    public <R> ChainBuilder<R> process(StatefulOperator<? super T, ? extends R> operator) {
        return processStage(null, operator);
    }

    private <R> ChainBuilder<R> processStage(String name, StatefulOperator<? super T, ? extends R> operator) {
        Objects.requireNonNull(operator, "operator");
        int n = assembly.nextOperator();
        String stage = assembly.stageName(name, "process", n);
        ChainAssembly<?> assembly = this.assembly;
        LaneContext ctx = assembly.context();
        return then((Collector<? super R> downstream) -> {
            ProcessStage<T, R> created = new ProcessStage<T, R>(
                    operator,
                    StageErrorPolicy.resolve(ctx, stage, ErrorClass.OPERATOR, ErrorPolicy.FAIL),
                    new StageContext(ctx, stage),
                    downstream);
            assembly.registerStateful(n, created);
            return created;
        });
    }

    // ---- terminals ---------------------------------------------------------------------------

    /**
     * Ends the chain in the pipeline's first sink ({@link ChainContext#sinkNames()}), written with
     * that sink's own encoder; see {@link #sink(String, Router)}.
     *
     * @throws IllegalStateException when the pipeline has no sink, or the sink has no encoder of its own
     */
    public Chain sink(Router<? super T> router) {
        return sink(SinkTerminal.firstSink(assembly.context()), router);
    }

    /**
     * Ends the chain in sink {@code sinkName}, written with the sink's own encoder
     * ({@link dev.etl.sink.SinkDefinition#encoder()}: for ClickHouse, the one its startup validation
     * checked against the table), so what was validated is what is written. The encoder's row type must
     * be what this chain delivers: a mismatch fails the first row as an {@link ErrorClass#ENCODE}
     * failure naming both types. See {@link #sink(String, RowEncoder, Router)} for the rest.
     *
     * @throws IllegalArgumentException when there is no sink {@code sinkName}
     * @throws IllegalStateException    when the sink has no encoder of its own (pass one)
     */
    public Chain sink(String sinkName, Router<? super T> router) {
        RowEncoder<? super T> encoder = SinkTerminal.sinksOwnEncoder(assembly.context(), sinkName);
        return sinkStage(sinkName, encoder, router, true);
    }

    /**
     * Ends the chain in the pipeline's first sink ({@link ChainContext#sinkNames()}) with
     * {@code encoder}; see {@link #sink(String, RowEncoder, Router)}.
     *
     * @throws IllegalStateException when the pipeline has no sink
     */
    public Chain sink(RowEncoder<? super T> encoder, Router<? super T> router) {
        return sink(SinkTerminal.firstSink(assembly.context()), encoder, router);
    }

    /**
     * Ends the chain in sink {@code sinkName} and builds it (or, on a {@link Branch}'s builder, ends
     * that branch). Per value, on the lane thread: {@code router} picks the shard, {@code encoder}
     * appends one row to the shard's open chunk, the chunk holds the record's ack (once per chunk),
     * and the chunk is handed off at the sink's chunk size ({@link dev.etl.sink.SinkDefinition#chunks()})
     * and by the lane at the end of every batch. An encoder or router failure is an
     * {@link ErrorClass#ENCODE} failure of stage {@code sink-<sinkName>} ({@code FAIL} unless
     * configured); a failed row's partial bytes are cut back out of the chunk. A shard outside
     * {@code [0, shardCount)} is a router bug and always fatal.
     *
     * <p>For a sink that has an encoder of its own, {@code encoder} must be that encoder (or use
     * {@link #sink(String, Router)}): the rows must be what the sink validated.
     *
     * @throws IllegalArgumentException when there is no sink {@code sinkName}, or it has another encoder
     */
    public Chain sink(String sinkName, RowEncoder<? super T> encoder, Router<? super T> router) {
        boolean sinksEncoder = SinkTerminal.acceptsEncoder(assembly.context(), sinkName, encoder);
        return sinkStage(sinkName, encoder, router, sinksEncoder);
    }

    private Chain sinkStage(
            String sinkName, RowEncoder<? super T> encoder, Router<? super T> router, boolean sinksEncoder) {
        SinkTerminal<T> terminal = new SinkTerminal<>(assembly, sinkName, encoder, router, sinksEncoder);
        claim();
        return terminate(terminal.stage());
    }

    /**
     * Ends the chain in several outputs: every value goes to each branch, in order, synchronously.
     * Stateless. Each output's chunks hold the batch's ack independently, so the batch is acknowledged
     * once every output has written (or dropped) its rows, and fails if any output failed.
     * Branches must not mutate the shared value.
     *
     * @throws IllegalArgumentException when there is no branch, or a branch does not return the
     *         terminal of the builder it was given
     */
    @SafeVarargs
    @SuppressWarnings("varargs") // the array is only read, never stored or exposed
    public final Chain fanOut(String name, Branch<T>... branches) {
        return fanOutStage(Objects.requireNonNull(name, "name"), branches);
    }

    /** Same as {@link #fanOut(String, Branch[])} with a default name ({@code fanOut#n}). */
    @SafeVarargs
    @SuppressWarnings("varargs") // the array is only read, never stored or exposed
    public final Chain fanOut(Branch<T>... branches) {
        return fanOutStage(null, branches);
    }

    private Chain fanOutStage(String name, Branch<T>[] branches) {
        Objects.requireNonNull(branches, "branches");
        if (branches.length == 0) {
            throw new IllegalArgumentException("fanOut needs at least one branch");
        }
        int n = assembly.nextOperator();
        String stage = assembly.stageName(name, "fanOut", n);
        claim();
        ChainAssembly<?> assembly = this.assembly;
        return terminate(FanOutTerminal.stage(stage, branches, () -> ChainBuilder.<T>branchRoot(assembly)));
    }

    // ---- assembly ----------------------------------------------------------------------------

    private <R> ChainBuilder<R> then(StageFactory<T, R> factory) {
        claim();
        return new ChainBuilder<>(assembly, this, factory, false);
    }

    private void claim() {
        if (extended) {
            throw new IllegalStateException("this builder already continues with another stage: a chain is linear, "
                    + "use fanOut(...) to send values to several outputs");
        }
        extended = true;
    }

    /** Materialises the stages tail-first, so each gets its final downstream, and ends at the root. */
    private Chain terminate(Collector<? super T> tail) {
        Collector<?> stage = tail;
        ChainBuilder<?> node = this;
        while (node.link != null) {
            stage = create(node.link, stage);
            node = node.upstream;
        }
        return node.branchRoot ? new BranchEnd(node, stage) : node.assembly.head(stage);
    }

    @SuppressWarnings("unchecked")
    private static <I, O> Collector<I> create(StageFactory<I, O> factory, Collector<?> downstream) {
        // Safe: downstream was created by the builder of this factory's output, which has type O.
        return factory.create((Collector<? super O>) downstream);
    }
}
