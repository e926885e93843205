package dev.etl.s3;

import dev.etl.kafka.KafkaSourceConfig;
import java.io.InputStream;
import java.util.List;

/** What the reader tests share: a store no test reads from (their formats make rows up) and a config. */
final class ReaderFixtures {
    static final ObjectStore NO_STORE = new ObjectStore() {
        @Override
        public List<ObjectInfo> list(String bucket, String prefix) {
            return List.of();
        }

        @Override
        public ObjectInfo head(String bucket, String key) {
            throw new UnsupportedOperationException();
        }

        @Override
        public InputStream open(String bucket, String key, String etag, long start, long end) {
            throw new UnsupportedOperationException();
        }

        @Override
        public String describe() {
            return "none";
        }
    };

    private ReaderFixtures() {}

    /** A config whose work topic is never reached (the tests drive readers directly). */
    static S3BackfillConfig.Builder config() {
        return S3BackfillConfig.builder()
                .workTopic(KafkaSourceConfig.builder()
                        .property("bootstrap.servers", "127.0.0.1:1")
                        .property("group.id", "g")
                        .topics("work")
                        .build())
                .store(NO_STORE)
                .bucket("b");
    }
}
