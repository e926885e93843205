package dev.etl.test.infra;

/**
 * Thrown when a local server a test needs is not answering and could not be started.
 *
 * <p>The message names the server, what was probed, and where the start script's output and the
 * server's logs are, so a failed test says what to look at.
 */
public final class InfraUnavailableException extends RuntimeException {

    private static final long serialVersionUID = 1L;

    private final InfraServer server;

    /**
     * Creates an exception for the given server.
     * @param server the server that is unavailable, or {@code null} when the failure is not tied to
     * one server (for example an unreadable {@code endpoints.properties})
     * @param message what failed and where to look
     * @param cause the underlying failure, or {@code null}
     */
    public InfraUnavailableException(InfraServer server, String message, Throwable cause) {
        super(message, cause);
        this.server = server;
    }

    /**
     * Returns the server that is unavailable.
     * @return the server, or {@code null} when the failure is not tied to one server
     */
    public InfraServer server() {
        return this.server;
    }
}
