package dev.etl.internal.ops;

import dev.etl.ops.Branch;
import dev.etl.ops.Chain;
import dev.etl.ops.ChainBuilder;
import dev.etl.record.Collector;
import java.util.Objects;
import java.util.function.Supplier;

/**
 * A chain's {@code fanOut} terminal at build time (the contract is on {@link ChainBuilder#fanOut}):
 * builds each {@link Branch} on a sub-builder of its own, checks that it returned that sub-builder's
 * terminal, and joins the branches' first stages in one {@link FanOutStage}, in declaration order.
 * Build time only, on the lane thread.
 */
public final class FanOutTerminal {
    private FanOutTerminal() {}

    /**
     * The fan-out stage named {@code stage} over {@code branches}, each built now on a sub-builder from
     * {@code newBranch}.
     *
     * @throws IllegalArgumentException when a branch does not return the terminal of the builder it
     *         was given
     */
    public static <T> FanOutStage<T> stage(String stage, Branch<T>[] branches, Supplier<ChainBuilder<T>> newBranch) {
        @SuppressWarnings("unchecked")
        Collector<? super T>[] outputs = (Collector<? super T>[]) new Collector<?>[branches.length];
        for (int i = 0; i < branches.length; i++) {
            ChainBuilder<T> branch = newBranch.get();
            Chain end = Objects.requireNonNull(branches[i], "branch").build(branch);
            if (!(end instanceof BranchEnd) || ((BranchEnd) end).root() != branch) {
                throw new IllegalArgumentException("branch " + i + " of fanOut '" + stage
                        + "' must return the terminal (sink or fanOut) of the builder it was given");
            }
            outputs[i] = castFirst(((BranchEnd) end).first());
        }
        return new FanOutStage<T>(outputs);
    }

    @SuppressWarnings("unchecked")
    private static <T> Collector<? super T> castFirst(Collector<?> first) {
        return (Collector<? super T>) first;
    }
}
