package dev.etl.error;

import java.util.Collections;
import java.util.IdentityHashMap;
import java.util.Locale;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.jspecify.annotations.Nullable;

/**
 * Keeps secrets out of text that leaves the process: log lines, exception messages that end up in
 * dead-letter headers or health details, configuration shown by management endpoints.
 *
 * <ul>
 * <li>{@link #isSecretKey(String)}: whether a setting's <em>name</em> says its value is a secret
 * (password, secret, token, credentials, JAAS configuration, API or private key). Over-masking is
 * harmless; a leaked password is not.</li>
 * <li>{@link #mask(String)}: free text with the password of every URL's user info
 * ({@code https://user:******@host}) and the value of every {@code password=…},
 * {@code password="…"}, {@code "password": "…"} (and the other secret names; a quoted value
 * with escaped quotes whole; an {@code Authorization} value after its scheme word, {@code Basic ******}),
 * and every {@code Bearer} token, replaced by {@value #MASK}.</li>
 * </ul>
 * Neither is for hot paths: call them where text is about to leave (failure paths, startup).
 * Thread-safe; stateless.
 */
public final class Secrets {

    /** What a secret is replaced with, as Spring Boot's endpoints show it. */
    public static final String MASK = "******";

    /**
     * {@code scheme://user:password@}: group 1 is up to and including the colon, group 2 the password.
     * The password runs to the <em>last</em> {@code @} before a space or quote, so a raw {@code @},
     * {@code /} or {@code %} in it (a URL that does not parse, echoed by the parser's message) is masked
     * whole; a URL without user info but with an {@code @} later in its path loses its port and path to
     * the mask too (over-masking is harmless).
     */
    private static final Pattern URL_USER_INFO =
            Pattern.compile("(\\b[a-zA-Z][a-zA-Z0-9+.-]*://[^/\\s:\"'<>]*:)([^\\s\"'<>]+)@");

    /** Names that hold secrets, as a regular expression (case-insensitive). */
    private static final String SECRET_NAME = "[A-Za-z0-9_.-]*(?:password|passwd|pwd|secret|token|credentials?"
            + "|jaas\\.config|api[-_.]?key|private[-_.]?key|user[-_.]?info|authorization)[A-Za-z0-9_.-]*";

    /** The scheme word of an {@code Authorization} value, kept before the masked credentials. */
    private static final String AUTH_SCHEME =
            "(?:Basic|Bearer|Digest|Negotiate|NTLM|Token|ApiKey|AWS4-HMAC-SHA256)\\s+";

    /** A quoted value, {@code \\"} and {@code \\'} escapes included, or an unquoted one up to a separator. */
    private static final String VALUE = "\"(?:[^\"\\\\]|\\\\.)*\"?|'(?:[^'\\\\]|\\\\.)*'?|[^\\s,;&\"'}\\]\\)]+";

    /**
     * {@code name = value} / {@code name: value} / {@code "name": "value"} for a secret name: group 1
     * is everything up to the value, group 2 the value (quoted, or up to a separator).
     */
    private static final Pattern SECRET_ASSIGNMENT = Pattern.compile(
            "(?i)(\\b" + SECRET_NAME + "[\"']?\\s*[=:]\\s*\\[?(?:" + AUTH_SCHEME + ")?)(" + VALUE + ")");

    /**
     * A bearer token wherever it appears ({@code Bearer eyJhbGciOi…}, in a header dump or a message): group 1
     * is the scheme word and its space, group 2 the token (8 characters at least, so that prose such as
     * "a Bearer token" is left alone).
     */
    private static final Pattern BEARER = Pattern.compile("(?i)(\\bBearer\\s+)([A-Za-z0-9._~+/-]{8,}=*)");

    private Secrets() {}

