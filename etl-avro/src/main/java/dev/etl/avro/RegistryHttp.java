package dev.etl.avro;

import com.fasterxml.jackson.databind.JsonNode;
import dev.etl.error.Secrets;
import dev.etl.http.BoundedHttpBody;
import java.io.IOException;
import java.net.URI;
import java.net.URISyntaxException;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.net.http.HttpTimeoutException;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import javax.net.ssl.SSLException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The bounded calls of a {@link SchemaRegistryClient}: one logical call is up to {@code maxAttempts}
 * HTTP requests, all within one {@code callTimeout}. Connection failures, timeouts, 429 and 5xx
 * answers are retried with exponential backoff (doubling up to {@code backoffMax}, ±25% jitter,
 * never sleeping past the deadline); any other 4xx answer fails at once with the registry's
 * {@code error_code}. A call that runs out of time or attempts starts the {@code unavailableCooldown}
 * ({@link #refuseWhileCoolingDown()}). Each attempt, its answer's body included, ends within its timeout,
 * and an answer longer than {@code maxResponseBytes} fails the call at once without being read further.
 * The registry's error texts and I/O messages are {@linkplain Secrets#mask masked} in every message.
 *
 * <p>Thread-safe: calls from several lanes run concurrently on the shared {@link HttpClient}; the
 * cooldown is two volatile fields (a racing call may overwrite the other's last failure, which only
 * changes a message). Interrupting a calling thread aborts the call with a
 * {@link SchemaRegistryException} and keeps the interrupt flag set.
 *
 * <p>The {@code Authorization} header is precomputed and never logged; messages name the base URL.
 */
final class RegistryHttp {
    /** The client's category: what operators configure for the registry's messages. */
    private static final Logger log = LoggerFactory.getLogger(SchemaRegistryClient.class);

    private static final String CONTENT_TYPE = "application/vnd.schemaregistry.v1+json";

    private final String baseUrl;
    private final String authorization;
    private final HttpClient http;
    private final Duration requestTimeout;
    private final Duration callTimeout;
    private final int maxAttempts;
    private final Duration backoffInitial;
    private final Duration backoffMax;
    private final long unavailableCooldownNs;
    private final int maxResponseBytes;
    private volatile long unavailableUntilNs;
    private volatile String lastUnavailability = "";

    /**
     * @param authorization the {@code Authorization} header value, or null for none
     */
    RegistryHttp(
            String baseUrl,
            String authorization,
            HttpClient http,
            Duration requestTimeout,
            Duration callTimeout,
            int maxAttempts,
            Duration backoffInitial,
            Duration backoffMax,
            Duration unavailableCooldown,
            int maxResponseBytes) {
        this.baseUrl = baseUrl;
        this.authorization = authorization;
        this.http = http;
        this.requestTimeout = requestTimeout;
        this.callTimeout = callTimeout;
        this.maxAttempts = maxAttempts;
        this.backoffInitial = backoffInitial;
        this.backoffMax = backoffMax;
        this.unavailableCooldownNs = unavailableCooldown.toNanos();
        this.maxResponseBytes = maxResponseBytes;
    }

    /**
     * Fails at once while a previous call's failure keeps the registry in its cooldown: for callers
     * that would otherwise each wait the whole call timeout during an outage.
     *
     * @throws SchemaRegistryException naming the failure that started the cooldown
     */
    void refuseWhileCoolingDown() {
        if (System.nanoTime() - unavailableUntilNs < 0) {
            throw new SchemaRegistryException(
                    "schema registry " + baseUrl + " is unavailable (cooling down after: " + lastUnavailability + ")",
                    -1,
                    -1,
                    null);
        }
    }

    /**
     * One logical call of {@code method path} with an optional JSON {@code body}: retries within
     * {@code callTimeout}; 2xx → the parsed answer, other 4xx → thrown at once.
     *
     * @param what the call, for messages (e.g. {@code schema id 7})
     * @throws SchemaRegistryException for a refused call (with status and error code), an
     *         unparseable 2xx answer, an interrupt, or when time or attempts ran out (which starts
     *         the cooldown)
     */
    JsonNode call(String method, String path, String body, String what) {
        long deadline = System.nanoTime() + callTimeout.toNanos();
        Duration backoff = backoffInitial;
        String lastFailure = "no attempt";
        Throwable lastCause = null;
        int lastStatus = -1;
        int lastCode = -1;
        for (int attempt = 1; attempt <= maxAttempts; attempt++) {
            long remainingNs = deadline - System.nanoTime();
            if (remainingNs <= 0) {
                break;
            }
            HttpRequest.Builder request = HttpRequest.newBuilder(URI.create(baseUrl + path))
                    .timeout(Duration.ofNanos(Math.min(requestTimeout.toNanos(), remainingNs)))
                    .header("Accept", CONTENT_TYPE);
            if (authorization != null) {
                request.header("Authorization", authorization);
            }
            if (body != null) {
                request.header("Content-Type", CONTENT_TYPE).method(method, HttpRequest.BodyPublishers.ofString(body));
            } else {
                request.method(method, HttpRequest.BodyPublishers.noBody());
            }
            long attemptNs = Math.min(requestTimeout.toNanos(), remainingNs);
            try {
                HttpResponse<String> response = exchange(request.build(), attemptNs, what);
                int status = response.statusCode();
                JsonNode answer = RegistryJson.parse(response.body());
                if (status >= 200 && status < 300) {
                    if (answer == null) {
                        throw new SchemaRegistryException(
                                what + ": unparseable answer from " + baseUrl, status, -1, null);
                    }
                    return answer;
                }
                int code = answer == null ? -1 : answer.path("error_code").asInt(-1);
                String message = Secrets.mask(
                        answer == null
                                ? truncate(response.body())
                                : answer.path("message").asText(""));
                if (status != 429 && status < 500) {
                    throw new SchemaRegistryException(
                            what + ": " + baseUrl + " answered " + status + (code >= 0 ? " (error " + code + ")" : "")
                                    + ": " + message,
                            status,
                            code,
                            null);
                }
                lastStatus = status;
                lastCode = code;
                lastCause = null;
                lastFailure = "answered " + status + ": " + message;
            } catch (IOException e) {
                SSLException tls = sslCause(e);
                if (tls != null) {
                    // a certificate that is not trusted or names another host does not fix itself: fail at once
                    throw new SchemaRegistryException(
                            what + ": TLS with schema registry " + redact(baseUrl) + " failed: " + tlsProblem(tls)
                                    + " (" + tls + ")",
                            -1,
                            -1,
                            e);
                }
                lastStatus = -1;
                lastCode = -1;
                lastCause = e;
                lastFailure = e.getClass().getSimpleName()
                        + (e.getMessage() == null ? "" : ": " + Secrets.mask(redactBaseUrlIn(e.getMessage())));
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new SchemaRegistryException(what + ": interrupted", -1, -1, e);
            }
            if (attempt < maxAttempts && !sleep(backoff, deadline)) {
                Thread.currentThread().interrupt();
                throw new SchemaRegistryException(what + ": interrupted", -1, -1, null);
            }
            backoff = backoff.multipliedBy(2).compareTo(backoffMax) > 0 ? backoffMax : backoff.multipliedBy(2);
        }
        String reason = what + ": " + baseUrl + " unavailable after retries within " + callTimeout.toMillis()
                + " ms; last: " + lastFailure;
        lastUnavailability = lastFailure;
        unavailableUntilNs = System.nanoTime() + unavailableCooldownNs;
        log.warn("{}", reason);
        throw new SchemaRegistryException(reason, lastStatus, lastCode, lastCause);
    }

    /**
     * One request and its whole answer within {@code attemptNs}: the request's own timeout covers only the
     * wait for the headers, so a registry (or a proxy) that trickles its body would otherwise hold the lane
     * past every bound. The body is read into at most {@code maxResponseBytes}.
     *
     * @throws HttpTimeoutException when the answer is not complete in time (retried like any timeout)
     * @throws SchemaRegistryException when the answer is longer than {@code maxResponseBytes} (not retried)
     */
    private HttpResponse<String> exchange(HttpRequest request, long attemptNs, String what)
            throws IOException, InterruptedException {
        CompletableFuture<HttpResponse<String>> answer =
                http.sendAsync(request, (info) -> new BoundedHttpBody(maxResponseBytes, info));
        try {
            return answer.get(attemptNs, TimeUnit.NANOSECONDS);
        } catch (TimeoutException e) {
            answer.cancel(true);
            throw new HttpTimeoutException(
                    "no complete answer within " + TimeUnit.NANOSECONDS.toMillis(attemptNs) + " ms");
        } catch (InterruptedException e) {
            answer.cancel(true);
            throw e;
        } catch (ExecutionException e) {
            for (Throwable t = e.getCause(); t != null; t = t.getCause() == t ? null : t.getCause()) {
                if (t instanceof BoundedHttpBody.TooLarge tooLarge) {
                    throw new SchemaRegistryException(
                            what + ": the answer of " + baseUrl + " (HTTP " + tooLarge.status() + ") is longer than "
                                    + maxResponseBytes + " bytes (" + tooLarge.getMessage()
                                    + "): not a schema registry's answer; raise SchemaRegistryClient.Builder."
                                    + "maxResponseBytes only for a registry of very many subjects",
                            -1,
                            -1,
                            null);
                }
            }
            Throwable cause = e.getCause();
            if (cause instanceof IOException io) {
                throw io;
            }
            throw new IOException(cause == null ? "failed" : cause.toString(), cause);
        }
    }

    /** Sleeps {@code backoff} with ±25% jitter, never past the deadline; false when interrupted. */
    private static boolean sleep(Duration backoff, long deadline) {
        long jittered =
                (long) (backoff.toNanos() * (0.75 + ThreadLocalRandom.current().nextDouble() * 0.5));
        long sleepNs = Math.min(jittered, deadline - System.nanoTime());
        if (sleepNs <= 0) {
            return true;
        }
        try {
            Thread.sleep(sleepNs / 1_000_000, (int) (sleepNs % 1_000_000));
            return true;
        } catch (InterruptedException e) {
            return false;
        }
    }

    static SSLException sslCause(Throwable e) {
        for (Throwable t = e; t != null; t = t.getCause() == t ? null : t.getCause()) {
            if (t instanceof SSLException ssl) {
                return ssl;
            }
        }
        return null;
    }

    /** What a failed handshake most likely means, in the user's terms. */
    static String tlsProblem(SSLException e) {
        StringBuilder text = new StringBuilder();
        for (Throwable t = e; t != null; t = t.getCause() == t ? null : t.getCause()) {
            text.append(' ').append(t.getMessage());
        }
        String all = text.toString();
        if (all.contains("No subject alternative") || all.contains("No name matching")) {
            return "the registry's certificate is not issued for the host in its URL; use a host name the certificate "
                    + "lists in its subject alternative names";
        }
        if (all.contains("PKIX") || all.contains("certification path") || all.contains("unable to find valid")) {
            return "the registry's certificate is not trusted; trust the CA that issued it (an SSL bundle in "
                    + "etl.avro.registry.ssl-bundle, or SchemaRegistryClient.Builder.trustStore / sslContext)";
        }
        if (all.contains("Unsupported or unrecognized SSL message") || all.contains("plaintext connection")) {
            return "the port does not speak TLS; is it the registry's HTTP port?";
        }
        return "the TLS handshake failed";
    }

    /**
     * {@code url} without user info ({@code https://user:secret@host} → {@code https://host}). For a URL
     * that parses with a host, exactly its user info; for one that does not (a raw {@code @}, {@code /} or
     * {@code %} in the password), everything between {@code ://} and the last {@code @}, which may take
     * some of the path along but never leaves a piece of the password.
     */
    static String redact(String url) {
        int scheme = url.indexOf("://");
        if (scheme < 0 || url.indexOf('@', scheme) < 0) {
            return url;
        }
        try {
            URI uri = new URI(url);
            if (uri.getHost() != null) {
                String userInfo = uri.getRawUserInfo();
                return userInfo == null
                        ? url
                        : url.substring(0, scheme + 3) + url.substring(scheme + 3 + userInfo.length() + 1);
            }
        } catch (URISyntaxException e) {
            // not a URI: the conservative cut below
        }
        return url.substring(0, scheme + 3) + url.substring(url.lastIndexOf('@') + 1);
    }

    /** {@code message} with the base URL replaced by its {@linkplain #redact redacted} form. */
    String redactBaseUrlIn(String message) {
        String redacted = redact(baseUrl);
        return message == null || redacted.equals(baseUrl) ? message : message.replace(baseUrl, redacted);
    }

    /** An answer body for a message: at most 200 characters. */
    static String truncate(String body) {
        return body == null ? "" : body.length() > 200 ? body.substring(0, 200) + "…" : body;
    }
}
