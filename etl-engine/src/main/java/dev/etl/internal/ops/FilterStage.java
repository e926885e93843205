package dev.etl.internal.ops;

import dev.etl.error.FatalPipelineException;
import dev.etl.record.Collector;
import java.util.function.Predicate;

/** {@code filter}: passes values the predicate accepts; a dropped value takes no ack reference. Stateless. */
public final class FilterStage<T> implements Collector<T> {
    private final Predicate<? super T> predicate;
    private final StageErrorPolicy errors;
    private final Collector<? super T> downstream;

    public FilterStage(Predicate<? super T> predicate, StageErrorPolicy errors, Collector<? super T> downstream) {
        this.predicate = predicate;
        this.errors = errors;
        this.downstream = downstream;
    }

    @Override
    public void collect(T value) {
        boolean keep;
        try {
            keep = predicate.test(value);
        } catch (FatalPipelineException e) {
            throw e;
        } catch (RuntimeException e) {
            errors.fail(e);
            return;
        }
        if (keep) {
            downstream.collect(value);
        }
    }
}
