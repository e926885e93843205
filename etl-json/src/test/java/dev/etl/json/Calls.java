package dev.etl.json;

import dev.etl.deser.Deserializer;
import dev.etl.record.Payload;
import dev.etl.record.RecordMeta;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;

/** Calls a deserializer directly, as a chain head would: one lane's payload flyweights and metadata. */
final class Calls {
    /** The test's order type: a record, bound through its canonical constructor. */
    record Order(long id, String sku, int qty) {}

    private final Payload key = new Payload();
    private final Payload value = new Payload();
    private final Meta meta = new Meta();

    /** Values emitted for one message at offset {@code offset}, whose value is {@code json} in UTF-8 (framed in junk). */
    <T> List<T> emitted(Deserializer<T> deserializer, long offset, String json) throws Exception {
        return emitted(deserializer, offset, json.getBytes(StandardCharsets.UTF_8));
    }

    /** Values emitted for one message whose value is {@code bytes}, placed inside a larger array. */
    <T> List<T> emitted(Deserializer<T> deserializer, long offset, byte[] bytes) throws Exception {
        // The payload is a view into a bigger array, as a Kafka record's is: the deserializer must
        // honour offset and length.
        byte[] framed = new byte[bytes.length + 7];
        java.util.Arrays.fill(framed, (byte) '}');
        System.arraycopy(bytes, 0, framed, 3, bytes.length);
        value.wrap(framed, 3, bytes.length);
        meta.offset = offset;
        List<T> out = new ArrayList<>();
        deserializer.deserialize(key, value, meta, out::add);
        return out;
    }

    /** Values emitted for a tombstone (absent value). */
    <T> List<T> tombstone(Deserializer<T> deserializer) throws Exception {
        value.clear();
        List<T> out = new ArrayList<>();
        deserializer.deserialize(key, value, meta, out::add);
        return out;
    }

    /** Emitted values appended to {@code out} until the deserializer threw (then rethrows). */
    <T> void emitInto(Deserializer<T> deserializer, long offset, String json, List<? super T> out) throws Exception {
        byte[] bytes = json.getBytes(StandardCharsets.UTF_8);
        value.wrap(bytes, 0, bytes.length);
        meta.offset = offset;
        deserializer.deserialize(key, value, meta, out::add);
    }

    private static final class Meta implements RecordMeta {
        long offset;

        @Override
        public int partition() {
            return 0;
        }

        @Override
        public long offset() {
            return offset;
        }

        @Override
        public long timestampMs() {
            return -1;
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
}
