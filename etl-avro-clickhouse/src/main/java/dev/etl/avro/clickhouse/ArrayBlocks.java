package dev.etl.avro.clickhouse;

import dev.etl.avro.binary.AvroCursor;
import dev.etl.sink.RowBuffer;

/** Avro arrays (blocks of items) as ClickHouse Arrays (a count, then the items). */
final class ArrayBlocks {
    private ArrayBlocks() {}

    /**
     * RowBinary needs the element count before the elements; Avro may split an array into blocks.
     * Writers (Avro's included) write one block, so the count of the first block is written and the
     * elements converted; only when a second block follows is the output cut back and the array
     * counted first. Items that take no bytes count once against the record's limit
     * ({@link AvroCursor#zeroByteItems}) however often the blocks are read.
     */
    static void write(Conversion element, AvroCursor in, RowBuffer out) {
        int outStart = out.length();
        int inStart = in.mark();
        long budget = in.zeroByteItemsLeft();
        long count = in.blockCount(0);
        out.writeVarUInt(count);
        if (count == 0) {
            return;
        }
        items(element, in, out, count);
        long next = in.blockCount(count);
        if (next == 0) {
            return;
        }
        // More blocks: count them all, then convert again from the start.
        out.truncate(outStart);
        in.reset(inStart);
        in.zeroByteItemsLeft(budget);
        long total = 0;
        for (long n = in.blockCount(total); n != 0; n = in.blockCount(total)) {
            total += n;
            int from = in.mark();
            element.skip(in);
            if (in.zeroByteItems(from, n)) {
                continue; // the rest of the block takes no bytes either: nothing to skip
            }
            for (long i = 1; i < n; i++) {
                element.skip(in);
            }
        }
        int end = in.mark();
        in.reset(inStart);
        in.zeroByteItemsLeft(budget); // the same items are counted again as they are written
        out.writeVarUInt(total);
        long written = 0;
        for (long n = in.blockCount(written); n != 0; n = in.blockCount(written)) {
            written += n;
            items(element, in, out, n);
        }
        if (in.mark() != end) {
            throw new IllegalStateException("array re-read ended at another position");
        }
    }

    /** Converts a block's {@code count} (at least 1) items; items that take no bytes are counted. */
    private static void items(Conversion element, AvroCursor in, RowBuffer out, long count) {
        int from = in.mark();
        element.write(in, out);
        in.zeroByteItems(from, count);
        for (long i = 1; i < count; i++) {
            element.write(in, out);
        }
    }
}
