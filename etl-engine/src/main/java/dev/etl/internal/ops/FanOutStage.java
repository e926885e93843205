package dev.etl.internal.ops;

import dev.etl.record.Collector;

/**
 * {@code fanOut}: pushes each value to every branch, in declaration order. Each branch's sink chunks
 * retain the batch ack on their own, so the ack completes when all outputs are done and fails if any
 * failed. Stateless.
 */
public final class FanOutStage<T> implements Collector<T> {
    private final Collector<? super T>[] branches;

    FanOutStage(Collector<? super T>[] branches) {
        this.branches = branches;
    }

    @Override
    public void collect(T value) {
        Collector<? super T>[] outputs = branches;
        for (int i = 0; i < outputs.length; i++) {
            outputs[i].collect(value);
        }
    }
}
