package dev.etl.avro.container;

import dev.etl.avro.binary.MalformedAvroException;
import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import org.apache.avro.NameValidator;
import org.apache.avro.Schema;

/**
 * The header of an Avro object container file: the magic {@code Obj\1}, the metadata map (the writer
 * schema in {@code avro.schema}, the codec in {@code avro.codec}), the 16-byte sync marker. Reading it
 * bounds the metadata (64 MiB in all, allocated as the bytes arrive, not as declared) and checks that
 * this process can decode the codec. Immutable.
 */
public final class AvroContainerHeader {
    static final int SYNC_SIZE = 16;
    /** A metadata entry larger than this is corruption, not a schema. */
    private static final long MAX_METADATA_BYTES = 64L << 20;
    /** The first allocation for a metadata entry; it doubles as the bytes arrive. */
    private static final int METADATA_CHUNK = 64 * 1024;

    private static final byte[] MAGIC = {'O', 'b', 'j', 1};

    private final Schema schema;
    private final String codec;
    private final byte[] sync;
    private final long length;

    private AvroContainerHeader(Schema schema, String codec, byte[] sync, long length) {
        this.schema = schema;
        this.codec = codec;
        this.sync = sync;
        this.length = length;
    }

    /**
     * Reads the header from the start of a file. Reads ahead of the header (it buffers): give it a stream
     * of its own, e.g. a window over the file's first bytes.
     *
     * @throws MalformedAvroException when the bytes are not an Avro container header (bad magic,
     *                                truncated, metadata over its bounds, no or an unparsable schema), or
     *                                name a codec this process cannot decode
     * @throws IOException            when the stream fails
     */
    public static AvroContainerHeader read(InputStream in) throws IOException {
        return read(new ContainerInput(in, 0));
    }

    static AvroContainerHeader read(ContainerInput in) throws IOException {
        byte[] magic = new byte[MAGIC.length];
        if (in.atEnd()) {
            throw new MalformedAvroException("not an Avro object container file (the object is empty)");
        }
        in.readFully(magic, 0, magic.length, "the magic");
        for (int i = 0; i < MAGIC.length; i++) {
            if (magic[i] != MAGIC[i]) {
                throw new MalformedAvroException("not an Avro object container file (bad magic at byte 0)");
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
                    throw new MalformedAvroException(
                            "the header's metadata block states a negative byte size (" + size + ")");
                }
            }
            for (long i = 0; i < count; i++) {
                String key = new String(bytes(in, "a metadata key"), StandardCharsets.UTF_8);
                byte[] value = bytes(in, "the metadata value of " + key);
                total += value.length;
                if (total > MAX_METADATA_BYTES) {
                    throw new MalformedAvroException("the header's metadata exceeds " + MAX_METADATA_BYTES + " bytes");
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
            throw new MalformedAvroException("the header has no avro.schema");
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
            throw new MalformedAvroException("the header's avro.schema does not parse: " + e.getMessage(), e);
        }
        BlockCodec.forName(codec).close();
        return new AvroContainerHeader(schema, codec, sync, length);
    }

    private static byte[] bytes(ContainerInput in, String what) throws IOException {
        long at = in.position();
        long length = in.readLong(what);
        if (length < 0 || length > MAX_METADATA_BYTES) {
            throw new MalformedAvroException("bad length " + length + " of " + what + " at byte " + at);
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

    /** The writer schema ({@code avro.schema}). */
    public Schema schema() {
        return schema;
    }

    /** The codec's name ({@code avro.codec}; {@code "null"} when the file names none). */
    public String codec() {
        return codec;
    }

    /** The header's length in bytes: where the first block begins. */
    public long length() {
        return length;
    }

    /** The sync marker (not a copy: the package only reads it). */
    byte[] sync() {
        return sync;
    }

    @Override
    public String toString() {
        return "AvroContainerHeader[schema=" + schema.getFullName() + ", codec=" + codec + ", length=" + length + "]";
    }
}
