package dev.etl.internal.metrics;

import dev.etl.error.ErrorClass;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.MeterRegistry;
import java.util.concurrent.ConcurrentHashMap;

/**
 * {@code etl_errors_total{pipeline, error_type, stage}}: every record-level error, skipped, dead-lettered
 * or fatal; and {@code etl_dead_letters_total}.
 * Counters are created on first use per (class, stage) and cached; the error path is not the hot path.
 */
public final class ErrorMetrics {
    private final MeterRegistry registry;
    private final String pipeline;
    private final ConcurrentHashMap<String, Counter> counters = new ConcurrentHashMap<>();
    private final ConcurrentHashMap<String, Counter> deadLetters = new ConcurrentHashMap<>();

    public ErrorMetrics(MeterRegistry registry, String pipeline) {
        this.registry = registry;
        this.pipeline = pipeline;
    }

    public void increment(ErrorClass errorClass, String stage) {
        counters.computeIfAbsent(
                        errorClass.label() + '\u0000' + stage,
                        k -> Counter.builder("etl.errors")
                                .description("Record-level errors by class and stage")
                                .tag("pipeline", pipeline)
                                .tag("error_type", errorClass.label())
                                .tag("stage", stage)
                                .register(registry))
                .increment();
    }

    /**
     * {@code etl_skip_budget_exceeded_total{pipeline, error_type}}: a lane's skip budget was
     * exceeded, which fails the pipeline.
     */
    public void skipBudgetExceeded(ErrorClass errorClass) {
        skipBudgetCounter(errorClass).increment();
    }

    /** Registers (at 0) the skip budget counters of every error class, so the series exist from start. */
    public void registerSkipBudget() {
        for (ErrorClass errorClass : ErrorClass.values()) {
            skipBudgetCounter(errorClass);
        }
    }

    private Counter skipBudgetCounter(ErrorClass errorClass) {
        return Counter.builder("etl.skip.budget.exceeded")
                .description(
                        "Skip budget trips: a lane skipped or dead-lettered more than its budget, failing the pipeline")
                .tag("pipeline", pipeline)
                .tag("error_type", errorClass.label())
                .register(registry);
    }

    /**
     * {@code etl_dead_letters_total{pipeline, stage, error_type}}: a record failed under
     * {@code DEAD_LETTER} and was handed to the dead-letter sink (its write is counted by that sink's
     * {@code etl_sink_*} meters).
     */
    public void deadLettered(ErrorClass errorClass, String stage) {
        deadLetterCounter(errorClass, stage).increment();
    }

    /**
     * Registers (at 0) the dead-letter counter of a stage whose policy is {@code DEAD_LETTER}, when
     * its chain is built, so the series exists before its first record.
     */
    public Counter deadLetterCounter(ErrorClass errorClass, String stage) {
        return deadLetters.computeIfAbsent(
                errorClass.label() + '\u0000' + stage,
                k -> Counter.builder("etl.dead.letters")
                        .description("Records that failed a stage under DEAD_LETTER and went to the dead-letter sink")
                        .tag("pipeline", pipeline)
                        .tag("stage", stage)
                        .tag("error_type", errorClass.label())
                        .register(registry));
    }
}
