package dev.etl.record;

/**
 * The stable key hash every source computes for {@link RecordMeta#keyHash()}: 32-bit MurmurHash3
 * (x86_32, seed 0) of the key bytes. Stable across processes, JVMs and versions, because shard
 * routing depends on it: changing it would move keys between shards.
 */
public final class KeyHash {
    private static final int C1 = 0xcc9e2d51;
    private static final int C2 = 0x1b873593;

    private KeyHash() {}

    /** Hash of the payload's bytes; 0 for an absent payload. */
    public static int of(Payload key) {
        return key.isPresent() ? murmur3(key.array(), key.offset(), key.length()) : 0;
    }

    /** MurmurHash3 x86_32 with seed 0 of {@code length} bytes of {@code data} from {@code offset}. */
    public static int murmur3(byte[] data, int offset, int length) {
        int h1 = 0;
        int end = offset + (length & ~3);
        for (int i = offset; i < end; i += 4) {
            int k1 = (data[i] & 0xff) | (data[i + 1] & 0xff) << 8 | (data[i + 2] & 0xff) << 16 | data[i + 3] << 24;
            k1 *= C1;
            k1 = Integer.rotateLeft(k1, 15);
            k1 *= C2;
            h1 ^= k1;
            h1 = Integer.rotateLeft(h1, 13);
            h1 = h1 * 5 + 0xe6546b64;
        }
        int tail = length & 3;
        if (tail != 0) {
            int k1 = 0;
            if (tail == 3) {
                k1 ^= (data[end + 2] & 0xff) << 16;
            }
            if (tail >= 2) {
                k1 ^= (data[end + 1] & 0xff) << 8;
            }
            k1 ^= data[end] & 0xff;
            k1 *= C1;
            k1 = Integer.rotateLeft(k1, 15);
            k1 *= C2;
            h1 ^= k1;
        }
        h1 ^= length;
        h1 ^= h1 >>> 16;
        h1 *= 0x85ebca6b;
        h1 ^= h1 >>> 13;
        h1 *= 0xc2b2ae35;
        h1 ^= h1 >>> 16;
        return h1;
    }
}
