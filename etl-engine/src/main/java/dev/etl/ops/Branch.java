package dev.etl.ops;

/**
 * One output of {@link ChainBuilder#fanOut}: extends the given sub-builder and ends it with a
 * terminal ({@code sink} or a nested {@code fanOut}), returning what that terminal returned.
 *
 * <pre>{@code
 * .fanOut(b -> b.sink("orders", ORDER_ROW, byOrderId),
 *         b -> b.filter("large", o -> o.amountCents() > 100_000).map("to-audit", AuditRow::of)
 *               .sink("audit", AUDIT_ROW, KeyHashRouter.byRecordKey()))
 * }</pre>
 *
 * <p>Called once, at build time, on the lane thread. The {@link Chain} a branch's terminal returns is
 * a marker for {@code fanOut}, not a runnable chain.
 *
 * @param <T> the value type every branch receives
 */
@FunctionalInterface
public interface Branch<T> {
    /** Builds this output on {@code branch} and returns its terminal's result. */
    Chain build(ChainBuilder<T> branch);
}
