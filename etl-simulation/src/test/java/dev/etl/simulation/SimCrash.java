package dev.etl.simulation;

/**
 * Thrown at a wait of an engine thread whose simulated process was killed (and by the simulated servers
 * to a dead process): unwinds the frozen thread once the seed is over. An {@link Error}, so the engine's
 * own {@code catch (RuntimeException)} blocks do not take it for a failure to handle.
 */
final class SimCrash extends Error {
    private static final long serialVersionUID = 1L;

    SimCrash() {
        super("simulated process killed", null, false, false);
    }
}
