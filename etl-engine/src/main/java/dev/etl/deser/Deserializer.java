package dev.etl.deser;

import dev.etl.record.Collector;
import dev.etl.record.Payload;
import dev.etl.record.RecordMeta;

/**
 * Turns one source payload into zero or more values, push-style: it calls {@code out.collect} for
 * each value it produces, and may produce none (e.g. a control message) or several (a batch
 * envelope).
 *
 * <p>One instance per lane (built by the lane's {@code ChainFactory}), so it may keep reusable
 * buffers, decoders and even reuse the value objects it emits — downstream operators see a value
 * only during their {@code accept} call.
 *
 * <p>Failures: throw {@link dev.etl.error.DeserializationException} (or any exception); the chain
 * head adds the topic/partition/offset and applies the deserialization stage's policy, once per call:
 * the unit is the source record. Values already passed to {@code out} before the throw are downstream
 * and stay there (they hold the batch's ack like any value). So a deserializer that reads several
 * values from one payload (NDJSON, a JSON array) may emit the good ones, then throw once for the bad
 * ones: under {@code SKIP} the good ones are delivered and the record counts one skip, under
 * {@code DEAD_LETTER} they are delivered and the original record is dead-lettered once, under
 * {@code FAIL} the pipeline fails and nothing from the record on commits. Do not catch exceptions
 * thrown by {@code out.collect}: they belong to the downstream stages.
 *
 * @param <T> the produced value type
 */
@FunctionalInterface
public interface Deserializer<T> {
    void deserialize(Payload key, Payload value, RecordMeta meta, Collector<? super T> out) throws Exception;

    /** A deserializer that passes the value bytes through as a copied {@code byte[]} (allocates; tests). */
    static Deserializer<byte[]> bytes() {
        return (key, value, meta, out) -> out.collect(value.toByteArray());
    }

    /** A deserializer that emits the {@link Payload} view itself (no copy; valid during the push only). */
    static Deserializer<Payload> payload() {
        return (key, value, meta, out) -> out.collect(value);
    }
}
