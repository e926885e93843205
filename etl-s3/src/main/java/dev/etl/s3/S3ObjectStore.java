package dev.etl.s3;

import java.io.ByteArrayInputStream;
import java.io.FileNotFoundException;
import java.io.IOException;
import java.io.InputStream;
import java.net.URI;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import org.jspecify.annotations.Nullable;
import software.amazon.awssdk.auth.credentials.AwsBasicCredentials;
import software.amazon.awssdk.auth.credentials.AwsCredentialsProvider;
import software.amazon.awssdk.auth.credentials.DefaultCredentialsProvider;
import software.amazon.awssdk.auth.credentials.StaticCredentialsProvider;
import software.amazon.awssdk.core.ResponseInputStream;
import software.amazon.awssdk.core.checksums.RequestChecksumCalculation;
import software.amazon.awssdk.core.checksums.ResponseChecksumValidation;
import software.amazon.awssdk.core.client.config.ClientOverrideConfiguration;
import software.amazon.awssdk.core.exception.SdkException;
import software.amazon.awssdk.regions.Region;
import software.amazon.awssdk.services.s3.S3Client;
import software.amazon.awssdk.services.s3.S3ClientBuilder;
import software.amazon.awssdk.services.s3.model.GetObjectRequest;
import software.amazon.awssdk.services.s3.model.GetObjectResponse;
import software.amazon.awssdk.services.s3.model.HeadObjectResponse;
import software.amazon.awssdk.services.s3.model.ListObjectsV2Request;
import software.amazon.awssdk.services.s3.model.S3Exception;
import software.amazon.awssdk.services.s3.model.S3Object;

/**
 * An {@link ObjectStore} over the AWS SDK v2 synchronous {@link S3Client}: AWS S3 or any S3-compatible
 * server (MinIO, S3Proxy, Ceph: set an {@link Builder#endpoint endpoint} and usually
 * {@link Builder#pathStyleAccess path-style access}). Listing pages through ListObjectsV2; reads are
 * ranged GETs ({@code Range: bytes=start-end}) with {@code If-Match} on the ETag the backfill planned
 * with, so an object rewritten since fails with an {@link IOException} saying so instead of mixing two
 * versions. Closing a read stream early aborts the connection when much is left unread (reading it to
 * the end would cost more than a new connection), and drains it otherwise. Retries are the SDK's
 * standard strategy; the response checksums of whole-object GETs are not validated (TLS already
 * protects the transfer, and ranged GETs cannot be).
 *
 * <p>Errors are {@link IOException}s naming the operation, bucket and key ({@link FileNotFoundException}
 * for a missing object); they never carry credentials. Thread-safe: reader threads share one instance.
 */
public final class S3ObjectStore implements ObjectStore {
    private final S3Client client;
    private final String description;
    private final boolean ownsClient;

    private S3ObjectStore(S3Client client, String description, boolean ownsClient) {
        this.client = client;
        this.description = description;
        this.ownsClient = ownsClient;
    }

    /** A builder: region {@code us-east-1}, the SDK's default credentials chain, 3 retries. */
    public static Builder builder() {
        return new Builder();
    }

    /**
     * Wraps a client configured elsewhere; {@link #close()} leaves it open (its owner closes it).
     *
     * @param description what {@link #describe()} shows inside {@code s3[...]}, e.g. the endpoint
     */
    public static S3ObjectStore of(S3Client client, String description) {
        return new S3ObjectStore(
                Objects.requireNonNull(client, "client"), "s3[" + Objects.requireNonNull(description) + "]", false);
    }

    @Override
    public List<ObjectInfo> list(String bucket, String prefix) throws IOException {
        ListObjectsV2Request request =
                ListObjectsV2Request.builder().bucket(bucket).prefix(prefix).build();
        List<ObjectInfo> objects = new ArrayList<>();
        try {
            for (S3Object object : client.listObjectsV2Paginator(request).contents()) {
                objects.add(new ObjectInfo(bucket, object.key(), object.size(), unquote(object.eTag())));
            }
        } catch (SdkException e) {
            throw failure("listing", bucket, prefix + "*", e);
        }
        return objects;
    }

