package dev.etl.simulation;

/** A seed broke an invariant, or the simulation itself could not go on; the message says which and where. */
final class SimulationFailure extends RuntimeException {
    private static final long serialVersionUID = 1L;

    SimulationFailure(String message) {
        super(message);
    }

    SimulationFailure(String message, Throwable cause) {
        super(message, cause);
    }
}
