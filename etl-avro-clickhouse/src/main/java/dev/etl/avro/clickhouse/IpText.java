package dev.etl.avro.clickhouse;

import dev.etl.avro.binary.AvroCursor;
import dev.etl.sink.RowBuffer;

/**
 * IP addresses in text (an Avro {@code string}) as ClickHouse's {@code IPv4} (a UInt32, little-endian) and
 * {@code IPv6} (16 bytes in network order), parsed from the cursor's bytes without allocating.
 */
final class IpText {
    private IpText() {}

    /** A dotted quad ({@code 192.168.0.1}: four decimal parts of 1 to 3 digits, each at most 255) as IPv4. */
    static void writeIpv4(AvroCursor in, RowBuffer out) {
        int at = in.position();
        int length = in.readLength();
        in.require(length);
        long address = ipv4(in, 0, length);
        in.skip(length);
        if (address < 0) {
            throw new ValueRejected("malformed IPv4 address at byte " + at + " (expected a dotted quad like 10.0.0.1)");
        }
        out.writeIntLE((int) address);
    }

    /**
     * Any RFC 4291 text form ({@code 2001:db8::1}, {@code ::}, {@code ::ffff:1.2.3.4}; hex digits in either
     * case, at most one {@code ::}, an IPv4 dotted quad as the last 32 bits) as IPv6: 16 bytes, network order.
     */
    static void writeIpv6(AvroCursor in, RowBuffer out) {
        int at = in.position();
        int length = in.readLength();
        in.require(length);
        byte[] groups = in.scratch(16);
        boolean parsed = ipv6(in, length, groups);
        in.skip(length);
        if (!parsed) {
            throw new ValueRejected("malformed IPv6 address at byte " + at + " (expected an RFC 4291 text form)");
        }
        out.writeBytes(groups, 0, 16);
    }

    /** The dotted quad at {@code [from, to)} of the cursor's bytes as an unsigned 32-bit value, or -1. */
    private static long ipv4(AvroCursor in, int from, int to) {
        long address = 0;
        int parts = 0;
        int i = from;
        while (true) {
            int digits = 0;
            int part = 0;
            while (i < to && digits < 4) {
                int c = in.peek(i);
                if (c < '0' || c > '9') {
                    break;
                }
                part = part * 10 + (c - '0');
                digits++;
                i++;
            }
            if (digits == 0 || digits > 3 || part > 255) {
                return -1;
            }
            address = address << 8 | part;
            parts++;
            if (parts == 4) {
                return i == to ? address : -1;
            }
            if (i >= to || in.peek(i) != '.') {
                return -1;
            }
            i++;
        }
    }

    /** Parses the IPv6 text of {@code length} bytes at the cursor into {@code bytes[0..16)}; false when malformed. */
    private static boolean ipv6(AvroCursor in, int length, byte[] bytes) {
        if (length < 2 || length > 45) {
            return false;
        }
        int groups = 0; // 16-bit groups written so far
        int gap = -1; // the group index where "::" stands
        int i = 0;
        if (in.peek(0) == ':') {
            if (in.peek(1) != ':') {
                return false;
            }
            gap = 0;
            i = 2;
            if (i == length) {
                java.util.Arrays.fill(bytes, 0, 16, (byte) 0);
                return true;
            }
        }
        while (i < length) {
            if (groups == 8) {
                return false;
            }
            int start = i;
            int value = 0;
            while (i < length && i - start < 5) {
                int digit = Character.digit(in.peek(i), 16);
                if (digit < 0) {
                    break;
                }
                value = value << 4 | digit;
                i++;
            }
            int digits = i - start;
            if (i < length && in.peek(i) == '.') {
                // The last 32 bits as a dotted quad.
                if (groups > 6 || digits == 0) {
                    return false;
                }
                long v4 = ipv4(in, start, length);
                if (v4 < 0) {
                    return false;
                }
                bytes[groups * 2] = (byte) (v4 >>> 24);
                bytes[groups * 2 + 1] = (byte) (v4 >>> 16);
                bytes[groups * 2 + 2] = (byte) (v4 >>> 8);
                bytes[groups * 2 + 3] = (byte) v4;
                groups += 2;
                i = length;
                break;
            }
            if (digits == 0 || digits > 4) {
                return false;
            }
            bytes[groups * 2] = (byte) (value >>> 8);
            bytes[groups * 2 + 1] = (byte) value;
            groups++;
            if (i == length) {
                break;
            }
            if (in.peek(i) != ':') {
                return false;
            }
            i++;
            if (i < length && in.peek(i) == ':') {
                if (gap >= 0) {
                    return false; // a second "::"
                }
                gap = groups;
                i++;
            } else if (i == length) {
                return false; // a trailing single ':'
            }
        }
        if (gap < 0) {
            return groups == 8;
        }
        if (groups == 8) {
            return false; // "::" must stand for at least one group
        }
        // Move the groups after the gap to the end, zeros in between.
        int tail = (groups - gap) * 2;
        System.arraycopy(bytes, gap * 2, bytes, 16 - tail, tail);
        java.util.Arrays.fill(bytes, gap * 2, 16 - tail, (byte) 0);
        return true;
    }
}
