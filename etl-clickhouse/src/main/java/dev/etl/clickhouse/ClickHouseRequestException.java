package dev.etl.clickhouse;

import java.io.Serial;
import org.jspecify.annotations.Nullable;

/**
 * One HTTP request to one ClickHouse replica failed: it could not connect, timed out, broke off, or
 * the server answered with an error. Carries what the classification needs; raised by
 * {@link ClickHouseTransport}, turned into {@link dev.etl.error.SinkWriteException} by the writer.
 */
public final class ClickHouseRequestException extends Exception {
    @Serial
    private static final long serialVersionUID = 1L;

    /** How the request failed. */
    public enum Kind {
        /** TCP connect refused or timed out. */
        CONNECT,
        /** No answer within the socket timeout. */
        TIMEOUT,
        /**
         * The connection broke (reset, EOF) before an answer; or, with an HTTP {@link #status()}, the answer
         * could not be read whole (a body larger than the transport reads).
         */
        IO,
        /** The server answered with a non-200 status (or an exception header). */
        HTTP
    }

    private final Kind kind;
    private final int status;
    private final int serverCode;
    private final String serverText;

    public ClickHouseRequestException(
            Kind kind, int status, int serverCode, String serverText, @Nullable Throwable cause) {
        super(
                kind + (status > 0 ? " HTTP " + status : "") + (serverCode >= 0 ? " code " + serverCode : "") + ": "
                        + serverText,
                cause);
        this.kind = kind;
        this.status = status;
        this.serverCode = serverCode;
        this.serverText = serverText;
    }

    public Kind kind() {
        return kind;
    }

    /** HTTP status, or -1 when there was no answer. */
    public int status() {
        return status;
    }

    /** ClickHouse error code ({@code Code: N} in the body or {@code X-ClickHouse-Exception-Code}), or -1. */
    public int serverCode() {
        return serverCode;
    }

    /** The server's own error text (or the client-side cause's description). */
    public String serverText() {
        return serverText;
    }
}
