package dev.etl.internal.sink;

import dev.etl.sink.ChunkConfig;
import dev.etl.sink.SinkDefinition;
import java.util.ArrayDeque;
import java.util.Arrays;
import java.util.Iterator;
import java.util.List;
import org.agrona.collections.Int2ObjectHashMap;

/**
 * The lane side of a sink's deterministic blocks: per partition and shard, the chain of chunks that
 * holds the open block's rows; the sealed blocks waiting until their end is recorded in the commit
 * metadata; and the recorded ones waiting to be handed off. A block's chain for one shard is handed
 * off as one queue entry and written as one insert, alone, with a token named after its range, so a
 * replay that seals at the same boundaries rebuilds the same insert.
 *
 * <p>Rows are appended to the tail chunk of the (partition, shard) chain; a tail whose buffer is nearly
 * full (see {@link #isFull}) gets a successor, so chunks stay pool-sized however large the block, and a
 * block takes about its content in memory. When a
 * partition's rows for one shard reach the sink's batch {@code max-rows} or {@code max-bytes}, the
 * {@link DueListener} is told once, and the lane seals the block at the next record boundary.
 *
 * <p>Confined to the lane thread. Allocation: a chunk per chunk-size of rows (from the pool) and a small
 * record per sealed block; nothing per row.
 */
public final class BlockChains {

    /** Told when a partition's open block reached a size limit. */
    @FunctionalInterface
    public interface DueListener {
        void sealDue(int partition);
    }

    private static final DueListener NO_LISTENER = partition -> {};

    private final ChunkSink sink;
    private final String sinkName;
    private final int shards;
    private final int chunkMaxBytes;
    private final int blockMaxRows;
    private final long blockMaxBytes;
    private final Int2ObjectHashMap<Open> open = new Int2ObjectHashMap<>();
    private final ArrayDeque<Sealed> waiting = new ArrayDeque<>();
    private final ArrayDeque<Sealed> releasable = new ArrayDeque<>();
    private DueListener dueListener = NO_LISTENER;
    private int lastPartition = -1;
    private Open last;
    private long heldBytes;
    /** The part of {@link #heldBytes} in open blocks. */
    private long openBytes;

    private int pendingHandOffs;
    /** {@link #flush}'s per-shard refusals (reused). */
    private final boolean[] refusedShards;
    /** The routers of the sink stages writing through this lane, by {@link dev.etl.sink.Router#topology()}. */
    private final java.util.TreeSet<String> routers = new java.util.TreeSet<>();
    /** The sink's topology as it goes into block tokens: shard count and routers. */
    private String topology;
    /** The column layout of the rows the lane encodes now: every chunk taken for an open block gets it. */
    private int layout;

    BlockChains(ChunkSink sink, SinkDefinition definition) {
        this.sink = sink;
        this.sinkName = definition.name();
        this.shards = sink.shardCount();
        this.refusedShards = new boolean[shards];
        ChunkConfig chunks = definition.chunks();
        this.chunkMaxBytes = chunks.maxBytes();
        this.blockMaxRows = definition.batch().maxRows();
        this.blockMaxBytes = definition.batch().maxBytes();
    }

    /**
     * A sink stage of this lane's chains routes its rows with {@code routerTopology}
     * ({@link dev.etl.sink.Router#topology()}): it becomes part of every block token of this sink (build time).
     */
    public void routedBy(String routerTopology) {
        if (routers.add(routerTopology)) {
            topology = null;
        }
    }

    /** What decides which rows a shard's block holds: the shard count and the routers. */
    String topology() {
        String t = topology;
        if (t == null) {
            t = "shards=" + shards + " routers=" + routers;
            topology = t;
        }
        return t;
    }

    /** The column layout of the rows encoded into open blocks now. */
    public int layout() {
        return layout;
    }

