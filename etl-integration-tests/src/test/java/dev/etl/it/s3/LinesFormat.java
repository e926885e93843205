package dev.etl.it.s3;

import dev.etl.s3.BackfillFormat;
import dev.etl.s3.CorruptSplitException;
import dev.etl.s3.ObjectInfo;
import dev.etl.s3.ObjectStore;
import dev.etl.s3.RowOutput;
import dev.etl.s3.WorkItem;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;

/**
 * A test format for the lane ITs: one row per line; an object splits into items of {@code splitBytes}
 * lines (start/end are line indexes); a line {@code CORRUPT} ends its item as corrupt; a line
 * {@code SLOW} makes the reader sleep 200 ms (so a kill lands mid-item).
 */
final class LinesFormat implements BackfillFormat {
    @Override
    public String name() {
        return "lines";
    }

    @Override
    public boolean matches(String key) {
        return key.endsWith(".lines");
    }

    @Override
    public List<WorkItem> plan(ObjectStore store, ObjectInfo object, long splitBytes) throws IOException {
        long lines = 0;
        try (BufferedReader in =
                reader(store, new WorkItem(name(), object.bucket(), object.key(), 0, -1, object.size(), ""))) {
            while (in.readLine() != null) {
                lines++;
            }
        }
        List<WorkItem> items = new ArrayList<>();
        for (long from = 0; from < Math.max(1, lines); from += splitBytes) {
            items.add(new WorkItem(
                    name(),
                    object.bucket(),
                    object.key(),
                    from,
                    Math.min(lines, from + splitBytes),
                    object.size(),
                    ""));
        }
        return items;
    }

    @Override
    public void read(ObjectStore store, WorkItem item, long skipRows, RowOutput out)
            throws IOException, CorruptSplitException {
        try (BufferedReader in = reader(store, item)) {
            String line;
            long index = 0;
            long row = 0;
            while ((line = in.readLine()) != null) {
                if (index >= item.start() && (item.end() < 0 || index < item.end())) {
                    if (line.equals("CORRUPT")) {
                        throw new CorruptSplitException(
                                "line " + index + " of " + item.describe() + " is corrupt", null);
                    }
                    if (line.equals("SLOW")) {
                        try {
                            Thread.sleep(200);
                        } catch (InterruptedException e) {
                            throw new RowOutput.ReadCancelledException();
                        }
                    } else {
                        if (row >= skipRows) {
                            byte[] bytes = line.getBytes(StandardCharsets.US_ASCII);
                            out.row(bytes, 0, bytes.length);
                            out.bytesRead(bytes.length + 1);
                        }
                        row++;
                    }
                }
                index++;
            }
        }
    }

    private static BufferedReader reader(ObjectStore store, WorkItem item) throws IOException {
        return new BufferedReader(new InputStreamReader(
                store.open(item.bucket(), item.key(), item.etag(), 0, -1), StandardCharsets.US_ASCII));
    }
}
