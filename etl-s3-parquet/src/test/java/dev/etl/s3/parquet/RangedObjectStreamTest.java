package dev.etl.s3.parquet;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.EOFException;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.util.Arrays;
import java.util.Random;
import org.junit.jupiter.api.Test;

class RangedObjectStreamTest {

    /** Any mix of seeks and reads of every kind returns the object's bytes at the position, as a file would. */
    @Test
    void randomSeeksAndReadsReturnTheObjectsBytes() throws IOException {
        long seed = System.nanoTime();
        System.out.println("RangedObjectStreamTest seed " + seed);
        Random random = new Random(seed);
        for (int trial = 0; trial < 30; trial++) {
            byte[] data = new byte[random.nextInt(3 * 1024 * 1024)];
            random.nextBytes(data);
            MemoryObjectStore store = new MemoryObjectStore();
            store.put("b", "k", data);
            String etag = store.head("b", "k").etag();
            try (RangedObjectStream in = new RangedObjectStream(store, "b", "k", etag, data.length)) {
                long pos = 0;
                for (int op = 0; op < 200; op++) {
                    String context =
                            "seed " + seed + " trial " + trial + " op " + op + " pos " + pos + " of " + data.length;
                    if (random.nextInt(4) == 0) {
                        in.expect(random.nextInt(data.length + 1), random.nextInt(data.length + 1));
                    }
                    if (random.nextInt(3) == 0) {
                        pos = random.nextInt(4) == 0
                                ? Math.max(0, data.length - random.nextInt(100))
                                : random.nextInt(data.length + 1);
                        in.seek(pos);
                    }
                    int len = random.nextInt(5) == 0 ? random.nextInt(200_000) : random.nextInt(300);
                    int left = (int) (data.length - pos);
                    switch (random.nextInt(5)) {
                        case 0 -> {
                            int b = in.read();
                            assertThat(b).as(context).isEqualTo(left == 0 ? -1 : data[(int) pos] & 0xFF);
                            pos += left == 0 ? 0 : 1;
                        }
                        case 1 -> {
                            byte[] buf = new byte[len + 3];
                            int n = in.read(buf, 3, len);
                            if (len == 0) {
                                assertThat(n).as(context).isZero();
                            } else if (left == 0) {
                                assertThat(n).as(context).isEqualTo(-1);
                            } else {
                                assertThat(n).as(context).isBetween(1, len);
                                assertThat(Arrays.copyOfRange(buf, 3, 3 + n))
                                        .as(context)
                                        .isEqualTo(Arrays.copyOfRange(data, (int) pos, (int) pos + n));
                                pos += n;
                            }
                        }
                        case 2 -> {
                            if (len > left) {
                                assertThatThrownBy(() -> in.readFully(new byte[len]))
                                        .as(context)
                                        .isInstanceOf(EOFException.class);
                                in.seek(pos);
                            } else {
                                byte[] buf = new byte[len];
                                in.readFully(buf);
                                assertThat(buf)
                                        .as(context)
                                        .isEqualTo(Arrays.copyOfRange(data, (int) pos, (int) pos + len));
                                pos += len;
                            }
                        }
                        default -> {
                            ByteBuffer buf =
                                    random.nextBoolean() ? ByteBuffer.allocate(len) : ByteBuffer.allocateDirect(len);
                            boolean fully = random.nextBoolean();
                            if (fully && len > left) {
                                assertThatThrownBy(() -> in.readFully(buf))
                                        .as(context)
                                        .isInstanceOf(EOFException.class);
                                in.seek(pos);
                                break;
                            }
                            int n;
                            if (fully) {
                                in.readFully(buf);
                                n = len;
                            } else {
                                n = in.read(buf);
                            }
                            if (len > 0 && left == 0) {
                                assertThat(n).as(context).isEqualTo(-1);
                                break;
                            }
                            assertThat(n).as(context).isBetween(Math.min(1, len), len);
                            buf.flip();
                            byte[] got = new byte[buf.remaining()];
                            buf.get(got);
                            assertThat(got).as(context).isEqualTo(Arrays.copyOfRange(data, (int) pos, (int) pos + n));
                            pos += n;
                        }
                    }
                    assertThat(in.getPos()).as(context).isEqualTo(pos);
                }
            }
        }
    }

    @Test
    void smallSequentialReadsAreOneRequest() throws IOException {
        byte[] data = new byte[600_000];
        new Random(1).nextBytes(data);
        MemoryObjectStore store = new MemoryObjectStore();
        store.put("b", "k", data);
        try (RangedObjectStream in = new RangedObjectStream(store, "b", "k", "", data.length)) {
            byte[] buf = new byte[7];
            for (int i = 0; i < 500_000 / 7; i++) {
                in.readFully(buf);
            }
            assertThat(store.opens()).isEqualTo(1);
            assertThat(in.requests()).isEqualTo(1);
        }
    }

    @Test
    void theTailIsFetchedOnceForTheFootersBackwardReads() throws IOException {
        byte[] data = new byte[1_000_000];
        new Random(2).nextBytes(data);
        MemoryObjectStore store = new MemoryObjectStore();
        store.put("b", "k", data);
        try (RangedObjectStream in = new RangedObjectStream(store, "b", "k", "", data.length)) {
            in.seek(data.length - 8);
            in.readFully(new byte[8]);
            in.seek(data.length - 8 - 30_000);
            byte[] footer = new byte[30_000];
            in.readFully(footer);
            assertThat(footer).isEqualTo(Arrays.copyOfRange(data, data.length - 30_008, data.length - 8));
            assertThat(store.ranges()).hasSize(1);
            assertThat(store.ranges().get(0))
                    .containsExactly(data.length - RangedObjectStream.BUFFER_BYTES, data.length);
        }
    }

    @Test
    void backwardAndFarSeeksReopenShortForwardSeeksReadThrough() throws IOException {
        byte[] data = new byte[8_000_000];
        new Random(3).nextBytes(data);
        MemoryObjectStore store = new MemoryObjectStore();
        store.put("b", "k", data);
        try (RangedObjectStream in = new RangedObjectStream(store, "b", "k", "", data.length)) {
            in.expect(0, 4_000_000);
            in.readFully(new byte[100_000]);
            in.seek(100_000 + 200_000); // short forward: read through
            in.readFully(new byte[100_000]);
            assertThat(store.opens()).isEqualTo(1);
            in.seek(10); // backward
            in.readFully(new byte[100_000]);
            assertThat(store.opens()).isEqualTo(2);
            in.seek(3_000_000); // far forward
            in.readFully(new byte[100_000]);
            assertThat(store.opens()).isEqualTo(3);
            assertThat(store.ranges().get(2)).containsExactly(3_000_000, 4_000_000);
        }
    }

    @Test
    void anObjectShorterThanPlannedIsAnEndOfFileNotAStoreFailure() throws IOException {
        MemoryObjectStore store = new MemoryObjectStore();
        store.put("b", "k", new byte[1000]);
        try (RangedObjectStream in = new RangedObjectStream(store, "b", "k", "", 2000)) {
            assertThatThrownBy(() -> in.readFully(new byte[1500]))
                    .isExactlyInstanceOf(EOFException.class)
                    .hasMessageContaining("shorter than planned");
        }
        store.failOpens(true);
        try (RangedObjectStream in = new RangedObjectStream(store, "b", "k", "", 1000)) {
            assertThatThrownBy(in::read).isInstanceOf(StorageFailure.class);
        }
    }
}
