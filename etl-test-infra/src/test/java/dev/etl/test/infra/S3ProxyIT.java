package dev.etl.test.infra;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;

import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;
import java.util.Random;
import org.junit.jupiter.api.Test;
import software.amazon.awssdk.core.ResponseBytes;
import software.amazon.awssdk.core.sync.RequestBody;
import software.amazon.awssdk.services.s3.S3Client;
import software.amazon.awssdk.services.s3.model.GetObjectResponse;
import software.amazon.awssdk.services.s3.model.HeadObjectResponse;
import software.amazon.awssdk.services.s3.model.ListObjectsV2Response;
import software.amazon.awssdk.services.s3.model.NoSuchBucketException;
import software.amazon.awssdk.services.s3.model.NoSuchKeyException;
import software.amazon.awssdk.services.s3.model.PutObjectResponse;
import software.amazon.awssdk.services.s3.model.S3Exception;
import software.amazon.awssdk.services.s3.model.S3Object;

/**
 * The local S3-compatible server does, through the AWS SDK v2, what the S3 backfill source relies on:
 * listing by prefix across pages, HEAD with size and ETag, ranged GETs, a conditional GET that fails
 * once the object changed, deletes, and authentication that refuses a wrong key.
 */
@LocalInfra(InfraServer.S3)
class S3ProxyIT {

    private static final long SEED = System.nanoTime();

    /** Object contents; every call differs (the If-Match test relies on it). Tests run one at a time. */
    private static final Random RANDOM = new Random(SEED);

    static {
        System.out.println("S3ProxyIT seed " + SEED);
    }

    @Test
    void listsByPrefixInKeyOrderAcrossPages(S3TestBuckets buckets) {
        S3Client s3 = buckets.client();
        String bucket = buckets.create("list");
        List<String> expected = new ArrayList<>();
        for (int i = 0; i < 23; i++) {
            String key = String.format("day=2026-01-%02d/part-%03d.avro", 1 + i % 3, i);
            put(s3, bucket, key, bytes(10 + i));
            expected.add(key);
        }
        put(s3, bucket, "other/part-000.avro", bytes(5));
        put(s3, bucket, "day.txt", bytes(5)); // shares the prefix "day" but not "day="
        expected.sort(null);

        List<String> listed = new ArrayList<>();
        List<Boolean> truncated = new ArrayList<>();
        String token = null;
        do {
            String continuation = token;
            ListObjectsV2Response page = s3.listObjectsV2((request) ->
                    request.bucket(bucket).prefix("day=").maxKeys(10).continuationToken(continuation));
            assertThat(page.contents()).hasSizeLessThanOrEqualTo(10);
            page.contents().forEach((object) -> listed.add(object.key()));
            truncated.add(page.isTruncated());
            token = page.nextContinuationToken();
        } while (Boolean.TRUE.equals(truncated.get(truncated.size() - 1)) && truncated.size() < 10);

        assertThat(listed).containsExactlyElementsOf(expected);
        assertThat(truncated).containsExactly(true, true, false);
        assertThat(s3.listObjectsV2Paginator((request) ->
                                request.bucket(bucket).prefix("day=").maxKeys(4))
                        .contents())
                .extracting(S3Object::key)
                .containsExactlyElementsOf(expected);
        assertThat(s3.listObjectsV2((request) -> request.bucket(bucket).prefix("day=2026-01-02/"))
                        .contents())
                .extracting(S3Object::size)
                .allSatisfy((size) -> assertThat(size).isGreaterThanOrEqualTo(10L));
    }

    @Test
    void headGivesSizeAndTheEtagOfThePut(S3TestBuckets buckets) {
        S3Client s3 = buckets.client();
        String bucket = buckets.create("head");
        byte[] content = bytes(4_321);
        PutObjectResponse put = put(s3, bucket, "a/object.bin", content);

        HeadObjectResponse head =
                s3.headObject((request) -> request.bucket(bucket).key("a/object.bin"));

        assertThat(head.contentLength()).isEqualTo(content.length);
        assertThat(head.eTag()).isEqualTo(put.eTag()).isEqualTo('"' + md5Hex(content) + '"');
        assertThat(s3.listObjectsV2((request) -> request.bucket(bucket)).contents())
                .singleElement()
                .satisfies((object) -> {
                    assertThat(object.size()).isEqualTo(content.length);
                    assertThat(object.eTag()).isEqualTo(head.eTag());
                });
    }

    @Test
    void rangedGetReturnsExactlyTheRequestedBytes(S3TestBuckets buckets) {
        S3Client s3 = buckets.client();
        String bucket = buckets.create("range");
        byte[] content = bytes(10_000);
        put(s3, bucket, "split.bin", content);

        ResponseBytes<GetObjectResponse> middle = s3.getObjectAsBytes(
                (request) -> request.bucket(bucket).key("split.bin").range("bytes=1000-1999"));
        ResponseBytes<GetObjectResponse> tail = s3.getObjectAsBytes(
                (request) -> request.bucket(bucket).key("split.bin").range("bytes=9990-"));

        assertThat(middle.asByteArray()).isEqualTo(slice(content, 1000, 2000));
        assertThat(middle.response().contentLength()).isEqualTo(1000L);
        assertThat(middle.response().contentRange()).isEqualTo("bytes 1000-1999/10000");
        assertThat(tail.asByteArray()).isEqualTo(slice(content, 9990, 10_000));
    }

