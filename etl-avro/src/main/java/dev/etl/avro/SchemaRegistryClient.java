package dev.etl.avro;

import com.fasterxml.jackson.databind.JsonNode;
import java.net.URLEncoder;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.concurrent.ConcurrentHashMap;
import javax.net.ssl.SSLContext;
import org.apache.avro.Schema;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A client of the Confluent Schema Registry REST API (also served by Apicurio's
 * {@code /apis/ccompat/v7} and other compatible registries), over {@code java.net.http}.
 *
 * <p><b>Caching.</b> {@link #schemaById} caches forever: a schema id never changes meaning. An id
 * the registry does not know is remembered for {@code notFoundTtl} (a negative cache of at most
 * {@code maxUnknownIds} ids), so a topic full of records with a bogus id does not send one request per
 * record. {@link #register} and {@link #lookup} cache their answers per (subject, schema).
 *
 * <p><b>Unknown ids cost a bounded number of calls.</b> Looking up an id that is neither cached nor
 * known missing needs a permit of {@code unknownIdLookupsPerSecond} a second; a lookup that finds its
 * schema gives the permit back, so only ids the registry does not know use them. Without a permit the id
 * is refused at once ({@link SchemaRegistryException#lookupRefused()}, which is also
 * {@link SchemaRegistryException#notFound()}): a producer writing random ids costs at most that many
 * registry calls a second, and its records get the deserialize stage's policy.
 *
 * <p><b>Bounded answers.</b> An answer longer than {@code maxResponseBytes} is refused (and not read
 * further) as the registry being unusable, not as bad data.
 *
 * <p><b>Bounded calls.</b> Every call retries connection failures, timeouts, 429 and 5xx answers
 * with exponential backoff and jitter, but within one overall {@code callTimeout}: a lane thread
 * that misses the cache waits at most that long, never indefinitely. After a call ran out of time or
 * attempts, uncached ids fail immediately for {@code unavailableCooldown}, so a registry outage does
 * not cost every record the full timeout.
 *
 * <p><b>Threads.</b> Thread-safe; one instance is meant to be shared by every lane of a process.
 * Two lanes missing the same id at the same moment may both fetch it (harmless: the answer is the
 * same). Interrupting a calling thread aborts the call with a {@link SchemaRegistryException} and
 * keeps the interrupt flag set.
 *
 * <p><b>Secrets.</b> The password is kept only inside the precomputed {@code Authorization} header;
 * {@link #toString()} and every message name the URL and user only.
 */
public final class SchemaRegistryClient {
    private static final Logger log = LoggerFactory.getLogger(SchemaRegistryClient.class);

    private final String baseUrl;
    private final String user;
    /** The calls: retries, timeouts, the cooldown after an outage. */
    private final RegistryHttp http;

    /** The negative cache and the lookup budget of ids the registry does not know. */
    private final UnknownSchemaIds unknownIds;

    private final ConcurrentHashMap<Integer, Schema> byId = new ConcurrentHashMap<>();
    private final ConcurrentHashMap<SubjectSchema, RegisteredSchema> bySubjectSchema = new ConcurrentHashMap<>();
    private final ConcurrentHashMap<SubjectSchema, Integer> registeredIds = new ConcurrentHashMap<>();

    private record SubjectSchema(String subject, Schema schema) {}

    private SchemaRegistryClient(Builder b) {
        // credentials given, or from the URL's user info; the URL kept, logged and named has none
        RegistryConnection.Credentials credentials = RegistryConnection.credentials(b.baseUrl, b.user, b.password);
        this.baseUrl = RegistryHttp.redact(b.baseUrl);
        this.user = credentials.user();
        this.http = new RegistryHttp(
                this.baseUrl,
                credentials.authorization(),
                RegistryConnection.httpClient(b.connectTimeout, b.sslContext),
                b.requestTimeout,
                b.callTimeout,
                b.maxAttempts,
                b.backoffInitial,
                b.backoffMax,
                b.unavailableCooldown,
                b.maxResponseBytes);
        this.unknownIds = new UnknownSchemaIds(
                this.baseUrl, b.notFoundTtl.toNanos(), b.maxUnknownIds, b.unknownIdLookupsPerSecond, System::nanoTime);
        if (user != null && this.baseUrl.regionMatches(true, 0, "http://", 0, 7)) {
            log.warn(
                    "schema registry {}: HTTP basic auth of user '{}' is sent over plain http://, readable by anyone "
                            + "on the network path; use https:// (docs/guides/securing.md)",
                    this.baseUrl,
                    user);
        }
    }

    /**
     * Starts configuring a client.
     *
     * @param baseUrl base URL of the registry API, e.g. {@code http://registry:8081} or
     *        {@code http://127.0.0.1:18081/apis/ccompat/v7}; a trailing slash is ignored; user info
     *        ({@code https://user:password@registry}) is taken as basic-auth credentials unless
     *        {@link Builder#basicAuth} gives others, and never kept in the URL the client names
     */
    public static Builder builder(String baseUrl) {
        return new Builder(baseUrl);
    }

    /**
     * The schema with registry id {@code id}; cached forever once fetched.
     *
     * @throws SchemaRegistryException with {@link SchemaRegistryException#notFound()} when the
     *         registry does not know the id (remembered for {@code notFoundTtl}) or when it was not
     *         asked because unknown ids are over their lookup rate
     *         ({@link SchemaRegistryException#lookupRefused()}), otherwise when it could not be asked
     *         within {@code callTimeout}
     */
    public Schema schemaById(int id) {
        Schema cached = byId.get(id);
        if (cached != null) {
            return cached;
        }
        unknownIds.requireNotKnownMissing(id);
        http.refuseWhileCoolingDown();
        unknownIds.acquire(id);
        boolean missing = false;
        try {
            JsonNode answer = http.call("GET", "/schemas/ids/" + id, null, "schema id " + id);
            Schema schema = RegistryJson.avroSchema(answer, "schema id " + id);
            Schema raced = byId.putIfAbsent(id, schema);
            return raced != null ? raced : schema;
        } catch (SchemaRegistryException e) {
            if (e.notFound()) {
                missing = true;
                unknownIds.notFound(id);
            }
            throw e;
        } finally {
            if (!missing) {
                unknownIds.release();
            }
        }
    }

    /** Unknown schema ids refused without a lookup since this client was built (over the lookup rate). */
    public long unknownIdLookupsRefused() {
        return unknownIds.refused();
    }

    /** Ids in the negative cache (at most {@code maxUnknownIds}). */
    int unknownIdsCached() {
        return unknownIds.size();
    }

    /**
     * Registers {@code schema} under {@code subject} (idempotent: an identical schema keeps its id)
     * and returns its id. For producers and tests; answers are cached.
     */
    public int register(String subject, Schema schema) {
        SubjectSchema key = new SubjectSchema(subject, schema);
        Integer cached = registeredIds.get(key);
        if (cached != null) {
            return cached;
        }
        JsonNode answer = http.call(
                "POST",
                "/subjects/" + encode(subject) + "/versions",
                RegistryJson.schemaBody(schema),
                "register under subject " + subject);
        int id = RegistryJson.requiredInt(answer, "id", "register under subject " + subject);
        byId.putIfAbsent(id, schema);
        registeredIds.put(key, id);
        return id;
    }

    /**
     * The registration of {@code schema} under {@code subject} ({@code POST /subjects/{subject}}).
     *
     * @throws SchemaRegistryException with {@link SchemaRegistryException#notFound()} when the
     *         subject or the schema under it is not registered
     */
    public RegisteredSchema lookup(String subject, Schema schema) {
        SubjectSchema key = new SubjectSchema(subject, schema);
        RegisteredSchema cached = bySubjectSchema.get(key);
        if (cached != null) {
            return cached;
        }
        String what = "lookup under subject " + subject;
        JsonNode answer = http.call("POST", "/subjects/" + encode(subject), RegistryJson.schemaBody(schema), what);
        RegisteredSchema registered = registered(answer, subject, what);
        bySubjectSchema.put(key, registered);
        return registered;
    }

    /** The latest version registered under {@code subject}; never cached (it changes). */
    public RegisteredSchema latest(String subject) {
        String what = "latest version of subject " + subject;
        return registered(
                http.call("GET", "/subjects/" + encode(subject) + "/versions/latest", null, what), subject, what);
    }

    /**
     * Fetches every version registered under {@code subject} and caches them by id, so lanes find
     * the schemas of existing data without asking the registry. Meant for startup.
     *
     * @return the versions, oldest first
     */
    public List<RegisteredSchema> warm(String subject) {
        String what = "versions of subject " + subject;
        JsonNode versions = http.call("GET", "/subjects/" + encode(subject) + "/versions", null, what);
        List<RegisteredSchema> out = new ArrayList<>();
        for (JsonNode version : versions) {
            String whatVersion = "version " + version.asInt() + " of subject " + subject;
            RegisteredSchema registered = registered(
                    http.call(
                            "GET", "/subjects/" + encode(subject) + "/versions/" + version.asInt(), null, whatVersion),
                    subject,
                    whatVersion);
            byId.putIfAbsent(registered.id(), registered.schema());
            out.add(registered);
        }
        return out;
    }

    /** Default TCP connect timeout of a registry request: 2 s. */
    public static final Duration DEFAULT_CONNECT_TIMEOUT = Duration.ofSeconds(2);

    /** Default timeout of one registry request: 2 s (a call retries within its call timeout). */
    public static final Duration DEFAULT_REQUEST_TIMEOUT = Duration.ofSeconds(2);

    /** Default capacity of the negative cache: 10,000 ids (about 1 MiB at most). */
    public static final int DEFAULT_MAX_UNKNOWN_IDS = 10_000;

    /** Default rate of lookups of ids the registry does not know: 10 a second per client. */
    public static final int DEFAULT_UNKNOWN_ID_LOOKUPS_PER_SECOND = 10;

    /**
     * Default longest answer: 8 MiB. A schema is far smaller (Confluent's registry keeps each in one
     * Kafka record, 1 MB by default); the largest answers are {@code GET /subjects} lists.
     */
    public static final int DEFAULT_MAX_RESPONSE_BYTES = 8 << 20;

    /**
     * Checks, once, that {@link #baseUrl()} answers the Confluent Schema Registry API: {@code GET
     * /subjects} must return a JSON array. Meant for startup, so a wrong base path (e.g. Apicurio's
     * root instead of {@code /apis/ccompat/v7}), a web page, wrong credentials or an unreachable
     * registry fail the application at once, instead of every record failing later as "unknown
     * schema id" (which a {@code SKIP} policy would drop). Retries within {@code callTimeout} like
     * any call.
     *
     * @throws SchemaRegistryException naming the URL (without user info) and what was wrong
     */
    public void checkApi() {
        String url = RegistryHttp.redact(baseUrl);
        String hint = "; the URL must be the base of the Confluent-compatible API, e.g. http://registry:8081 "
                + "(Confluent) or http://registry:8080/apis/ccompat/v7 (Apicurio)";
        JsonNode answer;
        try {
            answer = http.call("GET", "/subjects", null, "API check");
        } catch (SchemaRegistryException e) {
            if (e.getCause() instanceof InterruptedException
                    || Thread.currentThread().isInterrupted()) {
                // The application is stopping (e.g. SIGTERM during startup): not a registry problem.
                Thread.currentThread().interrupt();
                log.info("API check of schema registry {} interrupted (the application is stopping)", url);
                throw new SchemaRegistryException(
                        "interrupted while checking schema registry " + url
                                + " (the application is stopping; the registry was not found wrong or unreachable)",
                        -1,
                        -1,
                        e.getCause());
            }
            if (RegistryHttp.sslCause(e) != null) {
                throw e; // names the registry and what the handshake says; the base path is not the problem
            }
            String what = e.httpStatus() == 404
                    ? "it has no /subjects endpoint (HTTP 404): wrong base path?"
                    : e.httpStatus() == 401 || e.httpStatus() == 403
                            ? "it refused our credentials (HTTP " + e.httpStatus() + ")"
                            : e.invalidAnswer() ? "GET /subjects did not answer JSON" : "it could not be asked";
            throw new SchemaRegistryException(
                    "schema registry " + url
                            + " does not answer the Confluent Schema Registry API: " + what + " ("
                            + http.redactBaseUrlIn(e.getMessage()) + ")" + hint,
                    e.httpStatus(),
                    e.errorCode(),
                    e.getCause());
        }
        if (!answer.isArray()) {
            throw new SchemaRegistryException(
                    "schema registry " + url
                            + " does not answer the Confluent Schema Registry API: GET /subjects answered "
                            + RegistryHttp.truncate(answer.toString()) + " instead of a JSON array of subjects" + hint,
                    200,
                    -1,
                    null);
        }
        log.info("schema registry {} answers the Confluent Schema Registry API ({} subjects)", url, answer.size());
    }

    /** Base URL of the registry API, without a trailing slash. */
    public String baseUrl() {
        return baseUrl;
    }

    @Override
    public String toString() {
        return "SchemaRegistryClient[" + RegistryHttp.redact(baseUrl) + (user == null ? "" : ", user=" + user) + "]";
    }

    /** The registration in {@code answer}, its schema cached by id. */
    private RegisteredSchema registered(JsonNode answer, String subject, String what) {
        RegisteredSchema registered = RegistryJson.registered(answer, subject, what);
        byId.putIfAbsent(registered.id(), registered.schema());
        return registered;
    }

    private static String encode(String subject) {
        return URLEncoder.encode(subject, StandardCharsets.UTF_8).replace("+", "%20");
    }

    /**
     * Configuration of a {@link SchemaRegistryClient}. Defaults: connect timeout 2 s, request timeout
     * 2 s, call timeout (all attempts of one call) 5 s, 3 attempts, backoff 100 ms doubling to 1 s,
     * not-found TTL 30 s for at most 10,000 unknown ids, 10 lookups of unknown ids a second, unavailable
     * cooldown 1 s, answers of at most 8 MiB.
     */
    public static final class Builder {
        private final String baseUrl;
        private String user;
        private String password;
        private SSLContext sslContext;
        private Duration connectTimeout = DEFAULT_CONNECT_TIMEOUT;
        private Duration requestTimeout = DEFAULT_REQUEST_TIMEOUT;
        private Duration callTimeout = Duration.ofSeconds(5);
        private int maxAttempts = 3;
        private Duration backoffInitial = Duration.ofMillis(100);
        private Duration backoffMax = Duration.ofSeconds(1);
        private Duration notFoundTtl = Duration.ofSeconds(30);
        private Duration unavailableCooldown = Duration.ofSeconds(1);
        private int maxUnknownIds = DEFAULT_MAX_UNKNOWN_IDS;
        private int unknownIdLookupsPerSecond = DEFAULT_UNKNOWN_ID_LOOKUPS_PER_SECOND;
        private int maxResponseBytes = DEFAULT_MAX_RESPONSE_BYTES;

        private Builder(String baseUrl) {
            Objects.requireNonNull(baseUrl, "baseUrl");
            this.baseUrl = baseUrl.endsWith("/") ? baseUrl.substring(0, baseUrl.length() - 1) : baseUrl;
            RegistryConnection.checkUrl(this.baseUrl);
        }

        /** HTTP basic authentication (Confluent's {@code basic.auth.user.info}). */
        public Builder basicAuth(String user, String password) {
            this.user = Objects.requireNonNull(user, "user");
            this.password = Objects.requireNonNull(password, "password");
            return this;
        }

        /** HTTP basic authentication from {@code user:password}. */
        public Builder userInfo(String userInfo) {
            int colon = userInfo.indexOf(':');
            if (colon < 0) {
                throw new IllegalArgumentException("user info must be 'user:password'");
            }
            return basicAuth(userInfo.substring(0, colon), userInfo.substring(colon + 1));
        }

        /**
         * Trusts the certificates of a trust store file for HTTPS.
         *
         * @param type key store type, e.g. {@code PKCS12} or {@code JKS}
         * @throws IllegalArgumentException naming the path (never the password) when it cannot be loaded
         */
        public Builder trustStore(Path path, char[] password, String type) {
            this.sslContext = RegistryConnection.trustStore(path, password, type);
            return this;
        }

        /** A ready TLS context (instead of {@link #trustStore}), e.g. with client certificates. */
        public Builder sslContext(SSLContext sslContext) {
            this.sslContext = Objects.requireNonNull(sslContext, "sslContext");
            return this;
        }

        public Builder connectTimeout(Duration connectTimeout) {
            this.connectTimeout = positive(connectTimeout, "connectTimeout");
            return this;
        }

        /** Timeout of one HTTP request (one attempt). */
        public Builder requestTimeout(Duration requestTimeout) {
            this.requestTimeout = positive(requestTimeout, "requestTimeout");
            return this;
        }

        /** Upper bound of one call including all its retries: the longest a lane can wait on a miss. */
        public Builder callTimeout(Duration callTimeout) {
            this.callTimeout = positive(callTimeout, "callTimeout");
            return this;
        }

        /** Attempts per call (1 = no retry). */
        public Builder maxAttempts(int maxAttempts) {
            if (maxAttempts < 1) {
                throw new IllegalArgumentException("maxAttempts must be at least 1");
            }
            this.maxAttempts = maxAttempts;
            return this;
        }

        public Builder backoff(Duration initial, Duration max) {
            this.backoffInitial = positive(initial, "initial backoff");
            this.backoffMax = positive(max, "max backoff");
            return this;
        }

        /** How long an id the registry does not know is answered from the negative cache. */
        public Builder notFoundTtl(Duration notFoundTtl) {
            this.notFoundTtl = Objects.requireNonNull(notFoundTtl, "notFoundTtl");
            return this;
        }

        /**
         * How many ids the negative cache holds at most (default 10,000): when it is full, expired ids are
         * dropped first, then arbitrary ones.
         */
        public Builder maxUnknownIds(int maxUnknownIds) {
            if (maxUnknownIds < 1) {
                throw new IllegalArgumentException("maxUnknownIds must be at least 1");
            }
            this.maxUnknownIds = maxUnknownIds;
            return this;
        }

        /**
         * How many lookups of ids the registry turns out not to know may be made per second (default 10,
         * in bursts of as many); an uncached id beyond that is refused without a call. Lookups that find
         * their schema do not count.
         */
        public Builder unknownIdLookupsPerSecond(int perSecond) {
            if (perSecond < 1 || perSecond > 1_000_000) {
                throw new IllegalArgumentException("unknownIdLookupsPerSecond must be in [1, 1000000]");
            }
            this.unknownIdLookupsPerSecond = perSecond;
            return this;
        }

        /**
         * The longest answer read (default 8 MiB); a longer one fails the call without being read further.
         * Raise it only for a {@code GET /subjects} of a registry with hundreds of thousands of subjects.
         */
        public Builder maxResponseBytes(int maxResponseBytes) {
            if (maxResponseBytes < 1024) {
                throw new IllegalArgumentException("maxResponseBytes must be at least 1024");
            }
            this.maxResponseBytes = maxResponseBytes;
            return this;
        }

        /** How long uncached ids fail at once after a call found the registry unavailable. */
        public Builder unavailableCooldown(Duration unavailableCooldown) {
            this.unavailableCooldown = Objects.requireNonNull(unavailableCooldown, "unavailableCooldown");
            return this;
        }

        public SchemaRegistryClient build() {
            return new SchemaRegistryClient(this);
        }

        @Override
        public String toString() {
            return "SchemaRegistryClient.Builder[" + RegistryHttp.redact(baseUrl)
                    + (user == null ? "" : ", user=" + user) + "]";
        }

        private static Duration positive(Duration d, String what) {
            if (d == null || d.isNegative() || d.isZero()) {
                throw new IllegalArgumentException(what + " must be positive");
            }
            return d;
        }
    }
}
