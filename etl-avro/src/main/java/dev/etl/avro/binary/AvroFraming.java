package dev.etl.avro.binary;

import dev.etl.error.DeserializationException;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.nio.ByteOrder;

/**
 * How a payload names the writer schema of the Avro body it frames, read from its first bytes: the
 * Confluent wire format (magic byte {@code 0x00}, the 4-byte big-endian registry id, the body) or Avro's
 * single-object encoding ({@code C3 01}, the 8-byte little-endian CRC-64-AVRO parsing fingerprint of the
 * writer schema, the body). A Confluent payload starts with {@code 0x00}, never {@code 0xC3}, so a reader
 * of one format reads the other too. Static, allocation-free checks for a decoder's hot path; the errors
 * for a payload in neither format are the same wherever it is met. Writing payloads:
 * {@link dev.etl.avro.AvroWireFormat}.
 */
public final class AvroFraming {
    /** The Confluent header's length: magic byte (1) + schema id (4). */
    public static final int CONFLUENT_HEADER_LENGTH = 5;

    /** The single-object header's length: marker (2) + fingerprint (8). */
    public static final int SINGLE_OBJECT_HEADER_LENGTH = 10;

    private static final VarHandle LONG_LE =
            MethodHandles.byteArrayViewVarHandle(long[].class, ByteOrder.LITTLE_ENDIAN);

    private AvroFraming() {}

    /** Whether the payload has a Confluent header: at least 5 bytes, the first 0x00. */
    public static boolean isConfluent(byte[] array, int offset, int length) {
        return length >= CONFLUENT_HEADER_LENGTH && array[offset] == 0;
    }

    /** The schema id of a payload with a Confluent header ({@link #isConfluent}). */
    public static int schemaId(byte[] array, int offset) {
        return (array[offset + 1] & 0xff) << 24
                | (array[offset + 2] & 0xff) << 16
                | (array[offset + 3] & 0xff) << 8
                | (array[offset + 4] & 0xff);
    }

    /** Whether the payload starts with the single-object marker {@code C3 01} (it may still be too short). */
    public static boolean isSingleObject(byte[] array, int offset, int length) {
        return length >= 2 && array[offset] == (byte) 0xC3 && array[offset + 1] == 0x01;
    }

    /** The writer schema's fingerprint in a single-object payload of at least {@link #SINGLE_OBJECT_HEADER_LENGTH} bytes. */
    public static long fingerprint(byte[] array, int offset) {
        return (long) LONG_LE.get(array, offset + 2);
    }

    /** Writes a single-object header for the schema of {@code fingerprint} into the 10 bytes at {@code offset}. */
    public static void writeSingleObjectHeader(byte[] dst, int offset, long fingerprint) {
        dst[offset] = (byte) 0xC3;
        dst[offset + 1] = 0x01;
        LONG_LE.set(dst, offset + 2, fingerprint);
    }

    /** The fingerprint as messages give it: 16 hex digits. */
    public static String hex(long fingerprint) {
        return String.format("%016x", fingerprint);
    }

    /**
     * The error for a payload that is neither Confluent nor single-object: too short for a Confluent
     * header, or a first byte that is neither magic.
     */
    public static DeserializationException unframed(byte[] array, int offset, int length) {
        if (length < CONFLUENT_HEADER_LENGTH) {
            return DeserializationException.of(
                    -1,
                    "payload of " + length
                            + " byte(s) is shorter than the 5-byte Confluent header (magic byte + schema id)",
                    null);
        }
        return DeserializationException.of(
                -1,
                String.format(
                        "bad magic byte 0x%02x: not Confluent wire format (expected 0x00) nor Avro single-object "
                                + "encoding (0xC3 0x01)",
                        array[offset] & 0xff),
                null);
    }

    /** The error for a payload with the single-object marker but shorter than its header. */
    public static DeserializationException shortSingleObject(int length) {
        return DeserializationException.of(
                -1, "payload of " + length + " byte(s) is shorter than the 10-byte single-object header", null);
    }
}
