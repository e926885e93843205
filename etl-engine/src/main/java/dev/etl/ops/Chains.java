package dev.etl.ops;

import dev.etl.deser.Deserializer;
import dev.etl.error.ErrorPolicy;
import dev.etl.internal.ops.ChainAssembly;
import dev.etl.internal.ops.LaneContext;
import java.util.Objects;

/**
 * Entry point of the operator-chain API: {@code Chains.from(ctx, deserializer)} starts a
 * {@link ChainBuilder} inside a {@link ChainFactory}.
 *
 * <pre>{@code
 * ChainFactory orders = ctx -> Chains.from(ctx, new OrderDeserializer())
 *         .filter("not-cancelled", o -> !o.cancelled())
 *         .map("to-row", OrderRow::of)
 *         .sink(OrderRow.ENCODER, KeyHashRouter.byKey(OrderRow::id));
 * }</pre>
 */
public final class Chains {
    private Chains() {}

    /**
     * Starts a chain whose records come from {@code deserializer}. A payload the deserializer rejects
     * fails the pipeline unless configuration sets the {@code deserialize} stage to {@code SKIP}.
     *
     * <p>Call on the lane thread, inside {@link ChainFactory#create}; pass a deserializer instance
     * that belongs to this lane (it may reuse buffers and values).
     */
    public static <T> ChainBuilder<T> from(ChainContext context, Deserializer<T> deserializer) {
        return from(context, deserializer, ErrorPolicy.FAIL);
    }

    /**
     * Same as {@link #from(ChainContext, Deserializer)} with the declared policy of the
     * {@code deserialize} stage ({@link dev.etl.error.ErrorClass#DESERIALIZATION}); configuration may
     * still override it. Under {@code SKIP} a bad payload is reported and its record resolves as
     * success; under {@code DEAD_LETTER} its original bytes go to the pipeline's dead-letter sink (which
     * the pipeline must have); under {@code FAIL} the chain throws a {@link dev.etl.error.FatalPipelineException}
     * caused by a {@link dev.etl.error.DeserializationException} naming partition and offset.
     */
    public static <T> ChainBuilder<T> from(
            ChainContext context, Deserializer<T> deserializer, ErrorPolicy onBadPayload) {
        Objects.requireNonNull(context, "context");
        Objects.requireNonNull(deserializer, "deserializer");
        Objects.requireNonNull(onBadPayload, "onBadPayload");
        return ChainBuilder.root(new ChainAssembly<>(LaneContext.of(context), deserializer, onBadPayload));
    }
}
