package dev.etl.internal.backpressure;

/**
 * One lane's pause/resume decision with hysteresis.
 *
 * <p>The lane pauses its partitions when a chunk is pending (a shard queue or the budget refused
 * it) or the in-flight budget is at least {@code pauseAbove} full. It resumes only when nothing is
 * pending, utilisation is at most {@code resumeBelow}, and the pause has lasted {@code minPauseNs}:
 * the gap between the two thresholds and the minimum duration keep a lane from flapping on every
 * chunk. Pausing never blocks: the lane keeps polling (which, paused, returns no records but keeps
 * the consumer's group membership alive).
 *
 * <p>Pure decision logic, confined to its lane thread; the lane applies the result.
 */
public final class PauseController {
    private final InFlightBudget budget;
    private final double pauseAbove;
    private final double resumeBelow;
    private final long minPauseNs;
    private boolean paused;
    private long pausedAtNs;
    private long pauseCount;

    public PauseController(InFlightBudget budget, double pauseAbove, double resumeBelow, long minPauseNs) {
        if (!(resumeBelow < pauseAbove)) {
            throw new IllegalArgumentException(
                    "resume-below (" + resumeBelow + ") must be < pause-above (" + pauseAbove + ")");
        }
        this.budget = budget;
        this.pauseAbove = pauseAbove;
        this.resumeBelow = resumeBelow;
        this.minPauseNs = minPauseNs;
    }

    /** What the lane should do now. */
    public enum Decision {
        NONE,
        PAUSE,
        RESUME
    }

    /**
     * Updates the state for the current situation and says whether the lane must pause or resume its
     * partitions now.
     *
     * @param pendingChunks whether the lane holds a chunk a sink refused
     * @param nowNs         {@link System#nanoTime()}
     */
    public Decision evaluate(boolean pendingChunks, long nowNs) {
        double utilization = budget.utilization();
        if (!paused) {
            if (pendingChunks || utilization >= pauseAbove) {
                paused = true;
                pausedAtNs = nowNs;
                pauseCount++;
                return Decision.PAUSE;
            }
            return Decision.NONE;
        }
        if (!pendingChunks && utilization <= resumeBelow && nowNs - pausedAtNs >= minPauseNs) {
            paused = false;
            return Decision.RESUME;
        }
        return Decision.NONE;
    }

    public boolean isPaused() {
        return paused;
    }

    /** Number of pauses so far. */
    public long pauseCount() {
        return pauseCount;
    }
}
