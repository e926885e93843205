package dev.etl.avro.binary;

import dev.etl.sink.Utf8CharSequence;
import org.apache.avro.util.Utf8;

/**
 * The {@link Utf8} that {@link AvroCursor#readUtf8} creates: Avro's {@code Utf8} in every respect
 * (equality, hash, order, {@code toString}), and a {@link Utf8CharSequence}, so a {@code RowBuffer}
 * copies its bytes instead of encoding its chars through the {@code String} that {@code Utf8}'s
 * {@code length()} and {@code charAt} create for every new value. Serialized as a plain {@code Utf8}.
 */
final class DecodedUtf8 extends Utf8 implements Utf8CharSequence {
    private static final long serialVersionUID = 1L;

    /** An empty string; the cursor sets its length and bytes. */
    public DecodedUtf8() {}

    /** Java serialization writes a plain {@code Utf8}: the subclass is this module's business. */
    Object writeReplace() {
        return new Utf8(this);
    }
}