    @Override
    public ObjectInfo head(String bucket, String key) throws IOException {
        try {
            HeadObjectResponse head = client.headObject(b -> b.bucket(bucket).key(key));
            return new ObjectInfo(bucket, key, head.contentLength(), unquote(head.eTag()));
        } catch (SdkException e) {
            throw failure("HEAD", bucket, key, e);
        }
    }

    @Override
    public InputStream open(String bucket, String key, String etag, long start, long end) throws IOException {
        if (start < 0 || (end >= 0 && end < start)) {
            throw new IllegalArgumentException("bad range [" + start + ", " + end + ") of s3://" + bucket + "/" + key);
        }
        if (end == start) {
            return new ByteArrayInputStream(new byte[0]);
        }
        GetObjectRequest.Builder request =
                GetObjectRequest.builder().bucket(bucket).key(key);
        if (start > 0 || end >= 0) {
            request.range("bytes=" + start + "-" + (end >= 0 ? String.valueOf(end - 1) : ""));
        }
        if (etag != null && !etag.isEmpty()) {
            request.ifMatch(etag.startsWith("\"") || etag.startsWith("W/") ? etag : '"' + etag + '"');
        }
        ResponseInputStream<GetObjectResponse> body;
        try {
            body = client.getObject(request.build());
        } catch (S3Exception e) {
            if (e.statusCode() == 412) {
                throw new IOException("s3://" + bucket + "/" + key + " changed since the backfill was planned: its ETag"
                        + " is no longer \"" + etag + "\" (re-plan the backfill to read the new version)");
            }
            if (e.statusCode() == 416) {
                return new ByteArrayInputStream(new byte[0]); // the range starts at or after the end
            }
            throw failure("GET", bucket, key, e);
        } catch (SdkException e) {
            throw failure("GET", bucket, key, e);
        }
        Long length = body.response().contentLength();
        return new S3BodyStream(body, length == null ? -1 : length, "s3://" + bucket + "/" + key);
    }

    /** {@code s3[endpoint]}, or {@code s3[aws:region]} without an endpoint override. */
    @Override
    public String describe() {
        return description;
    }

    /** Closes the client, unless it was handed in through {@link #of}. */
    @Override
    public void close() {
        if (ownsClient) {
            client.close();
        }
    }

    @Override
    public String toString() {
        return description;
    }

    private static IOException failure(String operation, String bucket, String key, SdkException e) {
        String where = operation + " s3://" + bucket + "/" + key;
        if (e instanceof S3Exception && ((S3Exception) e).statusCode() == 404) {
            FileNotFoundException missing =
                    new FileNotFoundException(where + " failed: not found (" + e.getMessage() + ")");
            missing.initCause(e);
            return missing;
        }
        // SDK messages name the service, status and request id; they never include credentials.
        return new IOException(where + " failed: " + e.getMessage(), e);
    }

    static String unquote(String etag) {
        if (etag == null) {
            return "";
        }
        return etag.length() >= 2 && etag.startsWith("\"") && etag.endsWith("\"")
                ? etag.substring(1, etag.length() - 1)
                : etag;
    }

    /**
     * How {@link S3ObjectStore#builder()} configures a client. Credentials are kept only to build the
     * client; {@link #toString()} never shows the secret.
     */
    public static final class Builder {
        private URI endpoint;
        private String region = "us-east-1";
        private String accessKey;
        private String secretKey;
        private boolean pathStyleAccess;
        private Duration apiCallTimeout;
        private Duration apiCallAttemptTimeout;
        private int maxRetries = 3;

        private Builder() {}

        /** The endpoint of an S3-compatible server, e.g. {@code http://127.0.0.1:19300}; none for AWS. */
        public Builder endpoint(@Nullable URI endpoint) {
            if (endpoint != null
                    && !"http".equalsIgnoreCase(endpoint.getScheme())
                    && !"https".equalsIgnoreCase(endpoint.getScheme())) {
                throw new IllegalArgumentException("the S3 endpoint must be an http or https URI, not " + endpoint);
            }
            this.endpoint = endpoint;
            return this;
        }