    @Test
    void getIfMatchAStaleEtagFailsWith412(S3TestBuckets buckets) {
        S3Client s3 = buckets.client();
        String bucket = buckets.create("if-match");
        String before = put(s3, bucket, "changing.bin", bytes(2_000)).eTag();
        byte[] replaced = bytes(2_000);
        String after = put(s3, bucket, "changing.bin", replaced).eTag();
        assertThat(after).isNotEqualTo(before);

        assertThatExceptionOfType(S3Exception.class)
                .isThrownBy(() -> s3.getObjectAsBytes(
                        (request) -> request.bucket(bucket).key("changing.bin").ifMatch(before)))
                .satisfies((ex) -> assertThat(ex.statusCode()).isEqualTo(412));
        assertThatExceptionOfType(S3Exception.class)
                .isThrownBy(() -> s3.getObjectAsBytes((request) -> request.bucket(bucket)
                        .key("changing.bin")
                        .ifMatch(before)
                        .range("bytes=0-99")))
                .satisfies((ex) -> assertThat(ex.statusCode()).isEqualTo(412));
        assertThat(s3.getObjectAsBytes((request) -> request.bucket(bucket)
                                .key("changing.bin")
                                .ifMatch(after)
                                .range("bytes=0-99"))
                        .asByteArray())
                .isEqualTo(slice(replaced, 0, 100));
    }

    @Test
    void deletedObjectIsGone(S3TestBuckets buckets) {
        S3Client s3 = buckets.client();
        String bucket = buckets.create("delete");
        put(s3, bucket, "doomed.bin", bytes(10));
        put(s3, bucket, "kept.bin", bytes(10));

        s3.deleteObject((request) -> request.bucket(bucket).key("doomed.bin"));

        assertThatExceptionOfType(NoSuchKeyException.class)
                .isThrownBy(() ->
                        s3.getObjectAsBytes((request) -> request.bucket(bucket).key("doomed.bin")));
        assertThatExceptionOfType(S3Exception.class)
                .isThrownBy(
                        () -> s3.headObject((request) -> request.bucket(bucket).key("doomed.bin")))
                .satisfies((ex) -> assertThat(ex.statusCode()).isEqualTo(404));
        assertThat(s3.listObjectsV2((request) -> request.bucket(bucket)).contents())
                .extracting(S3Object::key)
                .containsExactly("kept.bin");
    }

    @Test
    void aWrongSecretKeyIsRefused(InfraEndpoints infra) {
        S3InfraEndpoints real = infra.s3();
        S3InfraEndpoints wrong =
                new S3InfraEndpoints(real.endpoint(), real.region(), real.accessKey(), real.secretKey() + "x");
        try (S3Client s3 = S3TestBuckets.newClient(wrong)) {
            assertThatExceptionOfType(S3Exception.class)
                    .isThrownBy(s3::listBuckets)
                    .satisfies((ex) -> assertThat(ex.statusCode()).isEqualTo(403));
        }
    }

    @Test
    void closingTheBucketsEmptiesAndDeletesThem(InfraEndpoints infra, S3TestBuckets buckets) {
        String bucket;
        try (S3TestBuckets own = S3TestBuckets.open(infra)) {
            bucket = own.create("closing");
            for (int i = 0; i < 5; i++) {
                put(own.client(), bucket, "k" + i, bytes(3));
            }
            own.client()
                    .createMultipartUpload((request) -> request.bucket(bucket).key("unfinished"));
        }

        assertThatExceptionOfType(NoSuchBucketException.class)
                .isThrownBy(() -> buckets.client().headBucket((request) -> request.bucket(bucket)));
    }

    private static PutObjectResponse put(S3Client s3, String bucket, String key, byte[] content) {
        return s3.putObject((request) -> request.bucket(bucket).key(key), RequestBody.fromBytes(content));
    }

    private static byte[] bytes(int length) {
        byte[] bytes = new byte[length];
        RANDOM.nextBytes(bytes);
        return bytes;
    }

    private static byte[] slice(byte[] content, int from, int to) {
        byte[] slice = new byte[to - from];
        System.arraycopy(content, from, slice, 0, slice.length);
        return slice;
    }

    private static String md5Hex(byte[] content) {
        try {
            return HexFormat.of().formatHex(MessageDigest.getInstance("MD5").digest(content));
        } catch (NoSuchAlgorithmException ex) {
            throw new IllegalStateException(ex);
        }
    }
}
