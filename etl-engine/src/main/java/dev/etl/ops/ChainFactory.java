package dev.etl.ops;

/**
 * Builds the operator chain of one lane. Called once per lane, on that lane's thread, so every
 * chain instance — and every stateful operator in it — belongs to exactly one thread and needs no
 * locks. The topology lives here, in code; configuration only tunes it.
 *
 * <pre>{@code
 * ChainFactory orders = ctx -> Chains.from(ctx, new OrderDeserializer())
 *         .filter("not-cancelled", o -> !o.cancelled())
 *         .map("to-row", OrderRow::of)
 *         .sink(ORDER_ENCODER, KeyHashRouter.byKey(OrderRow::id), ChunkConfig.defaults());
 * }</pre>
 */
@FunctionalInterface
public interface ChainFactory {
    Chain create(ChainContext context);
}
