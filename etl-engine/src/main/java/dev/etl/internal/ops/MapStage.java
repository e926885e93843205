package dev.etl.internal.ops;

import dev.etl.error.FatalPipelineException;
import dev.etl.record.Collector;
import java.util.function.Function;

/** {@code map}: one value in, one out. Stateless. */
public final class MapStage<T, R> implements Collector<T> {
    private final Function<? super T, ? extends R> fn;
    private final StageErrorPolicy errors;
    private final Collector<? super R> downstream;

    public MapStage(Function<? super T, ? extends R> fn, StageErrorPolicy errors, Collector<? super R> downstream) {
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
        } catch (RuntimeException e) {
            errors.fail(e);
            return;
        }
        // Outside the try: a downstream failure is the downstream stage's, not this one's.
        downstream.collect(out);
    }
}
