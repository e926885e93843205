package dev.etl.internal.ops;

import dev.etl.record.Collector;

/**
 * Creates one stage once its downstream exists (chains are materialised tail-first, so every stage
 * gets a final {@code downstream}). Build time only.
 *
 * @param <I> what the created stage accepts
 * @param <O> what it pushes downstream
 */
@FunctionalInterface
public interface StageFactory<I, O> {
    Collector<I> create(Collector<? super O> downstream);
}
