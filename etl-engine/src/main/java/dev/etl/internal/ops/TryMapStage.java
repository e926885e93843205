package dev.etl.internal.ops;

import dev.etl.error.FatalPipelineException;
import dev.etl.ops.ThrowingFunction;
import dev.etl.record.Collector;

/** {@code tryMap}: one value in, one out, checked failures go to the declared policy. Stateless. */
public final class TryMapStage<T, R> implements Collector<T> {
    private final ThrowingFunction<? super T, ? extends R> fn;
    private final StageErrorPolicy errors;
    private final Collector<? super R> downstream;

    public TryMapStage(
            ThrowingFunction<? super T, ? extends R> fn, StageErrorPolicy errors, Collector<? super R> downstream) {
        this.fn = fn;
        this.errors = errors;
        this.downstream = downstream;
    }

    @Override
    public void collect(T value) {
        R out;
        try {
            out = fn.apply(value);
        } catch (FatalPipelineException e) {
            throw e;
        } catch (Exception e) {
            errors.fail(e);
            return;
        }
        downstream.collect(out);
    }
}
