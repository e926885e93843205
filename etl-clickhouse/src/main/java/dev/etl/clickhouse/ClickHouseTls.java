package dev.etl.clickhouse;

import java.nio.charset.StandardCharsets;
import java.security.GeneralSecurityException;
import java.security.KeyStore;
import java.security.KeyStoreException;
import java.security.cert.Certificate;
import java.security.cert.CertificateEncodingException;
import java.security.cert.X509Certificate;
import java.util.ArrayList;
import java.util.Base64;
import java.util.Collection;
import java.util.Enumeration;
import java.util.List;
import java.util.Objects;
import javax.net.ssl.SSLContext;
import javax.net.ssl.SSLParameters;
import javax.net.ssl.TrustManagerFactory;
import org.jspecify.annotations.Nullable;

/**
 * TLS towards the sink's {@code https://} replicas: what verifies the servers' certificates and,
 * optionally, the client certificate the sink presents. Without one ({@link ClickHouseSinkConfig#tls()}
 * null), {@code https://} replicas are verified against the JVM's default trust store.
 *
 * <p>Both transports verify the server's certificate chain <em>and</em> that it is issued for the host
 * in the replica URL (hostname verification is never turned off):
 * <ul>
 * <li>the raw HTTP transport (reads, and inserts with {@link ClickHouseSinkConfig.Transport#HTTP})
 * connects with {@link #sslContext()}, restricted to {@link #protocols()} and {@link #ciphers()} when
 * given;</li>
 * <li>client-v2 (inserts with {@link ClickHouseSinkConfig.Transport#CLIENT_V2}) cannot take an
 * {@link SSLContext}: it is given {@link #trustedCertificates()} as PEM text (in memory, never written to
 * disk). It cannot present a client certificate or restrict protocols and ciphers through this type, so a
 * {@code ClickHouseTls} with {@link #clientCertificate()} or protocols/ciphers is refused for client-v2
 * (use the HTTP transport for mutual TLS).</li>
 * </ul>
 *
 * @param sslContext          the context the raw HTTP transport connects with (trust and, for mutual TLS,
 *                            key material)
 * @param trustedCertificates the certificates client-v2 trusts; empty: the JVM's default trust store
 * @param clientCertificate   whether {@link #sslContext()} presents a client certificate (mutual TLS)
 * @param protocols           enabled TLS protocols, e.g. {@code TLSv1.3}; empty: the JVM's defaults
 * @param ciphers             enabled cipher suites; empty: the JVM's defaults
 */
