package dev.etl.internal.ops;

import dev.etl.error.ErrorClass;
import dev.etl.error.ErrorPolicy;
import dev.etl.internal.sink.ChunkOutbox;
import dev.etl.ops.ChainBuilder;
import dev.etl.ops.ChainContext;
import dev.etl.sink.Router;
import dev.etl.sink.RowEncoder;
import java.util.List;
import java.util.Objects;

/**
 * A chain's {@code sink} terminal at build time (the contract is on
 * {@link ChainBuilder#sink(String, RowEncoder, Router)}): which sink the chain ends in, which encoder
 * writes its rows — the sink's own when it has one, so what its startup validation checked is what
 * is written — and the {@link SinkStage} with its name ({@code sink-<sinkName>}), outbox and
 * {@link ErrorClass#ENCODE} policy.
 *
 * <p>Created when the terminal is declared, which numbers and names the stage; {@link #stage()}
 * creates the stage once the builder has accepted the terminal. Build time only, on the lane thread.
 *
 * @param <T> the values the chain delivers to the sink
 */
public final class SinkTerminal<T> {
    private final LaneContext context;
    private final String sinkName;
    private final RowEncoder<? super T> encoder;
    private final Router<? super T> router;
    private final boolean sinksEncoder;
    private final String stage;
    private final ChunkOutbox outbox;

    /**
     * Declares the terminal: the next operator of {@code assembly}.
     *
     * @param sinksEncoder whether {@code encoder} is the sink's own (said on a row type mismatch)
     */
    public SinkTerminal(
            ChainAssembly<?> assembly,
            String sinkName,
            RowEncoder<? super T> encoder,
            Router<? super T> router,
            boolean sinksEncoder) {
        this.router = Objects.requireNonNull(router, "router");
        this.context = assembly.context();
        this.sinkName = sinkName;
        this.encoder = encoder;
        this.sinksEncoder = sinksEncoder;
        int n = assembly.nextOperator();
        this.stage = assembly.sinkStageName(sinkName, n);
        this.outbox = context.outbox(sinkName);
        // Its layout is asked between source batches; a switch seals and hands off this outbox first.
        outbox.writtenBy(encoder);
        if (outbox.blocks() != null) {
            // Which rows a shard's block holds depends on the router: it is part of the block tokens.
            outbox.blocks().routedBy(String.valueOf(router.topology()));
        }
    }

    /** The terminal stage: routes, encodes into the outbox's chunks, holds the acks. */
    public SinkStage<T> stage() {
        return new SinkStage<T>(
                encoder,
                router,
                outbox,
                context.meta(),
                StageErrorPolicy.resolve(context, stage, ErrorClass.ENCODE, ErrorPolicy.FAIL),
                sinkName,
                sinksEncoder);
    }

    /**
     * The pipeline's first sink ({@link ChainContext#sinkNames()}).
     *
     * @throws IllegalStateException when the pipeline has no sink
     */
    public static String firstSink(LaneContext context) {
        List<String> sinks = context.sinkNames();
        if (sinks.isEmpty()) {
            throw new IllegalStateException("the pipeline defines no sink for this chain to write to");
        }
        return sinks.get(0);
    }

    /**
     * The encoder of sink {@code sinkName} itself ({@link dev.etl.sink.SinkDefinition#encoder()}); its
     * row type is checked per row (a {@link ClassCastException} is an {@link ErrorClass#ENCODE} failure).
     *
     * @throws IllegalArgumentException when there is no sink {@code sinkName}
     * @throws IllegalStateException    when the sink has no encoder of its own
     */
    public static <T> RowEncoder<? super T> sinksOwnEncoder(LaneContext context, String sinkName) {
        Objects.requireNonNull(sinkName, "sinkName");
        RowEncoder<?> own = context.sink(sinkName).encoder();
        if (own == null) {
            throw new IllegalStateException("sink '" + sinkName + "' has no encoder of its own: end the chain with "
                    + ".sink(\"" + sinkName + "\", encoder, router)");
        }
        @SuppressWarnings("unchecked") // the sink's row type is checked per row (ClassCastException → ENCODE)
        RowEncoder<? super T> encoder = (RowEncoder<? super T>) own;
        return encoder;
    }

    /**
     * Checks that {@code encoder}, given by the chain, may write sink {@code sinkName}: a sink with an
     * encoder of its own accepts only that one.
     *
     * @return whether {@code encoder} is the sink's own
     * @throws IllegalArgumentException when there is no sink {@code sinkName}, or it has another encoder
     */
    public static boolean acceptsEncoder(LaneContext context, String sinkName, RowEncoder<?> encoder) {
        Objects.requireNonNull(sinkName, "sinkName");
        Objects.requireNonNull(encoder, "encoder");
        RowEncoder<?> own = context.sink(sinkName).encoder();
        if (own != null && own != encoder) {
            throw new IllegalArgumentException("sink '" + sinkName + "' has an encoder of its own (the one its "
                    + "startup validation checked against the table), and this chain passes another: end the "
                    + "chain with .sink(\"" + sinkName + "\", router) so one encoder is declared, in one place");
        }
        return own != null;
    }
}
