package dev.etl.docs;

import dev.etl.error.SourceException;
import dev.etl.record.Payload;
import dev.etl.source.AbstractSourceLane;
import dev.etl.source.BatchHandler;
import dev.etl.source.CommitOffsets;
import dev.etl.source.CommittedPosition;
import dev.etl.source.PartitionBatch;
import dev.etl.source.PartitionListener;
import dev.etl.source.Source;
import dev.etl.source.SourceLane;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Properties;
import java.util.concurrent.TimeUnit;

// The example source of docs/extending/custom-source.md; LinesSourceTest runs the source kit on it.
// tag::source[]
/**
 * Each file is a partition, each line a record at its line number; the lanes share the files (file i
 * goes to lane i % lanes) and the commits are kept in a properties file beside them.
 */
final class LinesSource implements Source {
    private final List<Path> files;
    private final int lanes;
    private final Path offsets;

    LinesSource(List<Path> files, int lanes, Path offsets) {
        this.files = List.copyOf(files);
        this.lanes = lanes;
        this.offsets = offsets;
    }

    @Override
    public SourceLane openLane(int laneIndex, PartitionListener listener) {
        return new LinesLane(laneIndex, listener);
    }

    @Override
    public String describe() {
        return "lines" + files;
    }

    synchronized Properties load() {
        Properties p = new Properties();
        if (Files.exists(offsets)) {
            try (InputStream in = Files.newInputStream(offsets)) {
                p.load(in);
            } catch (IOException e) {
                throw new UncheckedIOException(e);
            }
        }
        return p;
    }

    synchronized void store(CommitOffsets commit) throws IOException {
        Properties p = load();
        for (int i = 0; i < commit.size(); i++) {
            p.setProperty(commit.partition(i) + ".offset", Long.toString(commit.offset(i)));
            String metadata = commit.metadata(i);
            p.setProperty(commit.partition(i) + ".metadata", metadata == null ? "" : metadata);
        }
        try (OutputStream out = Files.newOutputStream(offsets)) {
            p.store(out, null);
        }
    }

    /** One lane: its files, where it reads in each, the batch it hands out. */
    final class LinesLane extends AbstractSourceLane {
        private static final int MAX_LINES_PER_BATCH = 3;
        private final int laneIndex;
        private final List<List<byte[]>> lines = new ArrayList<>();
        private final long[] next;
        private final CommittedPosition[] committed;
        private final LinesBatch batch = new LinesBatch();
        private boolean started;

        LinesLane(int laneIndex, PartitionListener listener) {
            super(listener); // the base reports assignments to it
            this.laneIndex = laneIndex;
            this.next = new long[files.size()];
            this.committed = new CommittedPosition[files.size()];
        }

        @Override
        public void poll(long timeoutMs, BatchHandler handler) {
            reportCommits(); // outcomes of earlier asynchronous commits, on this thread
            if (!started) {
                started = true;
                assign(open()); // reported to the engine before any batch of these files
            }
            boolean delivered = false;
            for (int i = 0; i < assignedCount(); i++) {
                int file = assignedPartition(i);
                if (!isDeliverable(file)) {
                    continue; // the lane or this file is paused
                }
                int from = (int) next[file];
                int to = Math.min(lines.get(file).size(), from + MAX_LINES_PER_BATCH);
                if (from < to) {
                    batch.reset(file, lines.get(file), from, to);
                    next[file] = to;
                    handler.onBatch(batch);
                    delivered = true;
                }
            }
            if (!delivered) {
                parkPoll(TimeUnit.MILLISECONDS.toNanos(timeoutMs)); // nothing new: wait, or until wakeup()
            }
        }

        /** Reads this lane's files and where their commits stand. */
        private int[] open() {
            Properties stored = load();
            List<Integer> mine = new ArrayList<>();
            for (int file = 0; file < files.size(); file++) {
                lines.add(new ArrayList<>());
            }
            for (int file = laneIndex; file < files.size(); file += lanes) {
                try {
                    for (String line : Files.readAllLines(files.get(file), StandardCharsets.UTF_8)) {
                        lines.get(file).add(line.getBytes(StandardCharsets.UTF_8));
                    }
                } catch (IOException e) {
                    throw new SourceException("cannot read " + files.get(file), e);
                }
                String offset = stored.getProperty(file + ".offset");
                committed[file] = offset == null
                        ? CommittedPosition.NONE
                        : new CommittedPosition(Long.parseLong(offset), stored.getProperty(file + ".metadata"));
                next[file] = Math.max(0, committed[file].offset());
                mine.add(file);
            }
            return mine.stream().mapToInt(Integer::intValue).toArray();
        }

        @Override
        public void commit(CommitOffsets offsets, boolean sync, CommitCallback callback) {
            reportCommits();
            try {
                store(offsets);
            } catch (IOException e) {
                if (sync) {
                    throw new SourceException("cannot store offsets " + offsets, e);
                }
                reportLater(offsets, callback, e);
                return;
            }
            if (!sync) {
                reportLater(offsets, callback, null);
            }
        }

        @Override
        public CommittedPosition committed(int file) {
            return committed[file]; // as it was when the file was assigned
        }

        @Override
        public String describe(int file) {
            return files.get(file).getFileName().toString();
        }

        @Override
        public String partitionIdentity(int file) {
            return files.get(file).toAbsolutePath().toString(); // another file of the same name is other data
        }
    }

    /** The flyweight cursor a lane hands out: valid only during onBatch. */
    static final class LinesBatch implements PartitionBatch {
        private final Payload key = new Payload();
        private final Payload value = new Payload();
        private int partition;
        private List<byte[]> lines;
        private int from;
        private int to;
        private int at;

        void reset(int partition, List<byte[]> lines, int from, int to) {
            this.partition = partition;
            this.lines = lines;
            this.from = from;
            this.to = to;
            this.at = from - 1;
        }

        @Override
        public int partition() {
            return partition;
        }

        @Override
        public int size() {
            return to - from;
        }

        @Override
        public long lastOffset() {
            return to - 1;
        }

        @Override
        public boolean next() {
            if (at + 1 >= to) {
                return false;
            }
            at++;
            value.wrap(lines.get(at));
            return true;
        }

        @Override
        public long offset() {
            return at;
        }

        @Override
        public long timestampMs() {
            return -1;
        }

        @Override
        public Payload key() {
            return key; // absent: lines have no key
        }

        @Override
        public Payload value() {
            return value;
        }
    }
}
// end::source[]
