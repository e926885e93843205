package dev.etl.s3;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.etl.s3.AvroTestFiles.AvroFile;
import java.io.FileNotFoundException;
import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Random;
import org.apache.avro.Schema;
import org.apache.avro.SchemaBuilder;
import org.apache.avro.file.CodecFactory;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

class S3ObjectStoreTest {
    private static final String SECRET = "s3cr3t-never-shown";

    private FakeS3Server server;
    private S3ObjectStore store;

    @BeforeEach
    void start() throws IOException {
        server = new FakeS3Server();
        store = S3ObjectStore.builder()
                .endpoint(server.endpoint())
                .region("eu-west-1")
                .credentials("AKIATEST", SECRET)
                .pathStyleAccess(true)
                .apiCallTimeout(Duration.ofSeconds(20))
                .apiCallAttemptTimeout(Duration.ofSeconds(10))
                .maxRetries(1)
                .build();
    }

    @AfterEach
    void stop() {
        store.close();
        server.close();
    }

    @Test
    void listPaginatesInKeyOrder() throws IOException {
        for (String key : List.of("p/e", "p/a", "p/c", "p/b", "p/d", "q/x")) {
            server.put("bkt", key, key.getBytes(StandardCharsets.UTF_8));
        }
        List<ObjectInfo> listed = store.list("bkt", "p/");
        assertThat(listed).extracting(ObjectInfo::key).containsExactly("p/a", "p/b", "p/c", "p/d", "p/e");
        assertThat(listed.get(0))
                .isEqualTo(new ObjectInfo(
                        "bkt", "p/a", 3, InMemoryObjectStore.md5("p/a".getBytes(StandardCharsets.UTF_8))));
        assertThat(store.list("bkt", "none/")).isEmpty();
    }

    @Test
    void headGivesSizeAndUnquotedEtagAndAMissingObjectIsFileNotFound() throws IOException {
        byte[] data = new byte[1234];
        server.put("bkt", "h", data);
        assertThat(store.head("bkt", "h")).isEqualTo(new ObjectInfo("bkt", "h", 1234, InMemoryObjectStore.md5(data)));
        assertThatThrownBy(() -> store.head("bkt", "missing"))
                .isInstanceOf(FileNotFoundException.class)
                .hasMessageContaining("s3://bkt/missing");
    }

    @Test
    void openReadsTheRangeAsked() throws IOException {
        byte[] data = new byte[100_000];
        new Random(1).nextBytes(data);
        server.put("bkt", "r", data);
        String etag = InMemoryObjectStore.md5(data);
        assertThat(read(store.open("bkt", "r", etag, 0, -1))).isEqualTo(data);
        assertThat(read(store.open("bkt", "r", "", 10, 20))).isEqualTo(Arrays.copyOfRange(data, 10, 20));
        assertThat(read(store.open("bkt", "r", etag, 99_990, -1))).isEqualTo(Arrays.copyOfRange(data, 99_990, 100_000));
        assertThat(read(store.open("bkt", "r", etag, 99_990, 200_000)))
                .isEqualTo(Arrays.copyOfRange(data, 99_990, 100_000));
        assertThat(read(store.open("bkt", "r", etag, 100_000, -1))).isEmpty();
        int gets = server.gets.get();
        assertThat(read(store.open("bkt", "r", etag, 50, 50))).isEmpty();
        assertThat(server.gets.get()).as("an empty range needs no request").isEqualTo(gets);
        assertThat(server.ranges).contains("", "bytes=10-19", "bytes=99990-", "bytes=99990-199999");
    }

    @Test
    void closingEarlyLeavesTheStoreUsable() throws IOException {
        byte[] data = new byte[4 << 20];
        server.put("bkt", "big", data);
        for (int i = 0; i < 5; i++) {
            try (InputStream in = store.open("bkt", "big", "", 0, -1)) {
                assertThat(in.read(new byte[100])).isPositive();
            }
        }
        assertThat(store.head("bkt", "big").size()).isEqualTo(data.length);
    }

    @Test
    void anObjectChangedSinceThePlanIsAnIOExceptionSayingSo() {
        server.put("bkt", "changed.avro", new byte[10]);
        assertThatThrownBy(() -> store.open("bkt", "changed.avro", "0123456789abcdef", 0, -1))
                .isInstanceOf(IOException.class)
                .hasMessageContaining("s3://bkt/changed.avro changed since the backfill was planned");
    }

    @Test
    void errorsNameTheObjectButNeverTheCredentials() {
        assertThatThrownBy(() -> store.open("forbidden", "k", "", 0, -1))
                .isInstanceOf(IOException.class)
                .hasMessageContaining("GET s3://forbidden/k failed")
                .hasMessageContaining("403")
                .satisfies(e -> assertThat(chain(e)).doesNotContain(SECRET));
        assertThatThrownBy(() -> store.list("forbidden", "p/"))
                .isInstanceOf(IOException.class)
                .hasMessageContaining("s3://forbidden/p/*")
                .satisfies(e -> assertThat(chain(e)).doesNotContain(SECRET));
        assertThat(S3ObjectStore.builder().credentials("AKIA", SECRET).toString())
                .doesNotContain(SECRET);
    }

    @Test
    void describesItsEndpoint() {
        assertThat(store.describe()).isEqualTo("s3[" + server.endpoint() + "]");
        try (S3ObjectStore aws =
                S3ObjectStore.builder().region("us-west-2").defaultCredentials().build()) {
            assertThat(aws.describe()).isEqualTo("s3[aws:us-west-2]");
        }
    }

    @Test
    void builderRefusesBadSettings() {
        assertThatThrownBy(() -> S3ObjectStore.builder().credentials("AKIA", ""))
                .isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> S3ObjectStore.builder().endpoint("ftp://host"))
                .isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> S3ObjectStore.builder().maxRetries(-1)).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> S3ObjectStore.builder().apiCallTimeout(Duration.ZERO))
                .isInstanceOf(IllegalArgumentException.class);
    }

    @Test
    void theFormatsReadThroughIt() throws Exception {
        Schema schema = SchemaBuilder.record("S")
                .fields()
                .requiredLong("id")
                .requiredString("s")
                .endRecord();
        RandomAvro avro = new RandomAvro(new Random(2));
        List<Object> records = new ArrayList<>();
        for (int i = 0; i < 5000; i++) {
            records.add(avro.value(schema));
        }
        AvroFile file = AvroTestFiles.write(schema, records, CodecFactory.zstandardCodec(3), 4000, 0);
        server.put("bkt", "d/f.avro", file.bytes());
        StringBuilder ndjson = new StringBuilder();
        for (int i = 0; i < 5000; i++) {
            ndjson.append("{\"i\":").append(i).append("}\n");
        }
        server.put("bkt", "d/g.ndjson", ndjson.toString().getBytes(StandardCharsets.UTF_8));

        BackfillFormats formats = BackfillFormats.discover();
        long total = 0;
        for (ObjectInfo object : store.list("bkt", "d/")) {
            BackfillFormat format = formats.forKey(object.key());
            for (WorkItem item : format.plan(store, object, 10_000)) {
                RecordingOutput out = new RecordingOutput();
                format.read(store, item, 0, out);
                total += out.rows.size();
            }
        }
        assertThat(total).isEqualTo(10_000);
    }

    private static byte[] read(InputStream in) throws IOException {
        try (in) {
            return in.readAllBytes();
        }
    }

    private static String chain(Throwable e) {
        StringBuilder sb = new StringBuilder();
        for (Throwable t = e; t != null; t = t.getCause()) {
            sb.append(t).append('\n');
        }
        return sb.toString();
    }
}
