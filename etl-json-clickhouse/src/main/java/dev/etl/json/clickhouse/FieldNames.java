package dev.etl.json.clickhouse;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import org.jspecify.annotations.Nullable;

/**
 * The field names one JSON object level is scanned for, matched by their UTF-8 bytes: an
 * open-addressing hash table (power-of-two capacity, linear probing) from a name's bytes to its
 * {@link Entry}, so a field name in a message is looked up where it lies, without a {@code String}.
 * A node of the path trie: an entry is a mapped field (a slot whose value position the scan records),
 * the object level below it (for dotted paths), or both. Built once per mapping, then read-only.
 */
final class FieldNames {
    private static final int[] NO_SLOTS = new int[0];

    /** One name of this level. */
    static final class Entry {
        final byte[] name;
        final String text;
        /**
         * The slot recording this field's value, or -1 when only paths below it are mapped (an enum's
         * symbol table keeps the symbol's code here).
         */
        int slot = -1;
        /** The names one level below, when a dotted path continues through this field; else null. */
        @Nullable
        FieldNames below;
        /**
         * The slots of every path below this field (not its own slot): the scan clears them each time it meets
         * the field, so that a repeated field's last value is the only one read below it. Empty without below.
         */
        int[] slotsBelow = NO_SLOTS;

        Entry(String text) {
            this.text = text;
            this.name = text.getBytes(StandardCharsets.UTF_8);
        }
    }

    private final List<Entry> entries = new ArrayList<>();
    private Entry[] table = new Entry[1];
    private int mask;

    /** The entry named {@code name}, added when absent (building only). */
    Entry entry(String name) {
        for (Entry e : entries) {
            if (e.text.equals(name)) {
                return e;
            }
        }
        Entry e = new Entry(name);
        entries.add(e);
        rehash();
        return e;
    }

    private void rehash() {
        int capacity = Integer.highestOneBit(Math.max(4, entries.size() * 4) - 1) << 1;
        Entry[] t = new Entry[capacity];
        int m = capacity - 1;
        for (Entry e : entries) {
            int i = hash(e.name, 0, e.name.length) & m;
            while (t[i] != null) {
                i = (i + 1) & m;
            }
            t[i] = e;
        }
        table = t;
        mask = m;
    }

    /** The entry whose name is the bytes {@code [from, to)} of {@code b}, or null. Allocates nothing. */
    @Nullable
    Entry find(byte[] b, int from, int to) {
        Entry[] t = table;
        int m = mask;
        int i = hash(b, from, to) & m;
        Entry e;
        while ((e = t[i]) != null) {
            byte[] n = e.name;
            if (n.length == to - from && Arrays.equals(n, 0, n.length, b, from, to)) {
                return e;
            }
            i = (i + 1) & m;
        }
        return null;
    }

    /** The names of this level, in the order they were added. */
    List<Entry> entries() {
        return entries;
    }

    /** FNV-1a over the bytes, its high bits folded in (the table is indexed by the low ones). */
    static int hash(byte[] b, int from, int to) {
        int h = 0x811C9DC5;
        for (int i = from; i < to; i++) {
            h = (h ^ (b[i] & 0xFF)) * 0x01000193;
        }
        return h ^ (h >>> 16);
    }
}