        /** As {@link #endpoint(URI)}; null or blank for none. */
        public Builder endpoint(@Nullable String endpoint) {
            return endpoint(endpoint == null || endpoint.isBlank() ? null : URI.create(endpoint.trim()));
        }

        /** The region requests are signed for (S3-compatible servers mostly accept any): {@code us-east-1}. */
        public Builder region(String region) {
            if (region == null || region.isBlank()) {
                throw new IllegalArgumentException("the S3 region must not be blank");
            }
            this.region = region.trim();
            return this;
        }

        /** Static credentials (instead of the SDK's default chain). */
        public Builder credentials(String accessKey, String secretKey) {
            if (accessKey == null || accessKey.isBlank() || secretKey == null || secretKey.isEmpty()) {
                throw new IllegalArgumentException("S3 static credentials need both an access key and a secret key");
            }
            this.accessKey = accessKey;
            this.secretKey = secretKey;
            return this;
        }

        /** The SDK's default credentials chain (environment, system properties, profile, container, instance). */
        public Builder defaultCredentials() {
            this.accessKey = null;
            this.secretKey = null;
            return this;
        }

        /** Whether to address buckets as {@code endpoint/bucket/key} (most S3-compatible servers need it). */
        public Builder pathStyleAccess(boolean pathStyleAccess) {
            this.pathStyleAccess = pathStyleAccess;
            return this;
        }

        /** The limit on one API call, retries included (for a GET: until the body starts); none by default. */
        public Builder apiCallTimeout(Duration timeout) {
            this.apiCallTimeout = positive(timeout, "apiCallTimeout");
            return this;
        }

        /** The limit on one attempt of an API call; none by default. */
        public Builder apiCallAttemptTimeout(Duration timeout) {
            this.apiCallAttemptTimeout = positive(timeout, "apiCallAttemptTimeout");
            return this;
        }

        /** How often the SDK's standard retry strategy retries a failed call: 3. */
        public Builder maxRetries(int maxRetries) {
            if (maxRetries < 0) {
                throw new IllegalArgumentException("maxRetries must not be negative, not " + maxRetries);
            }
            this.maxRetries = maxRetries;
            return this;
        }

        public S3ObjectStore build() {
            AwsCredentialsProvider credentials = accessKey != null
                    ? StaticCredentialsProvider.create(AwsBasicCredentials.create(accessKey, secretKey))
                    : DefaultCredentialsProvider.builder().build();
            ClientOverrideConfiguration.Builder override =
                    ClientOverrideConfiguration.builder().retryStrategy(b -> b.maxAttempts(maxRetries + 1));
            if (apiCallTimeout != null) {
                override.apiCallTimeout(apiCallTimeout);
            }
            if (apiCallAttemptTimeout != null) {
                override.apiCallAttemptTimeout(apiCallAttemptTimeout);
            }
            S3ClientBuilder builder = S3Client.builder()
                    .region(Region.of(region))
                    .credentialsProvider(credentials)
                    .forcePathStyle(pathStyleAccess)
                    .requestChecksumCalculation(RequestChecksumCalculation.WHEN_REQUIRED)
                    .responseChecksumValidation(ResponseChecksumValidation.WHEN_REQUIRED)
                    .overrideConfiguration(override.build());
            if (endpoint != null) {
                builder.endpointOverride(endpoint);
            }
            String description = "s3[" + (endpoint != null ? endpoint.toString() : "aws:" + region) + "]";
            return new S3ObjectStore(builder.build(), description, true);
        }

        @Override
        public String toString() {
            return "S3ObjectStore.Builder[endpoint=" + endpoint + ", region=" + region + ", credentials="
                    + (accessKey != null ? "static" : "default chain") + ", pathStyleAccess=" + pathStyleAccess
                    + ", maxRetries=" + maxRetries + "]";
        }

        private static Duration positive(Duration d, String name) {
            if (d != null && (d.isZero() || d.isNegative())) {
                throw new IllegalArgumentException(name + " must be positive, not " + d);
            }
            return d;
        }
    }
}
