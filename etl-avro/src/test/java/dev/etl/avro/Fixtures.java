package dev.etl.avro;

import dev.etl.deser.Deserializer;
import dev.etl.record.Payload;
import dev.etl.record.RecordMeta;
import java.util.ArrayList;
import java.util.List;

/**
 * Pushes payloads through a deserializer and collects what it emits (public for the guide tests of
 * {@code dev.etl.avro.guide}).
 */
public final class Fixtures {
    private Fixtures() {}

    /** A record's metadata as a test sets it (the engine's own is internal). */
    static final class Meta implements RecordMeta {
        private int partition;
        private long offset;
        private long timestampMs = -1;

        void set(int partition, long offset, long timestampMs, int keyHash) {
            this.partition = partition;
            this.offset = offset;
            this.timestampMs = timestampMs;
        }

        @Override
        public int partition() {
            return partition;
        }

        @Override
        public long offset() {
            return offset;
        }

        @Override
        public long timestampMs() {
            return timestampMs;
        }

        @Override
        public int keyHash() {
            return 0;
        }

        @Override
        public Payload sourceKey() {
            return null;
        }

        @Override
        public Payload sourceValue() {
            return null;
        }
    }

    /** What each emitted value looked like when it was emitted (values are reused). */
    static <T> List<String> decodeToStrings(Deserializer<T> deserializer, byte[]... values) throws Exception {
        List<String> out = new ArrayList<>();
        Meta meta = new Meta();
        Payload key = new Payload();
        Payload value = new Payload();
        for (byte[] bytes : values) {
            deserializer.deserialize(key, value.wrap(bytes), meta, v -> out.add(String.valueOf(v)));
        }
        return out;
    }

    public static <T> List<T> decode(Deserializer<T> deserializer, byte[]... values) throws Exception {
        List<T> out = new ArrayList<>();
        Meta meta = new Meta();
        Payload key = new Payload();
        Payload value = new Payload();
        long offset = 0;
        for (byte[] bytes : values) {
            meta.set(0, offset++, -1, 0);
            deserializer.deserialize(key, value.wrap(bytes), meta, out::add);
        }
        return out;
    }
}
