package dev.etl.s3;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import org.apache.avro.NameValidator;
import org.apache.avro.Schema;

/**
 * The header of an Avro object container file: the magic {@code Obj\1}, the metadata map (the writer
 * schema in {@code avro.schema}, the codec in {@code avro.codec}), the 16-byte sync marker.
 *
 * @param schema the writer schema
 * @param codec  the codec's name ({@code null} when the file names none)
 * @param sync   the sync marker
 * @param length the header's length: where the first block begins
 */
record AvroContainerHeader(Schema schema, String codec, byte[] sync, long length) {
    static final int SYNC_SIZE = 16;
    /** A metadata entry larger than this is corruption, not a schema. */
    private static final long MAX_METADATA_BYTES = 64L << 20;
    /** The first allocation for a metadata entry; it doubles as the bytes arrive. */
    private static final int METADATA_CHUNK = 64 * 1024;

    private static final byte[] MAGIC = {'O', 'b', 'j', 1};

    /** Reads the header from the start of {@code in}. */
    static AvroContainerHeader read(AvroFileInput in) throws IOException, CorruptSplitException {
        byte[] magic = new byte[MAGIC.length];
        if (in.atEnd()) {
            throw in.corrupt("not an Avro object container file (the object is empty)", null);
        }
        in.readFully(magic, 0, magic.length, "the magic");
        for (int i = 0; i < MAGIC.length; i++) {
            if (magic[i] != MAGIC[i]) {
                throw in.corrupt("not an Avro object container file (bad magic at byte 0)", null);
            }
        }
        String schemaJson = null;
        String codec = "null";
        long total = 0;
        for (long count = in.readLong("the metadata count"); count != 0; count = in.readLong("the metadata count")) {
            if (count < 0) {
                count = -count;
                long size = in.readLong("the metadata block size");
                if (size < 0) {
                    // as Avro's decoder refuses it (found by fuzzing: a size of -1048576 was read and ignored)
                    throw in.corrupt("the header's metadata block states a negative byte size (" + size + ")", null);
                }
            }
            for (long i = 0; i < count; i++) {
                String key = new String(bytes(in, "a metadata key"), StandardCharsets.UTF_8);
                byte[] value = bytes(in, "the metadata value of " + key);
                total += value.length;
                if (total > MAX_METADATA_BYTES) {
                    throw in.corrupt("the header's metadata exceeds " + MAX_METADATA_BYTES + " bytes", null);
                }
                if (key.equals("avro.schema")) {
                    schemaJson = new String(value, StandardCharsets.UTF_8);
                } else if (key.equals("avro.codec")) {
                    codec = new String(value, StandardCharsets.UTF_8);
                }
            }
        }
        byte[] sync = new byte[SYNC_SIZE];
        in.readFully(sync, 0, SYNC_SIZE, "the header's sync marker");
        long length = in.position();
        if (schemaJson == null) {
            throw in.corrupt("the header has no avro.schema", null);
        }
        Schema schema;
        try {
            // As lenient as Avro's own reader: files written by other tools may break name rules.
            schema = new Schema.Parser(NameValidator.NO_VALIDATION)
                    .setValidateDefaults(false)
                    .parse(schemaJson);
        } catch (RuntimeException e) {
            // Avro's parser says so with an AvroRuntimeException or an IllegalArgumentException, and for a
            // name it cannot resolve with a NullPointerException ("Unknown schema: ...UnresolvedSchema_N",
            // found by fuzzing: the schema text "pey"): any of them is a corrupt header, not a reader failure.
            throw in.corrupt("the header's avro.schema does not parse: " + e.getMessage(), e);
        }
        return new AvroContainerHeader(schema, codec, sync, length);
    }

    private static byte[] bytes(AvroFileInput in, String what) throws IOException, CorruptSplitException {
        long at = in.position();
        long length = in.readLong(what);
        if (length < 0 || length > MAX_METADATA_BYTES) {
            throw in.corrupt("bad length " + length + " of " + what + " at byte " + at, null);
        }
        // Allocated as the bytes arrive, not as declared: a truncated or corrupt header claiming tens of
        // megabytes costs what the object holds (found by fuzzing: 56 MB for a 610-byte object).
        byte[] value = new byte[(int) Math.min(length, METADATA_CHUNK)];
        int done = 0;
        while (true) {
            in.readFully(value, done, value.length - done, what);
            done = value.length;
            if (done == length) {
                return value;
            }
            value = Arrays.copyOf(value, (int) Math.min(length, 2L * done));
        }
    }
}
