package dev.etl.ops;

import dev.etl.error.ErrorClass;
import dev.etl.error.FatalPipelineException;

/** {@code process}: a {@link StatefulOperator} with open/close hooks. Stateful; one instance per lane. */
final class ProcessStage<T, R> implements Collector<T> {
    private final StatefulOperator<? super T, ? extends R> operator;
    private final StageErrorPolicy errors;
    private final Collector<? super R> downstream;
    private final OperatorContext operatorContext;

    ProcessStage(StatefulOperator<? super T, ? extends R> operator, StageErrorPolicy errors,
            OperatorContext operatorContext, Collector<? super R> downstream) {
        this.operator = operator;
        this.errors = errors;
        this.operatorContext = operatorContext;
        this.downstream = downstream;
    }

    @Override
    public void collect(T value) {
        try {
            operator.process(value, downstream);
        } catch (FatalPipelineException e) {
            throw e;
        } catch (Exception e) {
            errors.fail(e);
        }
    }

    String stageName() {
        return errors.stage();
    }

    void open() {
        try {
            operator.open(operatorContext);
        } catch (FatalPipelineException e) {
            throw e;
        } catch (Exception e) {
            throw new FatalPipelineException(ErrorClass.OPERATOR, "stage '" + stageName() + "' failed to open: " + e, e);
        }
    }

    void close() throws Exception {
        operator.close();
    }
}
