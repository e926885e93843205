package dev.etl.clickhouse;

import com.clickhouse.client.api.Client;
import com.clickhouse.client.api.ClientFaultCause;
import com.clickhouse.client.api.ConnectionInitiationException;
import com.clickhouse.client.api.DataTransferException;
import com.clickhouse.client.api.ServerException;
import com.clickhouse.client.api.insert.InsertResponse;
import com.clickhouse.client.api.insert.InsertSettings;
import com.clickhouse.data.ClickHouseFormat;
import java.io.ByteArrayInputStream;
import java.io.InterruptedIOException;
import java.net.ConnectException;
import java.net.NoRouteToHostException;
import java.net.SocketException;
import java.net.SocketTimeoutException;
import java.net.URI;
import java.net.UnknownHostException;
import java.time.Duration;
import java.time.temporal.ChronoUnit;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.apache.hc.core5.http.NoHttpResponseException;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Inserts through ClickHouse's Java client-v2 (0.10.0): per batch one
 * {@code client.insert(`db`.`table`, [`a`, `b`, …], InputStream over the bytes, RowBinary or Native, InsertSettings)}
 * with the insert's {@linkplain ClickHouseInsert#quotedColumns() column list} (client-v2 puts the names into
 * its statement as given, {@code INSERT INTO `db`.`table` (`a`, `b` ) FORMAT RowBinary}; an insert without
 * columns uses the overload without a list) and every setting of the {@link ClickHouseInsert} as a server
 * setting, waited for with a bound. Reads
 * ({@link #query}) go through a raw {@link ClickHouseHttpTransport}: client-v2 0.10.0's typed reads fail
 * against ClickHouse 18.16 (SPEC §8).
 *
 * <p><b>Clients.</b> One {@link Client} per replica endpoint ({@code scheme://host:port}), built on first
 * use and reused (it pools keep-alive connections): credentials, connect and socket timeouts from the
 * sink's configuration, {@code compressServerResponse(false)}, client-side request compression
 * (ClickHouse LZ4 framing, {@code decompress=1}) when configured, synchronous requests on the caller's
 * thread, and <em>no</em> client retries — the engine owns retries, and a retry must go to the next
 * replica, not silently to the same one. The client asks for no progress headers; the writer sends
 * {@code send_progress_in_http_headers=0} anyway. For {@code https://} endpoints it trusts the
 * {@link ClickHouseTls#trustedCertificates()} (or the JVM's trust store) and verifies the host name
 * (client-v2's {@code STRICT} SSL mode, its default).
 *
 * <p><b>Errors</b> become {@link ClickHouseRequestException}s with the same inputs the HTTP transport
 * provides ({@link #toRequestException}): a {@link ServerException} → {@code HTTP} with its status and
 * code (ClickHouse 18.16 sends no {@code X-ClickHouse-Exception-Code} header, so client-v2 reports code 0
 * and the code is read from the {@code Code: N} in the server's text) and the server's text; a
 * connection failure → {@code CONNECT}; a socket or wait timeout → {@code TIMEOUT}; any other client
 * failure → {@code IO}.
 *
 * <p><b>A kept-alive connection the server closed</b> ({@code keep_alive_timeout}, 3 s by default on
 * 18.16): Apache HttpClient, under client-v2, keeps a connection for the {@code Keep-Alive: timeout} the
 * server announces, counted from when it got the connection back, a little after the server started
 * counting; an insert that goes out on it in those last milliseconds finds it closed. An insert whose
 * connection broke before any answer ({@link #closedBeforeAnswer}) is sent once more at once, on another
 * connection, with the same bytes and settings (the engine's retry of the batch would send the same).
 * client-v2's own retries stay off.
 *
 * <p><b>Answers</b> are client-v2's to read: it does not keep a successful insert's body (it drains it to
 * reuse the connection) and reads at most 1 KiB of an error without an {@code X-ClickHouse-Exception-Code}
 * header (18.16 sends none); with that header it reads the whole error body into memory, which this class
 * cannot bound (use {@link ClickHouseSinkConfig.Transport#HTTP} against servers you do not trust).
 *
 * <p>Thread-safe. {@link #close()} closes every client; a later insert builds a new one (the sink
 * closes its transport after its last writer closed).
 */
final class ClickHouseClientV2Transport implements ClickHouseTransport {
    private static final Logger log = LoggerFactory.getLogger(ClickHouseClientV2Transport.class);
    private static final Pattern CODE = Pattern.compile("Code: (\\d+)");
    /** client-v2 appends this to the server's text. */
    private static final Pattern TRANSPORT_SUFFIX = Pattern.compile("\\s*\\(transport error: \\d+\\)\\s*$");

    private static final int MAX_ERROR_TEXT = 4000;

    private final ClickHouseTransport reads;
    private final Duration connectTimeout;
    private final Duration socketTimeout;
    private final String user;
    private final String password;
    private final boolean compression;
    private final long waitMillis;
    private final ClickHouseTls tls;
    private final ConcurrentHashMap<String, Client> clients = new ConcurrentHashMap<>();

    /**
     * @param connectTimeout TCP connect timeout
     * @param socketTimeout  how long to wait for the server's answer (the whole insert with
     *                       {@code wait_end_of_query=1})
     * @param user           user name, or null for {@code default}
     * @param password       password, or null for none
     * @param compression    whether insert bodies are LZ4-compressed by the client
     * @param reads          the transport reads go to (raw HTTP); closed with this one
     */
    public ClickHouseClientV2Transport(
            Duration connectTimeout,
            Duration socketTimeout,
            @Nullable String user,
            @Nullable String password,
            boolean compression,
            ClickHouseTransport reads) {
        this(connectTimeout, socketTimeout, user, password, compression, null, reads);
    }

    /**
     * @param tls TLS towards {@code https://} replicas, or null for the JVM's default trust store: client-v2
     *            trusts {@link ClickHouseTls#trustedCertificates()} (handed over as PEM text, in memory) and
     *            verifies the host name; a {@code tls} with a client certificate or restricted protocols or
     *            ciphers is refused (client-v2 cannot take them from an {@code SSLContext})
     * @throws IllegalArgumentException for such a {@code tls}
     */
    public ClickHouseClientV2Transport(
            Duration connectTimeout,
            Duration socketTimeout,
            @Nullable String user,
            @Nullable String password,
            boolean compression,
            @Nullable ClickHouseTls tls,
            ClickHouseTransport reads) {
        if (tls != null && tls.clientCertificate()) {
            throw new IllegalArgumentException("client-v2 inserts cannot present a client certificate (mutual TLS) "
                    + "from an SSLContext; use the HTTP transport");
        }
        if (tls != null && tls.restrictsParameters()) {
            throw new IllegalArgumentException("client-v2 inserts cannot be restricted to TLS protocols "
                    + tls.protocols() + " / ciphers " + tls.ciphers() + "; use the HTTP transport");
        }
        this.tls = tls;
        this.connectTimeout = Objects.requireNonNull(connectTimeout, "connectTimeout");
        this.socketTimeout = Objects.requireNonNull(socketTimeout, "socketTimeout");
        this.user = user;
        this.password = password;
        this.compression = compression;
        this.reads = Objects.requireNonNull(reads, "reads");
        // synchronous requests complete before insert(...) returns; the bound only matters if that changes
        this.waitMillis = connectTimeout.toMillis() + socketTimeout.toMillis() + 5_000;
    }

    /** The transport for a sink's configuration (reads through {@link ClickHouseHttpTransport#of}). */
    public static ClickHouseClientV2Transport of(ClickHouseSinkConfig config) {
        return new ClickHouseClientV2Transport(
                config.connectTimeout(),
                config.socketTimeout(),
                config.user(),
                config.password(),
                config.compression(),
                config.tls(),
                ClickHouseHttpTransport.of(config));
    }

    @Override
    public long insert(URI replica, ClickHouseInsert insert, byte[] body, int length)
            throws ClickHouseRequestException {
        Client client = client(replica);
        InsertSettings settings = insertSettings(insert);
        try {
            return insert(client, insert, settings, body, length);
        } catch (ClickHouseRequestException e) {
            if (!closedBeforeAnswer(e)) {
                throw e;
            }
            log.debug(
                    "ClickHouse replica {} closed the connection before answering ({}); sending the insert again",
                    ClickHouseShardWriter.describe(replica),
                    e.getMessage());
            return insert(client, insert, settings, body, length);
        }
    }

    /**
     * Whether the insert's connection broke before any answer arrived: client-v2 (Apache HttpClient) says
     * {@link NoHttpResponseException} when the connection closed before the status line, and a
     * {@link SocketException} (broken pipe, reset) when it broke while the body was being sent — a kept-alive
     * connection the server had closed, with a body larger than the socket's buffers. A refused
     * connection, a timeout or an answer are not.
     */
    static boolean closedBeforeAnswer(ClickHouseRequestException e) {
        if (e.kind() != ClickHouseRequestException.Kind.IO || e.getCause() == null) {
            return false;
        }
        Throwable cause = e.getCause();
        return hasCause(cause, NoHttpResponseException.class)
                || (hasCause(cause, SocketException.class) && !hasCause(cause, ConnectException.class));
    }

    private long insert(Client client, ClickHouseInsert insert, InsertSettings settings, byte[] body, int length)
            throws ClickHouseRequestException {
        CompletableFuture<InsertResponse> future = null;
        try {
            // client-v2 writes "INSERT INTO <table> (<names joined by ", ">) FORMAT <format>" with the names as
            // given (no quoting of its own), so they go in backquoted; without names it writes no list
            future = insert.columns().isEmpty()
                    ? client.insert(
                            insert.quotedTable(),
                            new ByteArrayInputStream(body, 0, length),
                            format(insert.format()),
                            settings)
                    : client.insert(
                            insert.quotedTable(),
                            insert.quotedColumns(),
                            new ByteArrayInputStream(body, 0, length),
                            format(insert.format()),
                            settings);
            try (InsertResponse response = future.get(waitMillis, TimeUnit.MILLISECONDS)) {
                return writtenRows(response.getResponseHeaders());
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            future.cancel(true);
            throw new ClickHouseRequestException(ClickHouseRequestException.Kind.IO, -1, -1, "interrupted", e);
        } catch (TimeoutException e) {
            future.cancel(true);
            throw toRequestException(e);
        } catch (ExecutionException e) {
            throw toRequestException(e.getCause() == null ? e : e.getCause());
        } catch (RuntimeException e) {
            // synchronous mode: client-v2 throws from insert(...) itself
            throw toRequestException(e);
        }
    }

    /** client-v2's name of an insert format. */
    static ClickHouseFormat format(InsertFormat format) {
        return switch (format) {
            case ROW_BINARY -> ClickHouseFormat.RowBinary;
            case NATIVE -> ClickHouseFormat.Native;
        };
    }

    /** {@code written_rows} of the answer's {@code X-ClickHouse-Summary} header (any case), or unknown. */
    static long writtenRows(Map<String, String> headers) {
        if (headers != null) {
            for (Map.Entry<String, String> header : headers.entrySet()) {
                if (ClickHouseHttpTransport.SUMMARY_HEADER.equalsIgnoreCase(header.getKey())) {
                    return ClickHouseHttpTransport.writtenRows(header.getValue());
                }
            }
        }
        return WRITTEN_UNKNOWN;
    }

    @Override
    public String query(URI replica, String sql) throws ClickHouseRequestException {
        return reads.query(replica, sql);
    }

    /** Every setting of the insert as a client-v2 server setting; the database for the request. */
    static InsertSettings insertSettings(ClickHouseInsert insert) {
        InsertSettings settings = new InsertSettings().setDatabase(insert.database());
        for (Map.Entry<String, String> e : insert.settings().entrySet()) {
            settings.serverSetting(e.getKey(), e.getValue());
        }
        return settings;
    }

    private Client client(URI replica) {
        String endpoint = ClickHouseShardWriter.describe(replica);
        Client client = clients.get(endpoint);
        return client != null ? client : clients.computeIfAbsent(endpoint, this::newClient);
    }

    private Client newClient(String endpoint) {
        Client.Builder builder = new Client.Builder();
        if (tls != null && !tls.trustedCertificates().isEmpty()) {
            // client-v2 reads a value that contains "-----BEGIN" as the certificates themselves, not as a path;
            // its default SSL mode (STRICT) verifies the chain and the host name
            builder.setRootCertificate(tls.trustedCertificatesPem());
        }
        return builder.addEndpoint(endpoint)
                .setUsername(user == null ? "default" : user)
                .setPassword(password == null ? "" : password)
                .setConnectTimeout(connectTimeout.toMillis(), ChronoUnit.MILLIS)
                .setSocketTimeout(socketTimeout.toMillis(), ChronoUnit.MILLIS)
                .compressServerResponse(false)
                .compressClientRequest(compression)
                .useAsyncRequests(false)
                .retryOnFailures(ClientFaultCause.None)
                .setMaxRetries(0)
                .build();
    }

    /**
     * Maps a client-v2 failure to the classification inputs: server answer (status, code, text),
     * connect failure, timeout, or broken exchange.
     */
    static ClickHouseRequestException toRequestException(Throwable e) {
        if (e instanceof ServerException s) {
            String text = serverText(s.getMessage());
            int code = s.getCode() > 0 ? s.getCode() : parseCode(text);
            return new ClickHouseRequestException(
                    ClickHouseRequestException.Kind.HTTP, s.getTransportProtocolCode(), code, text, e);
        }
        if (e instanceof TimeoutException) {
            return new ClickHouseRequestException(
                    ClickHouseRequestException.Kind.TIMEOUT, -1, -1, "no answer within the wait bound: " + e, e);
        }
        ClickHouseRequestException.Kind kind;
        if (hasCause(e, NoHttpResponseException.class)) {
            kind = ClickHouseRequestException.Kind.IO; // the server closed the connection without an answer
        } else if (e instanceof ConnectionInitiationException
                || hasCause(e, ConnectException.class)
                || hasCause(e, NoRouteToHostException.class)
                || hasCause(e, UnknownHostException.class)) {
            kind = ClickHouseRequestException.Kind.CONNECT;
        } else if (hasCause(e, SocketTimeoutException.class)
                || (e instanceof DataTransferException && hasCause(e, InterruptedIOException.class))) {
            kind = ClickHouseRequestException.Kind.TIMEOUT;
        } else {
            kind = ClickHouseRequestException.Kind.IO;
        }
        return new ClickHouseRequestException(kind, -1, -1, describe(e), e);
    }

    /** The server's text without client-v2's {@code (transport error: N)} suffix, bounded. */
    static String serverText(String message) {
        String text = message == null
                ? ""
                : TRANSPORT_SUFFIX.matcher(message.strip()).replaceFirst("").strip();
        return text.length() > MAX_ERROR_TEXT ? text.substring(0, MAX_ERROR_TEXT) + "…" : text;
    }

    private static int parseCode(String text) {
        Matcher m = CODE.matcher(text);
        return m.find() ? Integer.parseInt(m.group(1)) : -1;
    }

    private static boolean hasCause(Throwable e, Class<? extends Throwable> type) {
        for (Throwable t = e; t != null; t = t.getCause() == t ? null : t.getCause()) {
            if (type.isInstance(t)) {
                return true;
            }
        }
        return false;
    }

    /** The client's message and the root cause, e.g. "Insert request failed (…): …HttpHostConnectException: …". */
    private static String describe(Throwable e) {
        Throwable root = e;
        while (root.getCause() != null && root.getCause() != root) {
            root = root.getCause();
        }
        return root == e ? e.toString() : e.getMessage() + ": " + root;
    }

    @Override
    public void close() {
        for (String endpoint : clients.keySet()) {
            Client client = clients.remove(endpoint);
            if (client != null) {
                client.close();
            }
        }
        reads.close();
    }
}
