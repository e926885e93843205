package dev.etl.test.infra;

import java.net.URI;
import java.util.List;
import java.util.Objects;
import java.util.Properties;

/**
 * Where the local S3-compatible server (S3Proxy, filesystem-backed) listens and the credential it
 * accepts: AWS Signature V2 or V4 with one fixed access key and a secret key made per infrastructure
 * directory. Buckets are addressed path-style ({@code http://127.0.0.1:19300/<bucket>/<key>}); the
 * server answers no virtual-host names.
 *
 * <p>Read from the {@code s3.*} keys of {@code endpoints.properties}:
 * <pre>
 * s3.endpoint=http://127.0.0.1:19300
 * s3.region=us-east-1
 * s3.access-key=etl-local
 * s3.secret-key=…
 * </pre>
 * Immutable; {@link #toString()} shows no secret key. {@link S3TestBuckets#newClient} makes an AWS SDK
 * client configured for it.
 */
public final class S3InfraEndpoints {

    /** The keys, in the order the script writes them. */
    static final List<String> KEYS = List.of("s3.endpoint", "s3.region", "s3.access-key", "s3.secret-key");

    private final String endpoint;
    private final String region;
    private final String accessKey;
    private final String secretKey;

    /**
     * Creates S3 endpoints from their parts.
     * @param endpoint base URL of the S3 API, e.g. {@code http://127.0.0.1:19300}; a trailing slash is removed
     * @param region the region clients sign for, e.g. {@code us-east-1}
     * @param accessKey the access key id
     * @param secretKey the secret access key
     * @throws IllegalArgumentException if {@code endpoint} is not an absolute http(s) URL or a part is blank
     */
    public S3InfraEndpoints(String endpoint, String region, String accessKey, String secretKey) {
        String url = Objects.requireNonNull(endpoint, "endpoint").trim();
        this.endpoint = url.endsWith("/") ? url.substring(0, url.length() - 1) : url;
        this.region = requireText(region, "s3.region");
        this.accessKey = requireText(accessKey, "s3.access-key");
        this.secretKey = requireText(secretKey, "s3.secret-key");
        URI uri;
        try {
            uri = URI.create(this.endpoint);
        } catch (IllegalArgumentException ex) {
            throw new IllegalArgumentException("s3.endpoint is not a URL: '" + this.endpoint + "'", ex);
        }
        if (!("http".equals(uri.getScheme()) || "https".equals(uri.getScheme())) || uri.getHost() == null) {
            throw new IllegalArgumentException(
                    "s3.endpoint must be an http(s) URL with a host, was '" + this.endpoint + "'");
        }
    }

    /**
     * The S3 endpoints in {@code properties}, or null when keys are missing; {@code missing} receives
     * their names.
     */
    static S3InfraEndpoints parse(Properties properties, List<String> missing) {
        for (String key : KEYS) {
            String value = properties.getProperty(key);
            if (value == null || value.isBlank()) {
                missing.add(key);
            }
        }
        if (!missing.isEmpty()) {
            return null;
        }
        return new S3InfraEndpoints(
                properties.getProperty("s3.endpoint"),
                properties.getProperty("s3.region"),
                properties.getProperty("s3.access-key"),
                properties.getProperty("s3.secret-key"));
    }

    private static String requireText(String value, String key) {
        if (value == null || value.isBlank()) {
            throw new IllegalArgumentException(key + " is blank");
        }
        return value.trim();
    }

    /**
     * Returns the base URL of the S3 API, for a client's endpoint override.
     * @return e.g. {@code http://127.0.0.1:19300}, without a trailing slash
     */
    public String endpoint() {
        return endpoint;
    }

    /**
     * Returns the base URL of the S3 API as a URI.
     * @return e.g. {@code http://127.0.0.1:19300}
     */
    public URI endpointUri() {
        return URI.create(endpoint);
    }

    /**
     * Returns the region clients sign requests for (the server accepts any; a client needs one).
     * @return e.g. {@code us-east-1}
     */
    public String region() {
        return region;
    }

    /**
     * Returns the access key id the server accepts.
     * @return e.g. {@code etl-local}
     */
    public String accessKey() {
        return accessKey;
    }

    /**
     * Returns the secret access key that goes with {@link #accessKey()}. Keep it out of logs.
     * @return the secret key
     */
    public String secretKey() {
        return secretKey;
    }

    @Override
    public String toString() {
        return "S3InfraEndpoints{endpoint=" + endpoint + ", region=" + region + ", accessKey=" + accessKey + "}";
    }
}
