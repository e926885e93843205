package dev.etl.autoconfigure.clickhouse;

import dev.etl.clickhouse.ClickHouseInsert;
import dev.etl.clickhouse.ClickHouseRequestException;
import dev.etl.clickhouse.ClickHouseSinkConfig;
import dev.etl.clickhouse.ClickHouseTls;
import dev.etl.clickhouse.ClickHouseTransport;
import dev.etl.error.Secrets;
import dev.etl.http.BoundedHttpBody;
import java.net.ConnectException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpConnectTimeoutException;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.net.http.HttpTimeoutException;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Base64;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import javax.net.ssl.SSLParameters;

/**
 * The {@code etlplacement} endpoint's reads of one sink's replicas. The placement check evaluates the
 * Distributed table's own sharding expression, which the server supplies: every query is sent with
 * {@code readonly=1} in the URL, so the server refuses table functions (no request to another host, no
 * file read), writes and settings changes whatever the expression holds (a {@code SETTINGS readonly} in the
 * SQL is applied too late on 18.16 to stop a table function). One HTTP client per sink for the endpoint's
 * lifetime (a {@code java.net.http.HttpClient} is never closed on Java 17: one per request would leave a
 * selector thread each); an answer is read into at most {@value #MAX_ANSWER_BYTES} bytes, all of it within
 * the sink's socket timeout; server texts are {@linkplain Secrets#mask masked}. Inserts are refused.
 *
 * <p>Thread-safe.
 */
final class PlacementQueries implements ClickHouseTransport {

    /** The longest answer read: the placement's answers are a line per sample key. */
    static final int MAX_ANSWER_BYTES = 1 << 20;

    private static final String QUERY_STRING = "readonly=1&wait_end_of_query=1&send_progress_in_http_headers=0";
    private static final Pattern CODE = Pattern.compile("Code: (\\d+)");
    private static final int MAX_ERROR_TEXT = 4000;

    private final HttpClient client;
    private final Duration socketTimeout;
    private final String authorization;

    PlacementQueries(ClickHouseSinkConfig config) {
        HttpClient.Builder builder =
                HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1).connectTimeout(config.connectTimeout());
        ClickHouseTls tls = config.tls();
        if (tls != null) {
            builder.sslContext(tls.sslContext());
            SSLParameters parameters = tls.sslParameters();
            if (parameters != null) {
                builder.sslParameters(parameters);
            }
        }
        this.client = builder.build();
        this.socketTimeout = config.socketTimeout();
        this.authorization = (config.user() != null)
                ? "Basic "
                        + Base64.getEncoder()
                                .encodeToString(
                                        (config.user() + ":" + ((config.password() != null) ? config.password() : ""))
                                                .getBytes(StandardCharsets.UTF_8))
                : null;
    }

    @Override
    public long insert(URI replica, ClickHouseInsert insert, byte[] body, int length) {
        throw new UnsupportedOperationException("the etlplacement endpoint only reads");
    }

    @Override
    public String query(URI replica, String sql) throws ClickHouseRequestException {
        String base = replica.toString();
        HttpRequest.Builder request = HttpRequest.newBuilder(
                        URI.create((base.endsWith("/") ? base : base + "/") + "?" + QUERY_STRING))
                .timeout(this.socketTimeout)
                .POST(HttpRequest.BodyPublishers.ofString(sql, StandardCharsets.UTF_8));
        if (this.authorization != null) {
            request.header("Authorization", this.authorization);
        }
        HttpResponse<String> response = exchange(request.build());
        String exceptionCode =
                response.headers().firstValue("X-ClickHouse-Exception-Code").orElse(null);
        if (response.statusCode() == 200 && exceptionCode == null) {
            return response.body();
        }
        String text = Secrets.mask(response.body().strip());
        if (text.length() > MAX_ERROR_TEXT) {
            text = text.substring(0, MAX_ERROR_TEXT) + "…";
        }
        throw new ClickHouseRequestException(
                ClickHouseRequestException.Kind.HTTP,
                response.statusCode(),
                serverCode(exceptionCode, text),
                text,
                null);
    }

    private HttpResponse<String> exchange(HttpRequest request) throws ClickHouseRequestException {
        CompletableFuture<HttpResponse<String>> answer =
                this.client.sendAsync(request, (info) -> new BoundedHttpBody(MAX_ANSWER_BYTES, info));
        try {
            return answer.get(this.socketTimeout.toNanos(), TimeUnit.NANOSECONDS);
        } catch (TimeoutException ex) {
            answer.cancel(true);
            throw new ClickHouseRequestException(
                    ClickHouseRequestException.Kind.TIMEOUT,
                    -1,
                    -1,
                    "no complete answer within " + this.socketTimeout.toMillis() + " ms",
                    null);
        } catch (InterruptedException ex) {
            answer.cancel(true);
            Thread.currentThread().interrupt();
            throw new ClickHouseRequestException(ClickHouseRequestException.Kind.IO, -1, -1, "interrupted", ex);
        } catch (ExecutionException ex) {
            Throwable cause = (ex.getCause() != null) ? ex.getCause() : ex;
            if (cause instanceof BoundedHttpBody.TooLarge tooLarge) {
                throw new ClickHouseRequestException(
                        ClickHouseRequestException.Kind.IO,
                        tooLarge.status(),
                        -1,
                        "the answer is longer than " + MAX_ANSWER_BYTES + " bytes (" + tooLarge.getMessage()
                                + "): not read",
                        null);
            }
            ClickHouseRequestException.Kind kind = (cause instanceof HttpConnectTimeoutException
                            || cause instanceof ConnectException
                            || cause.getCause() instanceof ConnectException)
                    ? ClickHouseRequestException.Kind.CONNECT
                    : (cause instanceof HttpTimeoutException)
                            ? ClickHouseRequestException.Kind.TIMEOUT
                            : ClickHouseRequestException.Kind.IO;
            // no cause: its message may quote what the masked text leaves out
            throw new ClickHouseRequestException(kind, -1, -1, Secrets.mask(cause.toString()), null);
        }
    }

    static int serverCode(String header, String text) {
        if (header != null) {
            try {
                return Integer.parseInt(header.trim());
            } catch (NumberFormatException ignored) {
                // fall back to the body
            }
        }
        Matcher m = CODE.matcher(text);
        return m.find() ? Integer.parseInt(m.group(1)) : -1;
    }
}
