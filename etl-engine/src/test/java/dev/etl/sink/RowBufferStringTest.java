package dev.etl.sink;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import org.junit.jupiter.api.Test;

/** {@link RowBuffer#writeString} of a {@link Utf8CharSequence}: its bytes as they are, without its chars. */
class RowBufferStringTest {

    @Test
    void aUtf8CharSequenceIsWrittenAsItsBytesLikeItsChars() {
        String text = "café € 😀";
        RowBuffer viaBytes = new RowBuffer(4).writeString(new Bytes(text.getBytes(StandardCharsets.UTF_8)));
        RowBuffer viaChars = new RowBuffer(4).writeString(text);
        assertThat(viaBytes.toByteArray()).isEqualTo(viaChars.toByteArray());
    }

    @Test
    void onlyTheValuesLengthIsWrittenAndInvalidUtf8PassesAsItCame() {
        byte[] array = {(byte) 0xC3, 'x', 'y', 'z'}; // a lone lead byte, then bytes past the value's length
        RowBuffer out = new RowBuffer(4).writeString(new Bytes(array, 2));
        assertThat(out.toByteArray()).containsExactly(2, (byte) 0xC3, 'x');
    }

    /** A UTF-8 value that answers its chars only through a decoded String, as Avro's {@code Utf8} does. */
    private static final class Bytes implements Utf8CharSequence {
        private final byte[] array;
        private final int length;

        Bytes(byte[] array) {
            this(array, array.length);
        }

        Bytes(byte[] array, int length) {
            this.array = array;
            this.length = length;
        }

        @Override
        public byte[] getBytes() {
            return array;
        }

        @Override
        public int getByteLength() {
            return length;
        }

        @Override
        public int length() {
            return toString().length();
        }

        @Override
        public char charAt(int index) {
            return toString().charAt(index);
        }

        @Override
        public CharSequence subSequence(int start, int end) {
            return toString().subSequence(start, end);
        }

        @Override
        public String toString() {
            return new String(Arrays.copyOf(array, length), StandardCharsets.UTF_8);
        }
    }
}
