package dev.etl.test.infra;

/**
 * A statement sent through {@link ClickHouseHttp} failed. The message names the instance, the
 * statement and the server's error text.
 */
public final class ClickHouseHttpException extends RuntimeException {

    private static final long serialVersionUID = 1L;

    private final String replicaUrl;
    private final int statusCode;

    /**
     * Creates an exception.
     * @param replicaUrl the instance the statement went to
     * @param sql the statement
     * @param statusCode the HTTP status, or {@code -1} when there was no answer
     * @param detail the server's error text or the connection failure
     * @param cause the underlying failure, or {@code null}
     */
    public ClickHouseHttpException(String replicaUrl, String sql, int statusCode, String detail, Throwable cause) {
        super(
                "ClickHouse " + replicaUrl + (statusCode > 0 ? " answered HTTP " + statusCode : " failed") + " for ["
                        + abbreviate(sql) + "]: " + detail,
                cause);
        this.replicaUrl = replicaUrl;
        this.statusCode = statusCode;
    }

    private static String abbreviate(String sql) {
        String oneLine = sql.strip().replaceAll("\\s+", " ");
        return (oneLine.length() <= 300) ? oneLine : oneLine.substring(0, 300) + "…";
    }

    /**
     * Returns the instance the statement went to.
     * @return its HTTP base URL
     */
    public String replicaUrl() {
        return replicaUrl;
    }

    /**
     * Returns the HTTP status the server answered with.
     * @return the status, or {@code -1} when the server could not be reached
     */
    public int statusCode() {
        return statusCode;
    }
}
