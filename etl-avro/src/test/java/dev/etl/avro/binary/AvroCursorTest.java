package dev.etl.avro.binary;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.Arrays;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;

/**
 * The varint fast forms the transcoder's row loop reads with ({@link AvroCursor#intAt}, {@link AvroCursor#word},
 * {@link AvroCursor#varintLength}, {@link AvroCursor#varintValue}) agree with the cursor's byte-by-byte
 * reads on every length of varint, at every distance from the limit and the array's end, and leave
 * malformed varints to the cursor (which rejects them).
 */
class AvroCursorTest {
    private static final SplittableRandom RANDOM = new SplittableRandom(15);

    @Test
    void fastLongVarintsReadWhatTheCursorReads() {
        for (int i = 0; i < 200_000; i++) {
            long value = randomLong();
            byte[] varint = zigZagVarint(value);
            for (int after : new int[] {0, 1, 7, 8, 12}) {
                byte[] b = framed(varint, 3, after);
                int limit = 3 + varint.length;
                AvroCursor in = new AvroCursor();
                in.wrap(b, 3, varint.length);
                assertThat(in.readLong()).isEqualTo(value);
                if (3 <= b.length - 8) {
                    long w = AvroCursor.word(b, 3);
                    int n = AvroCursor.varintLength(w);
                    if (n <= 8) {
                        assertThat(n).isEqualTo(varint.length);
                        long raw = AvroCursor.varintValue(w, n);
                        assertThat((raw >>> 1) ^ -(raw & 1)).isEqualTo(value);
                    } else {
                        assertThat(varint.length).isGreaterThan(8);
                    }
                }
                assertThat(limit).isEqualTo(in.mark());
            }
        }
    }

    @Test
    void fastIntVarintsReadWhatTheCursorReads() {
        for (int i = 0; i < 200_000; i++) {
            int value = (int) randomLong();
            byte[] varint = zigZagVarint(value);
            for (int after : new int[] {0, 1, 4, 7, 8, 12}) {
                byte[] b = framed(varint, 2, after);
                AvroCursor in = new AvroCursor();
                in.wrap(b, 2, varint.length);
                assertThat(in.readInt()).isEqualTo(value);
                long r = AvroCursor.intAt(b, 2, 2 + varint.length);
                if (r >= 0) {
                    assertThat((int) r).isEqualTo(value);
                    assertThat((int) (r >>> 32)).isEqualTo(2 + varint.length);
                } else {
                    assertThat(varint.length > 1 && 2 > b.length - 8).isTrue();
                }
                // A limit that cuts the varint short: never read by the fast form.
                for (int cut = 0; cut < varint.length; cut++) {
                    assertThat(AvroCursor.intAt(b, 2, 2 + cut)).isEqualTo(-1L);
                }
            }
        }
    }

    @Test
    void malformedIntVarintsAreLeftToTheCursor() {
        // Five bytes whose last has bits beyond an int's 32, and six bytes: both malformed for an int.
        byte[][] malformed = {
            {(byte) 0xff, (byte) 0xff, (byte) 0xff, (byte) 0xff, 0x1f},
            {(byte) 0x80, (byte) 0x80, (byte) 0x80, (byte) 0x80, (byte) 0x80, 0x01},
        };
        for (byte[] varint : malformed) {
            byte[] b = framed(varint, 0, 10);
            assertThat(AvroCursor.intAt(b, 0, varint.length)).isEqualTo(-1L);
            AvroCursor in = new AvroCursor();
            in.wrap(b, 0, varint.length);
            assertThatThrownBy(in::readInt)
                    .isInstanceOf(MalformedAvroException.class)
                    .hasMessage("malformed int varint at byte 0");
        }
    }

    private static long randomLong() {
        int bits = RANDOM.nextInt(65);
        long v = bits == 64 ? RANDOM.nextLong() : RANDOM.nextLong() & ((1L << bits) - 1);
        return RANDOM.nextBoolean() ? v : -v;
    }

    /** The varint in an array at {@code before}, followed by {@code after} bytes of continuation-bit junk. */
    private static byte[] framed(byte[] varint, int before, int after) {
        byte[] b = new byte[before + varint.length + after];
        Arrays.fill(b, (byte) 0x81);
        System.arraycopy(varint, 0, b, before, varint.length);
        return b;
    }

    private static byte[] zigZagVarint(long value) {
        long v = (value << 1) ^ (value >> 63);
        byte[] out = new byte[10];
        int n = 0;
        while ((v & ~0x7fL) != 0) {
            out[n++] = (byte) ((v & 0x7f) | 0x80);
            v >>>= 7;
        }
        out[n++] = (byte) v;
        return Arrays.copyOf(out, n);
    }
}
