package dev.etl.s3;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.etl.s3.AvroTestFiles.AvroFile;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.Reader;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Properties;
import java.util.Random;
import java.util.UUID;
import java.util.zip.GZIPOutputStream;
import org.apache.avro.Schema;
import org.apache.avro.SchemaBuilder;
import org.apache.avro.file.CodecFactory;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import software.amazon.awssdk.auth.credentials.AwsBasicCredentials;
import software.amazon.awssdk.auth.credentials.StaticCredentialsProvider;
import software.amazon.awssdk.core.checksums.RequestChecksumCalculation;
import software.amazon.awssdk.core.checksums.ResponseChecksumValidation;
import software.amazon.awssdk.core.sync.RequestBody;
import software.amazon.awssdk.regions.Region;
import software.amazon.awssdk.services.s3.S3Client;
import software.amazon.awssdk.services.s3.model.S3Object;

/**
 * {@link S3ObjectStore} and the formats against the local S3 server (S3Proxy, {@code s3.*} in the
 * infrastructure's {@code endpoints.properties}: system property {@code etl.infra.dir}, else
 * {@code ETL_INFRA_DIR}). Skipped, saying why, when that directory has no S3 endpoint.
 */
class S3ObjectStoreIT {
    private static Properties endpoints;
    private static S3Client admin;
    private static S3ObjectStore store;
    private static String bucket;

    @BeforeAll
    static void connect() throws IOException {
        String dir = System.getProperty("etl.infra.dir", System.getenv("ETL_INFRA_DIR"));
        Assumptions.assumeTrue(dir != null, "no etl.infra.dir / ETL_INFRA_DIR: no local S3 server");
        Path file = Path.of(dir, "endpoints.properties");
        Assumptions.assumeTrue(Files.exists(file), "no " + file);
        endpoints = new Properties();
        try (Reader r = Files.newBufferedReader(file)) {
            endpoints.load(r);
        }
        Assumptions.assumeTrue(endpoints.getProperty("s3.endpoint") != null, "no s3.endpoint in " + file);
        admin = S3Client.builder()
                .endpointOverride(URI.create(endpoints.getProperty("s3.endpoint")))
                .region(Region.of(endpoints.getProperty("s3.region", "us-east-1")))
                .credentialsProvider(StaticCredentialsProvider.create(AwsBasicCredentials.create(
                        endpoints.getProperty("s3.access-key"), endpoints.getProperty("s3.secret-key"))))
                .forcePathStyle(true)
                .requestChecksumCalculation(RequestChecksumCalculation.WHEN_REQUIRED)
                .responseChecksumValidation(ResponseChecksumValidation.WHEN_REQUIRED)
                .build();
        store = S3ObjectStore.builder()
                .endpoint(endpoints.getProperty("s3.endpoint"))
                .region(endpoints.getProperty("s3.region", "us-east-1"))
                .credentials(endpoints.getProperty("s3.access-key"), endpoints.getProperty("s3.secret-key"))
                .pathStyleAccess(true)
                .build();
        bucket = "etl-s3-it-" + UUID.randomUUID().toString().substring(0, 8);
        admin.createBucket(b -> b.bucket(bucket));
    }

    @AfterAll
    static void cleanUp() {
        if (admin == null) {
            return;
        }
        for (S3Object object :
                admin.listObjectsV2Paginator(b -> b.bucket(bucket)).contents()) {
            admin.deleteObject(b -> b.bucket(bucket).key(object.key()));
        }
        admin.deleteBucket(b -> b.bucket(bucket));
        admin.close();
        store.close();
    }