    /**
     * From now on the rows encoded into open blocks have column {@code layout}. Every open block must have
     * been sealed first (its rows are of the old layout); the empty chunks still open take the new one.
     *
     * @throws IllegalStateException when an open block holds rows
     */
    public void layout(int layout) {
        for (Open o : open.values()) {
            if (o.hasRows()) {
                throw new IllegalStateException("sink '" + sinkName + "': switching to column layout " + layout
                        + " with an open block of layout " + this.layout + " holding rows (it must be sealed first)");
            }
            for (Chunk head : o.head) {
                for (Chunk c = head; c != null; c = c.next) {
                    c.layout(layout);
                }
            }
        }
        this.layout = layout;
    }

    public void dueListener(DueListener listener) {
        this.dueListener = listener == null ? NO_LISTENER : listener;
    }

    /** The chunk to encode the next row of {@code partition} for {@code shard} into. */
    public Chunk chunk(int shard, int partition) {
        Open o = lastPartition == partition ? last : open(partition);
        Chunk tail = o.tail[shard];
        if (tail == null) {
            tail = sink.newChunk(shard);
            tail.layout(layout);
            o.head[shard] = tail;
            o.tail[shard] = tail;
        }
        return tail;
    }

    private Open open(int partition) {
        Open o = open.get(partition);
        if (o == null) {
            o = new Open(shards);
            open.put(partition, o);
        }
        lastPartition = partition;
        last = o;
        return o;
    }

    /**
     * A row of {@code rowBytes} was added to {@code chunk(shard, partition)}: counts it, starts a new
     * chunk when the tail is full, and tells the listener once when the block reached a size limit.
     */
    public void rowAdded(int shard, int partition, int rowBytes) {
        rowsAdded(shard, partition, 1, rowBytes);
    }

    /** Same as {@link #rowAdded}, for {@code count} rows of {@code rowBytes} bytes in all. */
    public void rowsAdded(int shard, int partition, int count, int rowBytes) {
        Open o = lastPartition == partition ? last : open(partition);
        int rows = o.rows[shard] += count;
        long bytes = o.bytes[shard] += rowBytes;
        heldBytes += rowBytes;
        openBytes += rowBytes;
        Chunk tail = o.tail[shard];
        if (isFull(tail, rowBytes / count)) {
            Chunk next = sink.newChunk(shard);
            next.layout(layout);
            tail.next = next;
            o.tail[shard] = next;
        }
        if (!o.due && (rows >= blockMaxRows || bytes >= blockMaxBytes)) {
            o.due = true;
            dueListener.sealDue(partition);
        }
    }

    /**
     * Whether a block chain's tail chunk is done: it holds at least half the chunk size and the next row
     * (about {@code rowBytes}) would not fit in its buffer. So a buffer only grows while it holds less than
     * half the chunk size (to about the chunk size), and a recycled one (at most 2 MiB) is filled. A block's chunks are
     * never handed off on their own, so their size does not matter to the sink; what matters is that a
     * closed chunk's buffer is nearly full. Closing at the chunk size instead (as ordinary chunks are
     * handed off) left the buffer that had just doubled past it half empty: a lane's blocks took about
     * twice their content in memory, beyond the documented bound (issue 30). A new chunk's buffer still
     * grows by doubling up to where it closes; a recycled one (up to 2 MiB) is filled to its capacity.
     */
    private boolean isFull(Chunk tail, int rowBytes) {
        int content = tail.byteCount();
        return content >= chunkMaxBytes / 2 && tail.rows().capacity() - content < Math.max(1, rowBytes);
    }

    /**
     * Seals {@code partition}'s open block as {@code [start, end)}: its chains (for the shards it has
     * rows for) wait until {@link #release} says the end is recorded. Returns whether the block held rows
     * (an empty one needs no write).
     *
     * @param partitionIdentity the partition's {@link dev.etl.source.SourceLane#partitionIdentity}, part of
     *                          the block's token
     */
    public boolean seal(int partition, long start, long end, String partitionIdentity) {
        Open o = open.get(partition);
        if (o == null || !o.hasRows()) {
            if (o != null) {
                openBytes -= o.totalBytes();
                o.reset();
            }
            return false;
        }
        String topology = topology();
        Chunk[] heads = new Chunk[shards];
        long bytes = 0;
        for (int shard = 0; shard < shards; shard++) {
            Chunk head = o.head[shard];
            if (head != null && o.rows[shard] > 0) {
                dropEmptyTail(head);
                head.blockToken =
                        DedupToken.ofDeterministicBlock(sinkName, shard, topology, partitionIdentity, start, end);
                head.route = partition;
                heads[shard] = head;
                bytes += o.bytes[shard];
            } else if (head != null) {
                recycleEmpty(head);
            }
        }
        openBytes -= o.totalBytes();
        o.reset();
        waiting.addLast(new Sealed(partition, start, end, heads, bytes));
        return true;
    }

