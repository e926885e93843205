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
        long count = in.blockCount();
        out.writeVarUInt(count);
        for (long i = 0; i < count; i++) {
            element.write(in, out);
        }
        if (count == 0) {
            return;
        }
        long next = in.blockCount();
        if (next == 0) {
            return;
        }
        // More blocks: count them all, then convert again from the start.
        out.truncate(outStart);
        in.reset(inStart);
        long total = 0;
        int mark;
        for (long n = in.blockCount(); n != 0; n = in.blockCount()) {
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
        for (long n = in.blockCount(); n != 0; n = in.blockCount()) {
            for (long i = 0; i < n; i++) {
                element.write(in, out);
            }
        }
        if (in.mark() != mark) {
            throw new IllegalStateException("array re-read ended at another position");
        }
    }
}
