package dev.etl.clickhouse;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.ConnectException;
import java.net.URI;
import java.net.URLEncoder;
import java.net.http.HttpClient;
import java.net.http.HttpConnectTimeoutException;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.net.http.HttpTimeoutException;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Base64;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.zip.GZIPOutputStream;
import javax.net.ssl.SSLParameters;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * ClickHouse over plain HTTP with {@link java.net.http.HttpClient} (HTTP/1.1, keep-alive): an insert
 * is one POST of the body (RowBinary rows or a Native block) with the statement and settings in the URL
 * ({@link #queryString(ClickHouseInsert)}), gzip-compressed when configured; a read is one POST of the
 * SQL. The sink's reads (capabilities, validation) always use this transport; its inserts do when
 * {@link ClickHouseSinkConfig.Transport#HTTP} is configured. Responses are never compressed (no {@code Accept-Encoding}), which is also what makes
 * reads work on 18.16.
 *
 * <p>Credentials go in a Basic {@code Authorization} header and appear in no message. The socket
 * timeout bounds the time until the response headers arrive; with {@code wait_end_of_query=1} that
 * is the whole insert.
 *
 * <p><b>A kept-alive connection the server closed.</b> ClickHouse closes a connection that stayed idle
 * for its {@code keep_alive_timeout} (3 s by default on 18.16); a request that goes out on such a pooled
 * connection in the same moment finds it closed before any byte of an answer (the JDK client resends by
 * itself only GETs). Such a request, one whose connection broke before the answer's status line arrived
 * (not a timeout, not a refused connection), is sent once more at once, on another connection. That is
 * safe for every request this transport sends: reads change nothing, and an insert goes out again with
 * the same bytes and settings (the batch's dedup token where the server knows it), exactly as the
 * engine's own retry of the batch would send it.
 *
 * <p><b>Bounded answers.</b> At most {@link #MAX_READ_ANSWER_BYTES} of a read's answer and
 * {@link #MAX_INSERT_ANSWER_BYTES} of an insert's (ClickHouse's is empty) are read; a larger answer fails
 * the request ({@link ClickHouseRequestException.Kind#IO} with the HTTP status) and is not read further.
 * An error's text is read up to {@link #MAX_ERROR_ANSWER_BYTES} and cut to {@value #MAX_ERROR_TEXT}
 * characters.
 *
 * <p>Thread-safe; one instance per sink is enough (the client pools connections per replica).
 */
public final class ClickHouseHttpTransport implements ClickHouseTransport {
    private static final Logger log = LoggerFactory.getLogger(ClickHouseHttpTransport.class);
    private static final Pattern CODE = Pattern.compile("Code: (\\d+)");
    static final String SUMMARY_HEADER = "X-ClickHouse-Summary";
    static final String EXCEPTION_CODE_HEADER = "X-ClickHouse-Exception-Code";
    private static final Pattern WRITTEN_ROWS = Pattern.compile("\"written_rows\"\\s*:\\s*\"?(\\d+)");
    private static final int MAX_ERROR_TEXT = 4000;

    /** Bytes of a read's answer (a capability, schema or placement query: kilobytes) read at most. */
    static final int MAX_READ_ANSWER_BYTES = 16 << 20;

    /** Bytes of an insert's successful answer read at most (ClickHouse sends none). */
    static final int MAX_INSERT_ANSWER_BYTES = 64 << 10;

    /** Bytes of an error's answer read at most (its text is cut to {@value #MAX_ERROR_TEXT} characters). */
    static final int MAX_ERROR_ANSWER_BYTES = 64 << 10;

    private final HttpClient client;
    private final Duration socketTimeout;
    private final String authorization;
    private final boolean compression;

    public ClickHouseHttpTransport(
            Duration connectTimeout,
            Duration socketTimeout,
            @Nullable String user,
            @Nullable String password,
            boolean compression) {
        this(connectTimeout, socketTimeout, user, password, compression, null);
    }

    /**
     * @param tls TLS towards {@code https://} replicas ({@link ClickHouseTls#sslContext()}, restricted to its
     *            protocols and ciphers), or null for the JVM's defaults; the host name in the replica URL is
     *            always verified against the server's certificate
     */
    public ClickHouseHttpTransport(
            Duration connectTimeout,
            Duration socketTimeout,
            @Nullable String user,
            @Nullable String password,
            boolean compression,
            @Nullable ClickHouseTls tls) {
        HttpClient.Builder builder =
                HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1).connectTimeout(connectTimeout);
        if (tls != null) {
            builder.sslContext(tls.sslContext());
            SSLParameters parameters = tls.sslParameters();
            if (parameters != null) {
                builder.sslParameters(parameters);
            }
        }
        this.client = builder.build();
        this.socketTimeout = socketTimeout;
        this.authorization = user == null
                ? null
                : "Basic "
                        + Base64.getEncoder()
                                .encodeToString((user + ":" + (password == null ? "" : password))
                                        .getBytes(StandardCharsets.UTF_8));
        this.compression = compression;
    }

    /** The transport for a sink's configuration. */
    public static ClickHouseHttpTransport of(ClickHouseSinkConfig config) {
        return new ClickHouseHttpTransport(
                config.connectTimeout(),
                config.socketTimeout(),
                config.user(),
                config.password(),
                config.compression(),
                config.tls());
    }

    @Override
    public long insert(URI replica, ClickHouseInsert insert, byte[] body, int length)
            throws ClickHouseRequestException {
        HttpRequest.Builder request = request(replica, queryString(insert));
        if (compression) {
            byte[] gz = gzip(body, length);
            request.header("Content-Encoding", "gzip").POST(HttpRequest.BodyPublishers.ofByteArray(gz));
        } else {
            request.POST(HttpRequest.BodyPublishers.ofByteArray(body, 0, length));
        }
        HttpResponse<BoundedAnswer.Body> response =
                exchange(replica, request.build(), MAX_INSERT_ANSWER_BYTES, "an insert's");
        return writtenRows(response.headers().firstValue(SUMMARY_HEADER).orElse(null));
    }

    /**
     * {@code written_rows} of an {@code X-ClickHouse-Summary} header value (a JSON object of quoted
     * numbers), or {@link ClickHouseTransport#WRITTEN_UNKNOWN} without one.
     */
    static long writtenRows(String summary) {
        if (summary == null) {
            return WRITTEN_UNKNOWN;
        }
        Matcher m = WRITTEN_ROWS.matcher(summary);
        return m.find() ? Long.parseLong(m.group(1)) : WRITTEN_UNKNOWN;
    }

    @Override
    public String query(URI replica, String sql) throws ClickHouseRequestException {
        HttpRequest request = request(replica, "wait_end_of_query=1&send_progress_in_http_headers=0")
                .POST(HttpRequest.BodyPublishers.ofString(sql, StandardCharsets.UTF_8))
                .build();
        return exchange(replica, request, MAX_READ_ANSWER_BYTES, "a query's")
                .body()
                .text();
    }

    private HttpRequest.Builder request(URI replica, String queryString) {
        String base = replica.toString();
        URI uri = URI.create((base.endsWith("/") ? base : base + "/") + "?" + queryString);
        HttpRequest.Builder b = HttpRequest.newBuilder(uri).timeout(socketTimeout);
        if (authorization != null) {
            b.header("Authorization", authorization);
        }
        return b;
    }

    /**
     * The successful answer to {@code request}, its body read up to {@code limit} bytes ({@code whose}
     * answer: for the message when there is more); any failure as a {@link ClickHouseRequestException}.
     */
    private HttpResponse<BoundedAnswer.Body> exchange(URI replica, HttpRequest request, int limit, String whose)
            throws ClickHouseRequestException {
        HttpResponse<BoundedAnswer.Body> response;
        try {
            response = send(replica, request, limit);
        } catch (HttpConnectTimeoutException | ConnectException e) {
            throw new ClickHouseRequestException(ClickHouseRequestException.Kind.CONNECT, -1, -1, e.toString(), e);
        } catch (HttpTimeoutException e) {
            throw new ClickHouseRequestException(ClickHouseRequestException.Kind.TIMEOUT, -1, -1, e.toString(), e);
        } catch (IOException e) {
            // java.net.http wraps a refused connection in a plain IOException whose cause is ConnectException
            ClickHouseRequestException.Kind kind = e.getCause() instanceof ConnectException
                    ? ClickHouseRequestException.Kind.CONNECT
                    : ClickHouseRequestException.Kind.IO;
            throw new ClickHouseRequestException(kind, -1, -1, e.toString(), e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new ClickHouseRequestException(ClickHouseRequestException.Kind.IO, -1, -1, "interrupted", e);
        }
        BoundedAnswer.Body body = response.body();
        String exceptionCode =
                response.headers().firstValue(EXCEPTION_CODE_HEADER).orElse(null);
        if (!BoundedAnswer.isError(response.statusCode(), response.headers())) {
            if (body.cut()) {
                throw new ClickHouseRequestException(
                        ClickHouseRequestException.Kind.IO,
                        response.statusCode(),
                        -1,
                        "answer body larger than " + body.limit() + " bytes, the most read of " + whose
                                + " answer; not read further",
                        null);
            }
            return response;
        }
        String text = body.text().strip();
        if (text.length() > MAX_ERROR_TEXT || body.cut()) {
            text = text.substring(0, Math.min(text.length(), MAX_ERROR_TEXT)) + "…";
        }
        throw new ClickHouseRequestException(
                ClickHouseRequestException.Kind.HTTP,
                response.statusCode(),
                serverCode(exceptionCode, text),
                text,
                null);
    }

    /**
     * Sends {@code request}; once more at once when its connection broke before the answer's status line
     * arrived (see the class comment), the second failure then being the request's.
     */
    private HttpResponse<BoundedAnswer.Body> send(URI replica, HttpRequest request, int limit)
            throws IOException, InterruptedException {
        BoundedAnswer first = new BoundedAnswer(limit, MAX_ERROR_ANSWER_BYTES);
        try {
            return client.send(request, first);
        } catch (IOException e) {
            if (first.answered() || e instanceof HttpTimeoutException || refused(e)) {
                throw e;
            }
            log.debug(
                    "ClickHouse replica {} closed the connection before answering ({}); sending the request again",
                    ClickHouseShardWriter.describe(replica),
                    e.toString());
            return client.send(request, new BoundedAnswer(limit, MAX_ERROR_ANSWER_BYTES));
        }
    }

    private static boolean refused(IOException e) {
        return e instanceof ConnectException || e.getCause() instanceof ConnectException;
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

    private static byte[] gzip(byte[] body, int length) {
        ByteArrayOutputStream out = new ByteArrayOutputStream(Math.max(64, length / 4));
        try (GZIPOutputStream gz = new GZIPOutputStream(out, 64 * 1024)) {
            gz.write(body, 0, length);
        } catch (IOException e) {
            throw new UncheckedIOException(e); // in-memory streams do not fail
        }
        return out.toByteArray();
    }

    /**
     * The URL query string of an insert: {@code database=…&query=INSERT INTO … FORMAT RowBinary} (or {@code Native}), then
     * every setting as {@code name=value}, values URL-encoded, in the insert's order.
     */
    static String queryString(ClickHouseInsert insert) {
        StringBuilder q = new StringBuilder(256);
        q.append("database=").append(encode(insert.database()));
        q.append("&query=").append(encode(insert.statement()));
        for (Map.Entry<String, String> e : insert.settings().entrySet()) {
            q.append('&').append(e.getKey()).append('=').append(encode(e.getValue()));
        }
        return q.toString();
    }

    /** URL-encodes a query-string value. */
    static String encode(String value) {
        return URLEncoder.encode(value, StandardCharsets.UTF_8);
    }

    @Override
    public void close() {
        // HttpClient is AutoCloseable only from Java 21; its threads are daemons and idle connections time out
    }
}
