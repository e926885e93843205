package dev.etl.s3.parquet;

import dev.etl.s3.RowOutput;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

/** A {@link RowOutput} that copies every row, and can cancel the read after some rows. */
final class CollectedRows implements RowOutput {
    final List<byte[]> rows = new ArrayList<>();
    long bytesRead;
    private final long cancelAfter;

    CollectedRows() {
        this(Long.MAX_VALUE);
    }

    CollectedRows(long cancelAfter) {
        this.cancelAfter = cancelAfter;
    }

    @Override
    public void row(byte[] array, int offset, int length) {
        if (rows.size() >= cancelAfter) {
            throw new ReadCancelledException();
        }
        rows.add(Arrays.copyOfRange(array, offset, offset + length));
    }

    @Override
    public void bytesRead(long bytes) {
        if (bytes < 0) {
            throw new AssertionError("negative bytesRead " + bytes);
        }
        bytesRead += bytes;
    }
}