    /**
     * Whether the value of the setting {@code key} is a secret, from its name alone: it contains
     * {@code password}, {@code passwd}, {@code secret}, {@code token}, {@code credential},
     * {@code jaas}, {@code apikey}/{@code api-key}/{@code api.key}, {@code private-key}, user info
     * ({@code basic.auth.user.info}, {@code userinfo}), {@code authorization}, or ends in
     * {@code .key} (Kafka's {@code ssl.key.password} and friends end up here too).
     * @param key a property or setting name in any of its forms ({@code etl.sink.clickhouse.password},
     * {@code sasl.jaas.config}, {@code SPRING_KAFKA_PROPERTIES_SASL_JAAS_CONFIG})
     * @return whether to mask its value
     */
    public static boolean isSecretKey(@Nullable String key) {
        if (key == null) {
            return false;
        }
        String k = key.toLowerCase(Locale.ROOT);
        return k.contains("password")
                || k.contains("passwd")
                || k.contains("secret")
                || k.contains("token")
                || k.contains("credential")
                || k.contains("jaas")
                || k.contains("apikey")
                || k.contains("api-key")
                || k.contains("api.key")
                || k.contains("api_key")
                || k.contains("private-key")
                || k.contains("privatekey")
                || k.contains("private_key")
                || k.contains("userinfo")
                || k.contains("user.info")
                || k.contains("user-info")
                || k.contains("user_info")
                || k.contains("authorization")
                || k.endsWith(".key");
    }

    /**
     * {@code text} with secrets masked: the password part of URL user info, and the values of
     * assignments to secret names ({@code password=…}, {@code sasl.jaas.config=…},
     * {@code "token": "…"}; inside a JAAS configuration, {@code password="…"}).
     * @param text any text, or null
     * @return the masked text; the same instance when nothing was masked; null for null
     */
    public static @Nullable String mask(@Nullable String text) {
        if (text == null || text.isEmpty()) {
            return text;
        }
        String masked = text;
        if (masked.indexOf('@') >= 0 && masked.contains("://")) {
            masked = URL_USER_INFO.matcher(masked).replaceAll((m) -> Matcher.quoteReplacement(m.group(1) + MASK + "@"));
        }
        Matcher assignment = SECRET_ASSIGNMENT.matcher(masked);
        if (assignment.find()) {
            masked = assignment.replaceAll((m) -> {
                String value = m.group(2);
                char quote = value.charAt(0);
                String replacement = (quote == '"' || quote == '\'') ? quote + MASK + quote : MASK;
                return Matcher.quoteReplacement(m.group(1) + replacement);
            });
        }
        masked = BEARER.matcher(masked).replaceAll((m) -> Matcher.quoteReplacement(m.group(1) + MASK));
        return masked.equals(text) ? text : masked;
    }

    /**
     * {@code error} ready to log: itself when no message of it or its causes holds a secret, else a copy
     * of the chain whose messages are {@linkplain #mask(String) masked}, each link reading
     * {@code original.Class: masked message} with the original stack trace (so a logged stack trace
     * shows the same frames and no password).
     * @param error a throwable, or null
     * @return the throwable to hand to a logger
     */
    public static @Nullable Throwable mask(@Nullable Throwable error) {
        if (error == null || !holdsSecret(error)) {
            return error;
        }
        return copy(error, Collections.newSetFromMap(new IdentityHashMap<>()));
    }

    private static boolean holdsSecret(Throwable error) {
        Set<Throwable> seen = Collections.newSetFromMap(new IdentityHashMap<>());
        for (Throwable t = error; t != null && seen.add(t); t = t.getCause()) {
            String message = t.getMessage();
            if (message != null && !message.equals(mask(message))) {
                return true;
            }
        }
        return false;
    }

    private static Throwable copy(Throwable error, Set<Throwable> seen) {
        seen.add(error);
        Throwable cause = error.getCause();
        MaskedThrowable masked = new MaskedThrowable(
                error.getClass().getName() + (error.getMessage() == null ? "" : ": " + mask(error.getMessage())),
                (cause == null || seen.contains(cause)) ? null : copy(cause, seen));
        masked.setStackTrace(error.getStackTrace());
        return masked;
    }

    /** A link of a masked copy: its message starts with the original class name. */
    static final class MaskedThrowable extends RuntimeException {
        private static final long serialVersionUID = 1L;

        MaskedThrowable(String message, Throwable cause) {
            super(message, cause);
        }
    }
}
