package dev.etl.test.infra;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.UUID;
import software.amazon.awssdk.auth.credentials.AwsBasicCredentials;
import software.amazon.awssdk.auth.credentials.StaticCredentialsProvider;
import software.amazon.awssdk.awscore.retry.AwsRetryStrategy;
import software.amazon.awssdk.core.exception.SdkException;
import software.amazon.awssdk.regions.Region;
import software.amazon.awssdk.services.s3.S3Client;
import software.amazon.awssdk.services.s3.S3ClientBuilder;
import software.amazon.awssdk.services.s3.model.AbortMultipartUploadRequest;
import software.amazon.awssdk.services.s3.model.Delete;
import software.amazon.awssdk.services.s3.model.DeleteObjectsResponse;
import software.amazon.awssdk.services.s3.model.MultipartUpload;
import software.amazon.awssdk.services.s3.model.ObjectIdentifier;
import software.amazon.awssdk.services.s3.model.S3Object;

/**
 * Creates uniquely named buckets on the local S3-compatible server and, when closed, empties and
 * deletes them, so each test class works on buckets no other run has touched.
 *
 * <p>Under {@link LocalInfra}, declare a parameter of this type: one instance per test class, closed
 * (buckets emptied and deleted, client closed) after the class. Created directly with {@link #open},
 * the caller closes it.
 *
 * <p>The {@link #client()} is an AWS SDK v2 client for the server: endpoint override, path-style
 * addressing, the region and static credentials of {@link S3InfraEndpoints}, the SDK's default
 * retries and checksums. {@link #newClient(S3InfraEndpoints)} makes another one.
 *
 * <p>Thread-safe.
 */
public final class S3TestBuckets implements AutoCloseable {

    /** The longest bucket name S3 allows. */
    private static final int MAX_NAME = 63;

    /** Length of the random suffix, after a hyphen. */
    private static final int SUFFIX = 10;

    private final S3InfraEndpoints endpoints;
    private final S3Client client;
    private final List<String> created = new ArrayList<>();

    private S3TestBuckets(S3InfraEndpoints endpoints, S3Client client) {
        this.endpoints = endpoints;
        this.client = client;
    }

    /**
     * Opens a client on the local S3-compatible server.
     * @param endpoints where the servers listen; must list the S3 server
     * @return the bucket factory; close it to delete its buckets
     * @throws IllegalStateException if {@code endpoints} lists no S3 server (see {@link InfraEndpoints#s3()})
     */
    public static S3TestBuckets open(InfraEndpoints endpoints) {
        S3InfraEndpoints s3 = endpoints.s3();
        return new S3TestBuckets(s3, newClient(s3));
    }

    /**
     * Makes an AWS SDK v2 client for the local server: endpoint override, path-style addressing, the
     * region and the static credentials of {@code s3}, otherwise the SDK's defaults. The caller closes it.
     * @param s3 the server
     * @return a new client
     */
    public static S3Client newClient(S3InfraEndpoints s3) {
        return builder(s3).build();
    }

    /** A client that tries once and gives up after {@code timeout}: the probe's. */
    static S3Client newProbeClient(S3InfraEndpoints s3, Duration timeout) {
        return builder(s3)
                .overrideConfiguration((config) -> config.apiCallTimeout(timeout)
                        .apiCallAttemptTimeout(timeout)
                        .retryStrategy(AwsRetryStrategy.doNotRetry()))
                .build();
    }

    private static S3ClientBuilder builder(S3InfraEndpoints s3) {
        return S3Client.builder()
                .endpointOverride(s3.endpointUri())
                .forcePathStyle(true)
                .region(Region.of(s3.region()))
                .credentialsProvider(
                        StaticCredentialsProvider.create(AwsBasicCredentials.create(s3.accessKey(), s3.secretKey())));
    }