    /** The ends of {@code partition}'s sealed blocks up to {@code end} are recorded: they may be written. */
    public void release(int partition, long end) {
        Iterator<Sealed> it = waiting.iterator();
        while (it.hasNext()) {
            Sealed s = it.next();
            if (s.partition == partition && s.end <= end) {
                it.remove();
                releasable.addLast(s);
            }
        }
    }

    /**
     * Offers every released block chain, oldest first; true when none is left pending. Once a shard refused a
     * chain, no later chain is offered to that shard in this flush: a partition's blocks reach a shard in the
     * order they were sealed (a later block accepted while an earlier one waits would overtake it).
     */
    public boolean flush() {
        int refused = 0;
        boolean[] refusedShards = this.refusedShards;
        java.util.Arrays.fill(refusedShards, false);
        Iterator<Sealed> it = releasable.iterator();
        while (it.hasNext()) {
            Sealed s = it.next();
            for (int shard = 0; shard < shards; shard++) {
                Chunk head = s.heads[shard];
                if (head == null) {
                    continue;
                }
                if (!refusedShards[shard] && sink.tryHandOff(head)) {
                    s.heads[shard] = null;
                    s.remaining--;
                } else {
                    refusedShards[shard] = true;
                    refused++;
                }
            }
            if (s.remaining == 0) {
                heldBytes -= s.bytes;
                it.remove();
            }
        }
        pendingHandOffs = refused;
        return refused == 0;
    }

    /** Whether a released block was refused and waits for room. */
    public boolean hasPending() {
        return pendingHandOffs > 0;
    }

    /** Whether sealed blocks wait for their end to be recorded. */
    public boolean hasWaiting() {
        return !waiting.isEmpty();
    }

    /**
     * Calls {@code visitor} with every chunk this lane holds in open, sealed and released blocks, and
     * whether it is the last of its chain (the one being filled, or where the block ended). Memory
     * accounting in tests.
     */
    void forEachHeld(java.util.function.BiConsumer<Chunk, Boolean> visitor) {
        for (Open o : open.values()) {
            for (int shard = 0; shard < shards; shard++) {
                for (Chunk c = o.head[shard]; c != null; c = c.next) {
                    visitor.accept(c, c == o.tail[shard]);
                }
            }
        }
        for (ArrayDeque<Sealed> queue : List.of(waiting, releasable)) {
            for (Sealed sealed : queue) {
                for (Chunk head : sealed.heads) {
                    for (Chunk c = head; c != null; c = c.next) {
                        visitor.accept(c, c.next == null);
                    }
                }
            }
        }
    }

    /** Content bytes held by this lane in open, sealed and released blocks. */
    public long heldBytes() {
        return heldBytes;
    }

    /** The part of {@link #heldBytes()} in open blocks: what sealing could hand to the sinks. */
    public long openBytes() {
        return openBytes;
    }

    /** Content bytes of {@code partition}'s open block (all shards). */
    public long openBytes(int partition) {
        Open o = open.get(partition);
        return o == null ? 0 : o.totalBytes();
    }

    /**
     * Fails the acks of everything held for {@code partition} (open, sealed, released): it left the
     * lane before those blocks could be written. Returns how many block chains were given up.
     */
    public int fail(int partition) {
        int givenUp = 0;
        Open o = open.remove(partition);
        if (o != null) {
            givenUp += o.failAll();
            heldBytes -= o.totalBytes();
            openBytes -= o.totalBytes();
            o.reset();
        }
        if (lastPartition == partition) {
            lastPartition = -1;
            last = null;
        }
        givenUp += failQueued(waiting, partition);
        givenUp += failQueued(releasable, partition);
        return givenUp;
    }

