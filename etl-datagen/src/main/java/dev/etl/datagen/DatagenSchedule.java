package dev.etl.datagen;

/**
 * How many records of each partition exist at a point in time: all of them for an unlimited rate, else
 * an open-loop schedule at {@code ratePerSecond} over all partitions from {@code startNs} — the way a
 * producer fills a topic, whatever the pipeline does. Record {@code i} of the run (its id,
 * {@code sequence × partitions + partition}) exists from {@code (i + 1) × 10⁹ / rate} ns after the start, so
 * the partitions fill evenly and the total is exact at any time.
 *
 * <p>Immutable, thread-safe.
 */
final class DatagenSchedule {
    private static final long NS_PER_SECOND = 1_000_000_000L;
    /** Above this the exact integer arithmetic below could overflow; far above what one process generates. */
    static final long MAX_RATE = 1_000_000_000L;

    private final int partitions;
    private final long ratePerSecond;

    DatagenSchedule(int partitions, long ratePerSecond) {
        if (ratePerSecond < 0 || ratePerSecond > MAX_RATE) {
            throw new IllegalArgumentException(
                    "rate must be in [0, " + MAX_RATE + "] records/s (0: unlimited), got " + ratePerSecond);
        }
        this.partitions = partitions;
        this.ratePerSecond = ratePerSecond;
    }

    boolean isLimited() {
        return ratePerSecond > 0;
    }

    long ratePerSecond() {
        return ratePerSecond;
    }

    /** Records of the whole run scheduled {@code elapsedNs} after the start: {@code floor(elapsed × rate / 10⁹)}. */
    long total(long elapsedNs) {
        if (elapsedNs <= 0) {
            return 0;
        }
        long seconds = elapsedNs / NS_PER_SECOND;
        long rest = elapsedNs % NS_PER_SECOND;
        // rest × rate ≤ 10⁹ × 10⁹ < 2⁶³: exact
        return seconds * ratePerSecond + rest * ratePerSecond / NS_PER_SECOND;
    }

    /** Records of {@code partition} scheduled {@code elapsedNs} after the start (Long.MAX_VALUE when unlimited). */
    long scheduled(int partition, long elapsedNs) {
        if (ratePerSecond == 0) {
            return Long.MAX_VALUE;
        }
        long total = total(elapsedNs);
        return total <= partition ? 0 : (total - partition - 1) / partitions + 1;
    }

    /** Nanoseconds after the start at which record {@code sequence} of {@code partition} is scheduled (approximate). */
    double dueNs(int partition, long sequence) {
        double index = (double) sequence * partitions + partition;
        return (index + 1) * NS_PER_SECOND / ratePerSecond;
    }
}
