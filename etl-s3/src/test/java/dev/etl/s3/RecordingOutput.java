package dev.etl.s3;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

/** A {@link RowOutput} that keeps copies of the rows; optionally cancels the read after some rows. */
final class RecordingOutput implements RowOutput {
    final List<byte[]> rows = new ArrayList<>();
    long bytesRead;
    private final long cancelAfter;

    RecordingOutput() {
        this(-1);
    }

    RecordingOutput(long cancelAfter) {
        this.cancelAfter = cancelAfter;
    }

    @Override
    public void row(byte[] array, int offset, int length) {
        if (cancelAfter >= 0 && rows.size() >= cancelAfter) {
            throw new ReadCancelledException();
        }
        rows.add(Arrays.copyOfRange(array, offset, offset + length));
    }

    @Override
    public void bytesRead(long bytes) {
        bytesRead += bytes;
    }
}
