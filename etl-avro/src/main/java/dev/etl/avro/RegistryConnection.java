package dev.etl.avro;

import java.io.IOException;
import java.io.InputStream;
import java.net.URI;
import java.net.URISyntaxException;
import java.net.URLDecoder;
import java.net.http.HttpClient;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.GeneralSecurityException;
import java.security.KeyStore;
import java.time.Duration;
import java.util.Base64;
import javax.net.ssl.SSLContext;
import javax.net.ssl.TrustManagerFactory;

/**
 * How a {@link SchemaRegistryClient} connects: its basic-auth credentials (given, or the user info of
 * the URL), the {@code Authorization} header they make, the HTTP client (connect timeout, redirects,
 * TLS context), and a TLS context trusting a trust store file. Stateless.
 */
final class RegistryConnection {

    /** The user ({@code null} without credentials) and its {@code Authorization} header value ({@code null} then). */
    record Credentials(String user, String authorization) {}

    private RegistryConnection() {}

    static Credentials credentials(String baseUrl, String givenUser, String givenPassword) {
        // User info in the URL is the basic-auth credentials (Confluent's basic.auth.credentials.source=URL)
        // unless given separately; either way the URL this client keeps, logs and names in messages has none.
        String user = givenUser;
        String password = givenPassword;
        String userInfo = URI.create(baseUrl).getRawUserInfo();
        if (userInfo != null && user == null) {
            int colon = userInfo.indexOf(':');
            user = percentDecode(colon < 0 ? userInfo : userInfo.substring(0, colon));
            password = colon < 0 ? "" : percentDecode(userInfo.substring(colon + 1));
        }
        String authorization = user == null
                ? null
                : "Basic "
                        + Base64.getEncoder().encodeToString((user + ":" + password).getBytes(StandardCharsets.UTF_8));
        return new Credentials(user, authorization);
    }

    /**
     * Fails unless {@code url} is an {@code http(s)://host[:port][/path]} URL, with a message that names it
     * without its user info: the parser's own message would echo the whole URL, password included (a raw
     * {@code @}, {@code %} or space in a password makes a URL that does not parse).
     *
     * @throws IllegalArgumentException naming the URL without user info and what is wrong
     */
    static void checkUrl(String url) {
        URI uri;
        try {
            uri = new URI(url);
        } catch (URISyntaxException e) {
            throw new IllegalArgumentException("schema registry URL " + RegistryHttp.redact(url)
                    + " is not a valid URL: " + e.getReason() + " at index " + e.getIndex() + USER_INFO_HINT);
        }
        String scheme = uri.getScheme();
        if (scheme == null
                || !(scheme.equalsIgnoreCase("http") || scheme.equalsIgnoreCase("https"))
                || uri.getHost() == null) {
            throw new IllegalArgumentException("schema registry URL " + RegistryHttp.redact(url)
                    + " is not http(s)://host[:port][/path]"
                    + (url.indexOf('@') >= 0 ? USER_INFO_HINT : ""));
        }
    }

    private static final String USER_INFO_HINT = " (in user info, percent-encode @, %, / and spaces of the password, "
            + "or give the credentials as etl.avro.registry.username/password, SchemaRegistryClient.Builder.basicAuth)";

    /** {@code %XX} escapes decoded as UTF-8; unlike {@link URLDecoder} alone, a {@code +} stays a {@code +}. */
    private static String percentDecode(String raw) {
        return URLDecoder.decode(raw.replace("+", "%2B"), StandardCharsets.UTF_8);
    }

    static HttpClient httpClient(Duration connectTimeout, SSLContext sslContext) {
        HttpClient.Builder client =
                HttpClient.newBuilder().connectTimeout(connectTimeout).followRedirects(HttpClient.Redirect.NORMAL);
        if (sslContext != null) {
            client.sslContext(sslContext);
        }
        return client.build();
    }

    /**
     * A TLS context trusting the certificates of a trust store file.
     *
     * @throws IllegalArgumentException naming the path (never the password) when it cannot be loaded
     */
    static SSLContext trustStore(Path path, char[] password, String type) {
        try (InputStream in = Files.newInputStream(path)) {
            KeyStore store = KeyStore.getInstance(type);
            store.load(in, password);
            TrustManagerFactory factory = TrustManagerFactory.getInstance(TrustManagerFactory.getDefaultAlgorithm());
            factory.init(store);
            SSLContext context = SSLContext.getInstance("TLS");
            context.init(null, factory.getTrustManagers(), null);
            return context;
        } catch (IOException | GeneralSecurityException e) {
            throw new IllegalArgumentException(
                    "cannot load trust store " + path + " (" + type + "): "
                            + e.getClass().getSimpleName(),
                    e);
        }
    }
}
