package dev.etl.internal.record;

import static org.assertj.core.api.Assertions.assertThat;

import dev.etl.record.KeyHash;
import dev.etl.record.Payload;
import java.nio.charset.StandardCharsets;
import org.junit.jupiter.api.Test;

/** The key hash computed on demand is the one the source's key always had, per record. */
class MutableRecordMetaTest {

    @Test
    void theKeyHashIsTheKeysMurmur3ComputedForTheCurrentRecord() {
        MutableRecordMeta meta = new MutableRecordMeta();
        Payload key = new Payload();
        Payload value = new Payload().wrap(new byte[] {1});
        byte[] first = "order-1".getBytes(StandardCharsets.UTF_8);
        byte[] second = "order-22".getBytes(StandardCharsets.UTF_8);

        meta.record(3, 10, 1000L, key.wrap(first), value);
        assertThat(meta.keyHash()).isEqualTo(KeyHash.murmur3(first, 0, first.length));
        // the same flyweight now shows the next record: the hash follows it
        meta.record(3, 11, 1001L, key.wrap(second), value);
        assertThat(meta.keyHash())
                .isEqualTo(KeyHash.murmur3(second, 0, second.length))
                .isNotZero();
        assertThat(meta.offset()).isEqualTo(11);
        assertThat(meta.sourceKey()).isSameAs(key);

        meta.record(3, 12, 1002L, new Payload(), value);
        assertThat(meta.keyHash()).as("no key").isZero();
        meta.record(3, 13, 1003L, null, value);
        assertThat(meta.keyHash()).as("no key view at all").isZero();

        meta.set(4, 1, 5L, 42);
        assertThat(meta.keyHash()).as("a hash given by the caller").isEqualTo(42);
    }

    @Test
    void aHashReadOnceStaysWhileTheKeyViewMovesOn() {
        MutableRecordMeta meta = new MutableRecordMeta();
        Payload key = new Payload();
        byte[] first = "a".getBytes(StandardCharsets.UTF_8);
        meta.record(0, 0, 0L, key.wrap(first), new Payload());
        int pinned = meta.keyHash();
        key.wrap("something else".getBytes(StandardCharsets.UTF_8));
        assertThat(meta.keyHash()).isEqualTo(pinned).isEqualTo(KeyHash.murmur3(first, 0, 1));
    }
}
