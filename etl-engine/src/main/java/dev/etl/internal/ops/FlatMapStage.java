package dev.etl.internal.ops;

import dev.etl.error.FatalPipelineException;
import dev.etl.ops.FlatMapper;
import dev.etl.record.Collector;

/**
 * {@code flatMap}: the function pushes 0..N values straight into the next stage (passed as its
 * collector), so children share the record's metadata and ack. Stateless.
 */
public final class FlatMapStage<T, R> implements Collector<T> {
    private final FlatMapper<? super T, ? extends R> fn;
    private final StageErrorPolicy errors;
    private final Collector<? super R> downstream;

    public FlatMapStage(
            FlatMapper<? super T, ? extends R> fn, StageErrorPolicy errors, Collector<? super R> downstream) {
        this.fn = fn;
        this.errors = errors;
        this.downstream = downstream;
    }

    @Override
    public void collect(T value) {
        try {
            fn.apply(value, downstream);
        } catch (FatalPipelineException e) {
            // Thrown by a downstream FAIL stage (stages throw nothing else) or deliberately by fn.
            throw e;
        } catch (Exception e) {
            errors.fail(e);
        }
    }
}
