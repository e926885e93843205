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
 * <p>Thread-safe; one instance per sink is enough (the client pools connections per replica).
 */
public final class ClickHouseHttpTransport implements ClickHouseTransport {
    private static final Pattern CODE = Pattern.compile("Code: (\\d+)");
    static final String SUMMARY_HEADER = "X-ClickHouse-Summary";
    private static final Pattern WRITTEN_ROWS = Pattern.compile("\"written_rows\"\\s*:\\s*\"?(\\d+)");
    private static final int MAX_ERROR_TEXT = 4000;

    private final HttpClient client;
    private final Duration socketTimeout;
    private final String authorization;
    private final boolean compression;

    public ClickHouseHttpTransport(
            Duration connectTimeout, Duration socketTimeout, String user, String password, boolean compression) {
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
            String user,
            String password,
            boolean compression,
            ClickHouseTls tls) {
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
        HttpResponse<String> response = exchange(request.build());
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
        return send(request);
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

    private String send(HttpRequest request) throws ClickHouseRequestException {
        return exchange(request).body();
    }

    /** The successful answer to {@code request}; any failure as a {@link ClickHouseRequestException}. */
    private HttpResponse<String> exchange(HttpRequest request) throws ClickHouseRequestException {
        HttpResponse<String> response;
        try {
            response = client.send(request, HttpResponse.BodyHandlers.ofString(StandardCharsets.UTF_8));
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
        String exceptionCode =
                response.headers().firstValue("X-ClickHouse-Exception-Code").orElse(null);
        if (response.statusCode() == 200 && exceptionCode == null) {
            return response;
        }
        String text = response.body() == null ? "" : response.body().strip();
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
