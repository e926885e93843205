package dev.etl.sample;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.PrintStream;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.Random;
import org.apache.avro.Schema;
import org.apache.avro.file.CodecFactory;
import org.apache.avro.file.DataFileWriter;
import org.apache.avro.generic.GenericDatumWriter;
import org.apache.avro.generic.GenericRecord;
import software.amazon.awssdk.auth.credentials.AwsBasicCredentials;
import software.amazon.awssdk.auth.credentials.StaticCredentialsProvider;
import software.amazon.awssdk.core.sync.RequestBody;
import software.amazon.awssdk.regions.Region;
import software.amazon.awssdk.services.s3.S3Client;
import software.amazon.awssdk.services.s3.model.BucketAlreadyOwnedByYouException;

/**
 * Writes N deterministic orders (those of {@link OrderLoadGenerator}'s generation) as Avro object container
 * files to a bucket and prefix of an S3-compatible store: the archive the {@code backfill} profile reads.
 * The orders are spread over {@code --files} objects {@code <prefix>part-00000.avro}, … in id order; even
 * files are written with schema v1 (no coupon) and odd ones with v2, so the reader resolves two writer
 * schemas, as it does for the topic. Prints the totals the table must hold afterwards.
 *
 * <p>In the service's executable jar; a plain main (no Spring context), run through Spring Boot's
 * {@code PropertiesLauncher}. The secret key is read from the environment ({@code S3_SECRET_KEY}), never
 * from the command line:
 *
 * <pre>
 * S3_SECRET_KEY=... java -cp sample-service/target/sample-service.jar -Dloader.main=dev.etl.sample.OrderArchiveWriter \
 *      org.springframework.boot.loader.launch.PropertiesLauncher \
 *      --bucket orders-archive --prefix orders/ --orders 100000 --files 8 --codec zstandard
 * </pre>
 */
public final class OrderArchiveWriter {
    private static final String USAGE = "--bucket B [--prefix orders/] [--orders N] [--files 8] "
            + "[--codec deflate|zstandard|null] [--seed 42] [--endpoint http://127.0.0.1:19300] [--region us-east-1] "
            + "[--access-key etl-local] [--create-bucket true] [--totals-file F]; secret key in S3_SECRET_KEY";

    private OrderArchiveWriter() {}

    public static void main(String[] args) throws Exception {
        if (System.getProperty("logback.configurationFile") == null) {
            System.setProperty("logback.configurationFile", "generator-logback.xml");
        }
        Map<String, String> opts = OrderLoadGenerator.parse(args, USAGE);
        String bucket = OrderLoadGenerator.require(opts, "bucket");
        String prefix = opts.getOrDefault("prefix", "orders/");
        long orders = Long.parseLong(opts.getOrDefault("orders", "100000"));
        int files = Integer.parseInt(opts.getOrDefault("files", "8"));
        String codec = opts.getOrDefault("codec", "deflate");
        long seed = Long.parseLong(opts.getOrDefault("seed", "42"));
        String secretKey = System.getenv("S3_SECRET_KEY");
        if (secretKey == null || secretKey.isBlank()) {
            throw new IllegalArgumentException("set the environment variable S3_SECRET_KEY (the local S3Proxy's is "
                    + "s3.secret-key in .infra/endpoints.properties)");
        }
        long started = System.nanoTime();
        try (S3Client s3 = S3Client.builder()
                .endpointOverride(URI.create(opts.getOrDefault("endpoint", "http://127.0.0.1:19300")))
                .forcePathStyle(true)
                .region(Region.of(opts.getOrDefault("region", "us-east-1")))
                .credentialsProvider(StaticCredentialsProvider.create(AwsBasicCredentials.create(
                        opts.getOrDefault("access-key", env("S3_ACCESS_KEY", "etl-local")), secretKey)))
                .build()) {
            if (Boolean.parseBoolean(opts.getOrDefault("create-bucket", "true"))) {
                try {
                    s3.createBucket(b -> b.bucket(bucket));
                } catch (BucketAlreadyOwnedByYouException e) {
                    // written into again: the keys below replace their objects
                }
            }
            OrderLoadGenerator.Totals totals = write(s3, bucket, prefix, orders, files, codec, seed);
            double seconds = (System.nanoTime() - started) / 1e9;
            System.err.printf(
                    "wrote %d orders to s3://%s/%s (%d %s files) in %.1f s%n",
                    orders, bucket, prefix, files, codec, seconds);
            totals.print(System.out);
            if (opts.containsKey("totals-file")) {
                try (PrintStream file = new PrintStream(
                        Files.newOutputStream(Path.of(opts.get("totals-file"))), true, StandardCharsets.UTF_8)) {
                    totals.print(file);
                }
            }
        }
    }

    /** Writes orders {@code 1..count} in {@code files} container files; answers what the table must hold. */
    public static OrderLoadGenerator.Totals write(
            S3Client s3, String bucket, String prefix, long count, int files, String codec, long seed)
            throws IOException {
        if (files <= 0 || count < 0) {
            throw new IllegalArgumentException("--files must be positive and --orders not negative");
        }
        Schema v1 = OrderLoadGenerator.load("/schemas/order-v1.avsc");
        Schema v2 = dev.etl.sample.avro.Order.getClassSchema();
        CodecFactory codecFactory = CodecFactory.fromString(codec);
        Random random = new Random(seed);
        long cancelled = 0;
        long lines = 0;
        long id = 1;
        for (int f = 0; f < files; f++) {
            long last = count * (f + 1) / files; // ids (previous last, last] in file f
            boolean useV2 = (f & 1) == 1;
            Schema schema = useV2 ? v2 : v1;
            ByteArrayOutputStream bytes = new ByteArrayOutputStream();
            try (DataFileWriter<GenericRecord> writer =
                    new DataFileWriter<GenericRecord>(new GenericDatumWriter<>(schema)).setCodec(codecFactory)) {
                writer.create(schema, bytes);
                for (; id <= last; id++) {
                    GenericRecord order = OrderLoadGenerator.order(schema, id, random, useV2);
                    if ("CANCELLED".equals(order.get("status").toString())) {
                        cancelled++;
                    } else {
                        lines += ((List<?>) order.get("lines")).size();
                    }
                    writer.append(order);
                }
            }
            String key = prefix + String.format("part-%05d.avro", f);
            s3.putObject(
                    b -> b.bucket(bucket).key(key).contentType("avro/binary"),
                    RequestBody.fromBytes(bytes.toByteArray()));
        }
        return new OrderLoadGenerator.Totals(count, cancelled, count - cancelled, lines);
    }

    private static String env(String name, String otherwise) {
        String value = System.getenv(name);
        return (value == null || value.isBlank()) ? otherwise : value;
    }
}
