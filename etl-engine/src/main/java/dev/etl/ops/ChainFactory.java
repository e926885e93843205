package dev.etl.ops;

import dev.etl.internal.ops.TopicRoutingChain;

/**
 * Builds the operator chain of one lane. Called once per lane, on that lane's thread, so every
 * chain instance — and every stateful operator in it — belongs to exactly one thread and needs no
 * locks. The topology lives here, in code; configuration only tunes it.
 *
 * <pre>{@code
 * ChainFactory orders = ctx -> Chains.from(ctx, new OrderDeserializer())
 *         .filter("not-cancelled", o -> !o.cancelled())
 *         .map("to-row", OrderRow::of)
 *         .sink(ORDER_ENCODER, KeyHashRouter.byKey(OrderRow::id));
 * }</pre>
 */
@FunctionalInterface
public interface ChainFactory {
    Chain create(ChainContext context);

    /**
     * The topics whose records this factory's chains process; empty (the default) means every topic
     * not claimed by another factory. With several factories in one pipeline, each partition's
     * batches go to the chain of the factory that names its topic (see {@link #routing}).
     */
    default java.util.Set<String> topics() {
        return java.util.Set.of();
    }

    /** A factory for the given topics only. */
    static ChainFactory forTopics(java.util.Set<String> topics, ChainFactory factory) {
        java.util.Set<String> copy = java.util.Set.copyOf(topics);
        if (copy.isEmpty()) {
            throw new IllegalArgumentException("forTopics needs at least one topic");
        }
        return new ChainFactory() {
            @Override
            public Chain create(ChainContext context) {
                return factory.create(context);
            }

            @Override
            public java.util.Set<String> topics() {
                return copy;
            }
        };
    }

    /**
     * Combines several factories into one that routes each partition to the chain of the factory
     * naming its topic, or to the single catch-all factory (empty {@link #topics()}).
     *
     * @throws IllegalArgumentException when two factories claim one topic, or more than one is a
     *         catch-all
     */
    static ChainFactory routing(java.util.List<ChainFactory> factories) {
        return TopicRoutingChain.factory(factories);
    }
}
