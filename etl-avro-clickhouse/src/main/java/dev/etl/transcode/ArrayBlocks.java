package dev.etl.transcode;

import dev.etl.sink.RowBuffer;

/** Avro arrays (blocks of items) as ClickHouse Arrays (a count, then the items). */
final class ArrayBlocks {
    private ArrayBlocks() {}

    /**
     * RowBinary needs the element count before the elements; Avro may split an array into blocks.
     * Writers (Avro's included) write one block, so the count of the first block is written and the
     * elements converted; only when a second block follows is the output cut back and the array
     * counted first.
     */
    static void write(Conversion element, AvroCursor in, RowBuffer out) {
        int outStart = out.length();
        int inStart = in.mark();
        long count = blockCount(in);
        out.writeVarUInt(count);
        for (long i = 0; i < count; i++) {
            element.write(in, out);
        }
        if (count == 0) {
            return;
        }
        long next = blockCount(in);
        if (next == 0) {
            return;
        }
        // More blocks: count them all, then convert again from the start.
        out.truncate(outStart);
        in.reset(inStart);
        long total = 0;
        int mark;
        for (long n = blockCount(in); n != 0; n = blockCount(in)) {
            total += n;
            for (long i = 0; i < n; i++) {
                ConversionSkip.skip(element, in);
            }
        }
        mark = in.mark();
        if (total > Integer.MAX_VALUE - 8) {
            throw new MalformedBody("an array of " + total + " items");
        }
        in.reset(inStart);
        out.writeVarUInt(total);
        for (long n = blockCount(in); n != 0; n = blockCount(in)) {
            for (long i = 0; i < n; i++) {
                element.write(in, out);
            }
        }
        if (in.mark() != mark) {
            throw new IllegalStateException("array re-read ended at another position");
        }
    }

    /** A block's item count; a negative count's byte size is read and ignored (the items are read one by one). */
    static long blockCount(AvroCursor in) {
        int at = in.position();
        long count = in.readLong();
        if (count < 0) {
            count = -count;
            in.readLong();
        }
        if (count > Integer.MAX_VALUE - 8) {
            throw new MalformedBody("array block of " + count + " items at byte " + at);
        }
        return count;
    }
}
