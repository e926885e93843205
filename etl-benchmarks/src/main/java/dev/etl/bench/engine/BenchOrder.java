package dev.etl.bench.engine;

import dev.etl.record.Payload;

/**
 * A mutable order the benchmark's deserializer fills in place (one instance per lane), so the
 * chain measures the engine, not the allocation of user objects.
 *
 * <p>Wire layout of the benchmark payload: id (8 bytes LE), amount in cents (8 bytes LE), status
 * (1 byte), customer (the remaining bytes, UTF-8).
 */
final class BenchOrder {
    static final int CANCELLED = 3;

    long id;
    long amountCents;
    int status;
    byte[] customer;
    int customerOffset;
    int customerLength;

    BenchOrder decode(Payload value) {
        byte[] b = value.array();
        int p = value.offset();
        id = readLongLE(b, p);
        amountCents = readLongLE(b, p + 8);
        status = b[p + 16];
        customer = b;
        customerOffset = p + 17;
        customerLength = value.length() - 17;
        return this;
    }

    static long readLongLE(byte[] b, int p) {
        return (b[p] & 0xFFL)
                | (b[p + 1] & 0xFFL) << 8
                | (b[p + 2] & 0xFFL) << 16
                | (b[p + 3] & 0xFFL) << 24
                | (b[p + 4] & 0xFFL) << 32
                | (b[p + 5] & 0xFFL) << 40
                | (b[p + 6] & 0xFFL) << 48
                | (b[p + 7] & 0xFFL) << 56;
    }

    static byte[] encode(long id, long amountCents, int status, byte[] customer) {
        byte[] b = new byte[17 + customer.length];
        for (int i = 0; i < 8; i++) {
            b[i] = (byte) (id >>> (8 * i));
            b[8 + i] = (byte) (amountCents >>> (8 * i));
        }
        b[16] = (byte) status;
        System.arraycopy(customer, 0, b, 17, customer.length);
        return b;
    }
}
