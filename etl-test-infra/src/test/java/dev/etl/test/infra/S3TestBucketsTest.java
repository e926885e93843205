package dev.etl.test.infra;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.Random;
import org.junit.jupiter.api.Test;

class S3TestBucketsTest {

    private static final String RANDOM = "0123456789abcdef0123456789abcdef";

    @Test
    void bucketNameIsThePrefixMadeValidAndARandomSuffix() {
        assertThat(S3TestBuckets.bucketName("S3ProxyIT", RANDOM)).isEqualTo("s3proxyit-0123456789");
        assertThat(S3TestBuckets.bucketName("backfill_orders.v2", RANDOM)).isEqualTo("backfill-orders-v2-0123456789");
        assertThat(S3TestBuckets.bucketName("--", RANDOM)).isEqualTo("test-0123456789");
        assertThat(S3TestBuckets.bucketName("x".repeat(80), RANDOM)).hasSize(63).endsWith("-0123456789");
    }

    /** Whatever the prefix, the name passes S3's rules: 3-63 of [a-z0-9-], a letter or digit at both ends. */
    @Test
    void anyPrefixGivesAValidBucketName() {
        long seed = System.nanoTime();
        System.out.println("S3TestBucketsTest seed " + seed);
        Random random = new Random(seed);
        String alphabet = "abcXYZ019-_.~ /é";
        for (int i = 0; i < 2_000; i++) {
            StringBuilder prefix = new StringBuilder();
            int length = random.nextInt(90);
            for (int c = 0; c < length; c++) {
                prefix.append(alphabet.charAt(random.nextInt(alphabet.length())));
            }
            String name = S3TestBuckets.bucketName(prefix.toString(), RANDOM);
            assertThat(name)
                    .as("prefix '%s' (seed %d)", prefix, seed)
                    .matches("[a-z0-9][a-z0-9-]{1,61}[a-z0-9]")
                    .doesNotContain("--0123456789")
                    .endsWith("-0123456789");
        }
    }
}
