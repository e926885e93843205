/**
 * The operator-chain API: {@link dev.etl.ops.ChainFactory}, {@link dev.etl.ops.Chains} and {@link dev.etl.ops.ChainBuilder} ({@code map}, {@code filter}, {@code flatMap}, {@code process}, {@code sink}, ...), stateful operators and their {@link dev.etl.ops.HeldAcks}. Public API; the stages behind it are package-private.
 */
@NullMarked
package dev.etl.ops;

import org.jspecify.annotations.NullMarked;