    /**
     * Fails the acks of {@code partition}'s open block only (it cannot be sealed where it stands); the
     * partition keeps its sealed blocks. Returns how many chains were given up.
     */
    public int failOpen(int partition) {
        Open o = open.get(partition);
        if (o == null) {
            return 0;
        }
        int givenUp = o.failAll();
        heldBytes -= o.totalBytes();
        openBytes -= o.totalBytes();
        o.reset();
        return givenUp;
    }

    /**
     * Fails the acks of {@code partition}'s sealed blocks whose ends are not recorded yet (they may not be
     * written: a drain whose boundary commit failed). Returns how many chains were given up.
     */
    public int failWaiting(int partition) {
        return failQueued(waiting, partition);
    }

    /** Fails everything held (teardown). Returns how many block chains were given up. */
    public int failAll() {
        int givenUp = 0;
        for (Open o : open.values()) {
            givenUp += o.failAll();
            o.reset();
        }
        open.clear();
        lastPartition = -1;
        last = null;
        givenUp += failQueued(waiting, -1);
        givenUp += failQueued(releasable, -1);
        heldBytes = 0;
        openBytes = 0;
        pendingHandOffs = 0;
        return givenUp;
    }

    private int failQueued(ArrayDeque<Sealed> queue, int partition) {
        int givenUp = 0;
        Iterator<Sealed> it = queue.iterator();
        while (it.hasNext()) {
            Sealed s = it.next();
            if (partition >= 0 && s.partition != partition) {
                continue;
            }
            for (int shard = 0; shard < shards; shard++) {
                Chunk head = s.heads[shard];
                if (head != null) {
                    head.failChainAcks();
                    s.heads[shard] = null;
                    givenUp++;
                }
            }
            heldBytes -= s.bytes;
            it.remove();
        }
        return givenUp;
    }

    /**
     * A full tail gets its successor at once (rowAdded), so a block sealed right after ends in an empty
     * chunk: cut it off, so every chunk of a handed-off chain holds rows (and is counted out when written).
     */
    private static void dropEmptyTail(Chunk head) {
        Chunk previous = null;
        Chunk c = head;
        while (c.next != null) {
            previous = c;
            c = c.next;
        }
        if (previous != null && c.isEmpty()) {
            previous.next = null;
        }
    }

    private static void recycleEmpty(Chunk head) {
        // A chain with no rows holds no acks: its chunks are simply dropped (the pool is the sink's).
        head.next = null;
    }

    private static final class Open {
        final Chunk[] head;
        final Chunk[] tail;
        final int[] rows;
        final long[] bytes;
        boolean due;

        Open(int shards) {
            head = new Chunk[shards];
            tail = new Chunk[shards];
            rows = new int[shards];
            bytes = new long[shards];
        }

        boolean hasRows() {
            for (int r : rows) {
                if (r > 0) {
                    return true;
                }
            }
            return false;
        }

        long totalBytes() {
            long total = 0;
            for (long b : bytes) {
                total += b;
            }
            return total;
        }

        int failAll() {
            int n = 0;
            for (Chunk h : head) {
                if (h != null) {
                    h.failChainAcks();
                    n++;
                }
            }
            return n;
        }

        void reset() {
            Arrays.fill(head, null);
            Arrays.fill(tail, null);
            Arrays.fill(rows, 0);
            Arrays.fill(bytes, 0);
            due = false;
        }
    }

    private static final class Sealed {
        final int partition;
        final long start;
        final long end;
        final Chunk[] heads;
        final long bytes;
        int remaining;

        Sealed(int partition, long start, long end, Chunk[] heads, long bytes) {
            this.partition = partition;
            this.start = start;
            this.end = end;
            this.heads = heads;
            this.bytes = bytes;
            for (Chunk h : heads) {
                if (h != null) {
                    remaining++;
                }
            }
        }

        @Override
        public String toString() {
            return "block " + partition + "[" + start + ", " + end + ")";
        }
    }
}
