package dev.etl.avro;

import com.fasterxml.jackson.databind.JsonNode;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.concurrent.ThreadLocalRandom;
import javax.net.ssl.SSLException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The bounded calls of a {@link SchemaRegistryClient}: one logical call is up to {@code maxAttempts}
 * HTTP requests, all within one {@code callTimeout}. Connection failures, timeouts, 429 and 5xx
 * answers are retried with exponential backoff (doubling up to {@code backoffMax}, ±25% jitter,
 * never sleeping past the deadline); any other 4xx answer fails at once with the registry's
 * {@code error_code}. A call that runs out of time or attempts starts the {@code unavailableCooldown}
 * ({@link #refuseWhileCoolingDown()}).
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
            Duration unavailableCooldown) {
        this.baseUrl = baseUrl;
        this.authorization = authorization;
        this.http = http;
        this.requestTimeout = requestTimeout;
        this.callTimeout = callTimeout;
        this.maxAttempts = maxAttempts;
        this.backoffInitial = backoffInitial;
        this.backoffMax = backoffMax;
        this.unavailableCooldownNs = unavailableCooldown.toNanos();
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
            try {
                HttpResponse<String> response = http.send(request.build(), HttpResponse.BodyHandlers.ofString());
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
                String message = answer == null
                        ? truncate(response.body())
                        : answer.path("message").asText("");
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
                lastFailure = e.getClass().getSimpleName() + (e.getMessage() == null ? "" : ": " + e.getMessage());
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

    /** {@code url} without user info ({@code https://user:secret@host} → {@code https://host}). */
    static String redact(String url) {
        int scheme = url.indexOf("://");
        int at = url.indexOf('@');
        int slash = scheme < 0 ? -1 : url.indexOf('/', scheme + 3);
        if (scheme < 0 || at < 0 || (slash >= 0 && at > slash)) {
            return url;
        }
        return url.substring(0, scheme + 3) + url.substring(at + 1);
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