    /**
     * Creates a bucket named {@code <prefix>-<random>}.
     * @param prefix readable part of the name: lower-cased, characters a bucket name does not allow
     * become {@code -}, cut to fit the 63 characters of a bucket name
     * @return the bucket name
     * @throws IllegalStateException if the server does not create the bucket
     */
    public String create(String prefix) {
        String name = bucketName(prefix, UUID.randomUUID().toString().replace("-", ""));
        try {
            client.createBucket((request) -> request.bucket(name));
        } catch (SdkException ex) {
            throw new IllegalStateException(
                    "S3 at " + endpoints.endpoint() + " did not create bucket " + name + ": " + ex, ex);
        }
        synchronized (created) {
            created.add(name);
        }
        return name;
    }

    /** {@code <prefix>-<suffix>} within S3's rules: 3-63 of {@code [a-z0-9-]}, a letter or digit at both ends. */
    static String bucketName(String prefix, String random) {
        String readable =
                prefix.toLowerCase(Locale.ROOT).replaceAll("[^a-z0-9-]+", "-").replaceAll("^-+", "");
        if (readable.length() > MAX_NAME - SUFFIX - 1) {
            readable = readable.substring(0, MAX_NAME - SUFFIX - 1);
        }
        readable = readable.replaceAll("-+$", "");
        if (readable.isEmpty()) {
            readable = "test";
        }
        return readable + "-" + random.toLowerCase(Locale.ROOT).substring(0, SUFFIX);
    }

    /**
     * Returns the client this instance uses; it stays owned by this instance (do not close).
     * @return the client
     */
    public S3Client client() {
        return client;
    }

    /**
     * Returns the server's endpoint, region and credential, for clients of the code under test.
     * @return the S3 endpoints
     */
    public S3InfraEndpoints endpoints() {
        return endpoints;
    }

    /**
     * Aborts unfinished multipart uploads in the buckets created here, deletes their objects and the
     * buckets, then closes the client.
     * @throws IllegalStateException if a bucket could not be emptied or deleted; the message names it
     * (the other buckets are still cleaned up, the client still closed)
     */
    @Override
    public void close() {
        List<String> buckets;
        synchronized (created) {
            buckets = List.copyOf(created);
            created.clear();
        }
        IllegalStateException failure = null;
        try {
            for (String bucket : buckets) {
                try {
                    delete(bucket);
                } catch (SdkException | IllegalStateException ex) {
                    IllegalStateException each = new IllegalStateException(
                            "S3 at " + endpoints.endpoint() + " did not empty and delete bucket " + bucket + ": " + ex,
                            ex);
                    if (failure == null) {
                        failure = each;
                    } else {
                        failure.addSuppressed(each);
                    }
                }
            }
        } finally {
            client.close();
        }
        if (failure != null) {
            throw failure;
        }
    }

    private void delete(String bucket) {
        for (MultipartUpload upload : client.listMultipartUploadsPaginator((request) -> request.bucket(bucket))
                .uploads()) {
            client.abortMultipartUpload(AbortMultipartUploadRequest.builder()
                    .bucket(bucket)
                    .key(upload.key())
                    .uploadId(upload.uploadId())
                    .build());
        }
        // One listing page (at most 1,000 keys) is one DeleteObjects request, S3's limit for it.
        client.listObjectsV2Paginator((request) -> request.bucket(bucket)).forEach((page) -> {
            if (page.contents().isEmpty()) {
                return;
            }
            List<ObjectIdentifier> keys = new ArrayList<>(page.contents().size());
            for (S3Object object : page.contents()) {
                keys.add(ObjectIdentifier.builder().key(object.key()).build());
            }
            DeleteObjectsResponse response = client.deleteObjects((request) -> request.bucket(bucket)
                    .delete(Delete.builder().objects(keys).quiet(true).build()));
            if (response.hasErrors() && !response.errors().isEmpty()) {
                throw new IllegalStateException(
                        "DeleteObjects failed for " + response.errors().size() + " keys, first "
                                + response.errors().get(0).key() + ": "
                                + response.errors().get(0).code() + " "
                                + response.errors().get(0).message());
            }
        });
        client.deleteBucket((request) -> request.bucket(bucket));
    }
}
