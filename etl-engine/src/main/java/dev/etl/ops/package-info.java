/**
 * The operator-chain API: {@link dev.etl.ops.ChainFactory}, {@link dev.etl.ops.Chains} and {@link dev.etl.ops.ChainBuilder} ({@code map}, {@code filter}, {@code flatMap}, {@code process}, {@code sink}, ...), the functions they take, {@link dev.etl.ops.StatefulOperator}s (with {@link dev.etl.ops.BatchPerKey} and {@link dev.etl.ops.DedupPerKey}), their {@link dev.etl.ops.OperatorContext}, {@link dev.etl.ops.OperatorTimer} and {@link dev.etl.ops.HeldAcks}. Public API, every type of it; the stages behind it are in the engine's internals.
 */
@NullMarked
package dev.etl.ops;

import org.jspecify.annotations.NullMarked;
