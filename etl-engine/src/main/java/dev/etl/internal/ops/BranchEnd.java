package dev.etl.internal.ops;

import dev.etl.ops.Branch;
import dev.etl.ops.Chain;
import dev.etl.ops.ChainBuilder;
import dev.etl.record.Collector;

/**
 * What a terminal returns on a {@link Branch}'s sub-builder: the branch's first stage, for the
 * enclosing {@code fanOut} to push into. Not runnable on its own.
 */
public final class BranchEnd implements Chain {
    private final ChainBuilder<?> root;
    private final Collector<?> first;

    public BranchEnd(ChainBuilder<?> root, Collector<?> first) {
        this.root = root;
        this.first = first;
    }

    ChainBuilder<?> root() {
        return root;
    }

    Collector<?> first() {
        return first;
    }

    @Override
    public void open() {
        throw notAChain();
    }

    @Override
    public void onBatch(dev.etl.source.PartitionBatch batch) {
        throw notAChain();
    }

    @Override
    public void flush() {
        throw notAChain();
    }

    @Override
    public void close() {
        throw notAChain();
    }

    private static IllegalStateException notAChain() {
        return new IllegalStateException("this is the end of a fanOut branch, not a chain: return it from the Branch");
    }
}