    @Test
    void plansAndReadsAvroAndNdjsonObjectsSplitByRanges() throws Exception {
        Schema schema = SchemaBuilder.record("It")
                .fields()
                .requiredLong("id")
                .optionalString("s")
                .endRecord();
        RandomAvro avro = new RandomAvro(new Random(4));
        List<Object> records = new ArrayList<>();
        for (int i = 0; i < 30_000; i++) {
            records.add(avro.value(schema));
        }
        AvroFile file = AvroTestFiles.write(schema, records, CodecFactory.deflateCodec(3), 8_000, 0);
        put("in/a.avro", file.bytes());
        StringBuilder lines = new StringBuilder();
        for (int i = 0; i < 30_000; i++) {
            lines.append("{\"i\":").append(i).append("}\n");
        }
        byte[] plain = lines.toString().getBytes(StandardCharsets.UTF_8);
        put("in/b.ndjson", plain);
        put("in/c.ndjson.gz", gzip(plain));

        List<ObjectInfo> objects = store.list(bucket, "in/");
        assertThat(objects).extracting(ObjectInfo::key).containsExactly("in/a.avro", "in/b.ndjson", "in/c.ndjson.gz");
        assertThat(store.head(bucket, "in/b.ndjson")).isEqualTo(objects.get(1));

        BackfillFormats formats = BackfillFormats.discover();
        for (ObjectInfo object : objects) {
            BackfillFormat format = formats.forKey(object.key());
            List<WorkItem> plan = format.plan(store, object, 20_000);
            List<byte[]> rows = new ArrayList<>();
            for (WorkItem item : plan) {
                RecordingOutput out = new RecordingOutput();
                format.read(store, WorkItem.decode(item.encode(), 0, item.encode().length), 0, out);
                rows.addAll(out.rows);
            }
            assertThat(rows).as(object.key()).hasSize(30_000);
            if (format instanceof NdjsonFormat) {
                assertThat(new String(rows.get(29_999), StandardCharsets.UTF_8)).isEqualTo("{\"i\":29999}");
            } else {
                assertThat(plan).hasSizeGreaterThan(3);
                for (int i = 0; i < rows.size(); i++) {
                    byte[] row = rows.get(i);
                    assertThat(java.util.Arrays.copyOfRange(row, AvroRows.HEADER_LENGTH, row.length))
                            .isEqualTo(RandomAvro.body(schema, records.get(i)));
                }
            }
        }
    }

    @Test
    void rangesAndTheEtagCheck() throws IOException {
        byte[] data = new byte[300_000];
        new Random(8).nextBytes(data);
        put("r/x", data);
        ObjectInfo info = store.head(bucket, "r/x");
        try (InputStream in = store.open(bucket, "r/x", info.etag(), 1000, 2000)) {
            assertThat(in.readAllBytes()).isEqualTo(java.util.Arrays.copyOfRange(data, 1000, 2000));
        }
        try (InputStream in = store.open(bucket, "r/x", info.etag(), 299_000, -1)) {
            assertThat(in.readAllBytes()).hasSize(1000);
        }
        try (InputStream in = store.open(bucket, "r/x", info.etag(), 300_000, -1)) {
            assertThat(in.readAllBytes()).isEmpty();
        }
        try (InputStream in = store.open(bucket, "r/x", info.etag(), 0, -1)) {
            assertThat(in.read(new byte[10])).isPositive(); // closed early: aborted, not drained
        }
        put("r/x", new byte[10]);
        assertThatThrownBy(() -> store.open(bucket, "r/x", info.etag(), 0, -1))
                .isInstanceOf(IOException.class)
                .hasMessageContaining("s3://" + bucket + "/r/x changed since the backfill was planned");
        assertThatThrownBy(() -> store.head(bucket, "r/missing")).isInstanceOf(java.io.FileNotFoundException.class);
    }

    private static void put(String key, byte[] data) {
        admin.putObject(b -> b.bucket(bucket).key(key), RequestBody.fromBytes(data));
    }

    private static byte[] gzip(byte[] plain) throws IOException {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        try (GZIPOutputStream gz = new GZIPOutputStream(out)) {
            gz.write(plain);
        }
        return out.toByteArray();
    }
}
