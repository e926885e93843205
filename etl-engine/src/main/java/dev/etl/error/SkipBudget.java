package dev.etl.error;

import java.time.Duration;
import java.util.Objects;

/**
 * How much a pipeline may skip before {@code SKIP} (or {@code DEAD_LETTER}) stops being a policy for
 * the odd bad record and becomes silent loss: when, within one {@code window}, the records of one
 * {@link ErrorClass} skipped or dead-lettered exceed {@code maxRatio} of the records received, and at
 * least {@code minRecords} were received, the pipeline fails naming the class, the counts and this
 * budget.
 *
 * <p>Counted twice, and either trips it: per lane (each lane's own plain counters: a partition is read
 * by one lane, so a poison partition trips its lane's budget even when healthy lanes would dilute the
 * pipeline's ratio) and for the whole pipeline (all lanes together, one atomic add per batch: many
 * lanes that each receive fewer than {@code minRecords} still trip it together). Windows are tumbling:
 * counts reset when a window has passed <em>and</em> seen at least {@code minRecords} records, so on a
 * topic too slow to bring that many within {@code window} a window lasts until it has: the budget applies
 * to slow topics too (a trickle that is all bad trips it after {@code minRecords} records, however long
 * they take), instead of never.
 *
 * @param enabled    false: never fail for skipping (each skip is still counted and logged)
 * @param maxRatio   share of received records, in [0, 1), that may be skipped per window and class
 * @param window     length of a counting window
 * @param minRecords records a lane must have received in the window before the budget applies (a
 *                   handful of records, one of them bad, is not a trend)
 */
public record SkipBudget(boolean enabled, double maxRatio, Duration window, long minRecords) {
    /** More than half of at least 100 records in a minute, per lane or pipeline-wide, per error class. */
    public static final SkipBudget DEFAULT = new SkipBudget(true, 0.5, Duration.ofMinutes(1), 100);

    /** Never fails a pipeline for skipping. */
    public static final SkipBudget DISABLED = new SkipBudget(false, 0.5, Duration.ofMinutes(1), 100);

    public SkipBudget {
        Objects.requireNonNull(window, "window");
        if (!(maxRatio >= 0 && maxRatio < 1)) {
            throw new IllegalArgumentException("skip-budget max-ratio must be in [0, 1), got " + maxRatio
                    + " (disable the budget instead of allowing every record to be skipped)");
        }
        if (window.isNegative() || window.isZero()) {
            throw new IllegalArgumentException("skip-budget window must be > 0, got " + window);
        }
        if (minRecords < 1) {
            throw new IllegalArgumentException("skip-budget min-records must be >= 1, got " + minRecords);
        }
    }

    /** Human-readable form used in failure messages. */
    public String describe() {
        return "more than " + percent(maxRatio) + " of at least " + minRecords + " records in a "
                + window.toString().substring(2).toLowerCase(java.util.Locale.ROOT)
                + " window, per lane or pipeline-wide, per error type";
    }

    static String percent(double ratio) {
        double p = ratio * 100;
        return (p == Math.rint(p) ? String.valueOf((long) p) : String.format(java.util.Locale.ROOT, "%.1f", p)) + "%";
    }
}