public record ClickHouseTls(
        SSLContext sslContext,
        List<X509Certificate> trustedCertificates,
        boolean clientCertificate,
        List<String> protocols,
        List<String> ciphers) {

    /** Copies the lists; {@code sslContext} is required. */
    public ClickHouseTls {
        Objects.requireNonNull(sslContext, "sslContext");
        trustedCertificates = List.copyOf(trustedCertificates);
        protocols = List.copyOf(protocols);
        ciphers = List.copyOf(ciphers);
    }

    /**
     * TLS that trusts the certificates in {@code trustStore} (its certificate entries, and the first
     * certificate of its key entries), without a client certificate.
     *
     * @throws IllegalArgumentException if the store cannot be read or holds no certificate
     */
    public static ClickHouseTls trusting(KeyStore trustStore) {
        List<X509Certificate> trusted = certificates(trustStore);
        if (trusted.isEmpty()) {
            throw new IllegalArgumentException("the ClickHouse trust store holds no certificate");
        }
        try {
            TrustManagerFactory factory = TrustManagerFactory.getInstance(TrustManagerFactory.getDefaultAlgorithm());
            factory.init(trustStore);
            SSLContext context = SSLContext.getInstance("TLS");
            context.init(null, factory.getTrustManagers(), null);
            return new ClickHouseTls(context, trusted, false, List.of(), List.of());
        } catch (GeneralSecurityException e) {
            throw new IllegalArgumentException("cannot build a TLS context from the ClickHouse trust store: " + e, e);
        }
    }

    /**
     * TLS from parts built elsewhere (e.g. a Spring Boot SSL bundle).
     *
     * @param sslContext        the context the HTTP transport connects with
     * @param trustStore        the store {@code sslContext} trusts, for client-v2; null: the JVM's defaults
     * @param clientCertificate whether {@code sslContext} presents a client certificate
     * @param protocols         enabled protocols, null or empty for the JVM's defaults
     * @param ciphers           enabled cipher suites, null or empty for the JVM's defaults
     * @throws IllegalArgumentException if the trust store cannot be read
     */
    public static ClickHouseTls of(
            SSLContext sslContext,
            @Nullable KeyStore trustStore,
            boolean clientCertificate,
            @Nullable Collection<String> protocols,
            @Nullable Collection<String> ciphers) {
        return new ClickHouseTls(
                sslContext,
                trustStore == null ? List.of() : certificates(trustStore),
                clientCertificate,
                protocols == null ? List.of() : List.copyOf(protocols),
                ciphers == null ? List.of() : List.copyOf(ciphers));
    }

    /** Whether protocols or cipher suites are restricted. */
    public boolean restrictsParameters() {
        return !protocols.isEmpty() || !ciphers.isEmpty();
    }

    /**
     * The parameters the HTTP transport connects with: the context's defaults, restricted to
     * {@link #protocols()} and {@link #ciphers()}; null when neither is given.
     */
    public @Nullable SSLParameters sslParameters() {
        if (!restrictsParameters()) {
            return null;
        }
        SSLParameters parameters = sslContext.getDefaultSSLParameters();
        if (!protocols.isEmpty()) {
            parameters.setProtocols(protocols.toArray(String[]::new));
        }
        if (!ciphers.isEmpty()) {
            parameters.setCipherSuites(ciphers.toArray(String[]::new));
        }
        return parameters;
    }

    /** {@link #trustedCertificates()} as concatenated PEM blocks (what client-v2 reads); empty when none. */
    public String trustedCertificatesPem() {
        StringBuilder pem = new StringBuilder();
        Base64.Encoder encoder = Base64.getMimeEncoder(64, "\n".getBytes(StandardCharsets.US_ASCII));
        for (X509Certificate certificate : trustedCertificates) {
            try {
                pem.append("-----BEGIN CERTIFICATE-----\n")
                        .append(encoder.encodeToString(certificate.getEncoded()))
                        .append("\n-----END CERTIFICATE-----\n");
            } catch (CertificateEncodingException e) {
                throw new IllegalStateException(
                        "cannot encode trusted certificate " + certificate.getSubjectX500Principal() + ": " + e, e);
            }
        }
        return pem.toString();
    }

    /** Subjects only: safe to log. */
    @Override
    public String toString() {
        List<String> subjects = new ArrayList<>(trustedCertificates.size());
        for (X509Certificate certificate : trustedCertificates) {
            subjects.add(certificate.getSubjectX500Principal().getName());
        }
        return "ClickHouseTls[trusted=" + (subjects.isEmpty() ? "JVM default" : subjects) + ", clientCertificate="
                + clientCertificate + ", protocols=" + protocols + ", ciphers=" + ciphers + "]";
    }

    private static List<X509Certificate> certificates(KeyStore store) {
        List<X509Certificate> out = new ArrayList<>();
        try {
            Enumeration<String> aliases = store.aliases();
            while (aliases.hasMoreElements()) {
                String alias = aliases.nextElement();
                Certificate certificate = store.getCertificate(alias);
                if (certificate instanceof X509Certificate x509) {
                    out.add(x509);
                }
            }
        } catch (KeyStoreException e) {
            throw new IllegalArgumentException("cannot read the ClickHouse trust store: " + e, e);
        }
        return out;
    }
}
