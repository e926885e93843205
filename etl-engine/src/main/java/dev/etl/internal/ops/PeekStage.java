package dev.etl.internal.ops;

import dev.etl.error.FatalPipelineException;
import dev.etl.record.Collector;
import java.util.function.Consumer;

/** {@code peek}: observes each value and passes it on unchanged. Stateless. */
public final class PeekStage<T> implements Collector<T> {
    private final Consumer<? super T> action;
    private final StageErrorPolicy errors;
    private final Collector<? super T> downstream;

    public PeekStage(Consumer<? super T> action, StageErrorPolicy errors, Collector<? super T> downstream) {
        this.action = action;
        this.errors = errors;
        this.downstream = downstream;
    }

    @Override
    public void collect(T value) {
        try {
            action.accept(value);
        } catch (FatalPipelineException e) {
            throw e;
        } catch (RuntimeException e) {
            errors.fail(e);
            return;
        }
        downstream.collect(value);
    }
}
