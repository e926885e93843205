package dev.etl.avro;

import org.apache.avro.generic.GenericRecord;

/**
 * Turns a decoded record into the user's own type ({@link AvroDeserializer#custom}).
 *
 * <p>Called on the lane thread for every record. {@code record} is reused for the next record (its
 * strings are reused {@code Utf8}s): copy what you keep. The mapper may return a reused instance of
 * its own too, since downstream sees a value only during its {@code accept} call. An exception fails
 * the record as a deserialization error (stage policy applies).
 */
@FunctionalInterface
public interface AvroRecordMapper<T> {
    T map(GenericRecord record) throws Exception;
}
