package dev.etl.internal.sink;

import dev.etl.sink.ChunkConfig;
import dev.etl.sink.RowEncoder;
import dev.etl.sink.SinkDefinition;
import java.util.ArrayDeque;
import java.util.Arrays;

/**
 * A lane's open chunks for one sink, one per shard, and the hand-off of full ones.
 *
 * <p>A chunk is handed off when it reaches the {@link ChunkConfig} size and at every
 * {@link #flush()} (end of each poll batch). When the sink refuses it (budget or queue full) the
 * lane keeps it <em>pending</em>: it stays the shard's open chunk, may keep growing with rows of the
 * batch being processed, and is offered again at the next flush. The lane pauses its partitions
 * while anything is pending, so a pending chunk stops growing once the already-fetched records are
 * processed. Nothing here ever blocks.
 *
 * <p><b>Column layouts.</b> Every chunk the outbox opens (and every chunk of its deterministic blocks) has
 * the outbox's {@link #layout()}: the layout of the encoders writing through it
 * ({@link dev.etl.sink.RowEncoder#layout()}). {@link #switchLayout} changes it between source batches: the
 * open chunks with rows of the old layout are handed off, or, when the sink refuses them, parked (offered
 * again at every flush, before anything else) so the next rows go into new chunks of the new layout.
 *
 * <p>Confined to its lane thread.
 */
public final class ChunkOutbox {
    private final ChunkSink sink;
    private final ChunkConfig config;
    /** The sink's definition, or null for an outbox over a bare {@link ChunkSink} (tests, benchmarks). */
    private final SinkDefinition definition;
    /** The sink's deterministic blocks, or null when it writes merged batches. */
    private final BlockChains blocks;

    private final Chunk[] open;
    private int pendingCount;
    private final boolean[] pending;
    /** The column layout of the open chunks (and of the rows the encoders below write now). */
    private int layout;
    /** The encoders of the sink stages writing through this outbox (build time; usually one). */
    private RowEncoder<?>[] encoders = new RowEncoder<?>[0];
    /** The lane this outbox belongs to: its chunks go to the lane's writer of each shard ({@link Chunk#route}). */
    private final int lane;
    /** Chunks of an earlier layout the sink refused at the switch: offered again before anything else. */
    private final ArrayDeque<Chunk> parked = new ArrayDeque<>(0);

    /**
     * An outbox with no open chunks for {@code sink}, handing chunks off at {@code config}'s size
     * unless a caller passes its own limits to {@link #rowAdded(int, ChunkConfig)}.
     */
    public ChunkOutbox(ChunkSink sink, ChunkConfig config) {
        this(sink, config, null, 0);
    }

    /** An outbox for the sink {@code definition} describes, handing chunks off at its chunk size. */
    public ChunkOutbox(ChunkSink sink, SinkDefinition definition) {
        this(sink, definition.chunks(), definition, 0);
    }

    /** As {@link #ChunkOutbox(ChunkSink, SinkDefinition)}, for lane {@code lane} of the pipeline. */
    public ChunkOutbox(ChunkSink sink, SinkDefinition definition, int lane) {
        this(sink, definition.chunks(), definition, lane);
    }

    private ChunkOutbox(ChunkSink sink, ChunkConfig config, SinkDefinition definition, int lane) {
        this.sink = sink;
        this.lane = lane;
        this.config = config;
        this.definition = definition;
        this.blocks = definition != null && definition.deterministicBlocks() ? new BlockChains(sink, definition) : null;
        this.open = new Chunk[sink.shardCount()];
        this.pending = new boolean[open.length];
    }

    /** The sink's deterministic blocks, or null when it writes merged batches. */
    public BlockChains blocks() {
        return blocks;
    }

    /** The definition of the sink, or null when this outbox was built over a bare {@link ChunkSink}. */
    public SinkDefinition definition() {
        return definition;
    }

    /** The sink this outbox hands chunks to. */
    public ChunkSink sink() {
        return sink;
    }

    public int shardCount() {
        return open.length;
    }

    /**
     * A sink stage of this lane writes through this outbox with {@code encoder} (build time): its layout is
     * asked between source batches ({@link #requestedLayout()}).
     */
    public void writtenBy(RowEncoder<?> encoder) {
        for (RowEncoder<?> e : encoders) {
            if (e == encoder) {
                return;
            }
        }
        encoders = Arrays.copyOf(encoders, encoders.length + 1);
        encoders[encoders.length - 1] = encoder;
    }

    /** The encoders writing through this outbox. */
    public RowEncoder<?>[] encoders() {
        return encoders;
    }

    /** The column layout of the open chunks. */
    public int layout() {
        return layout;
    }

    /**
     * The layout the encoders writing through this outbox ask for ({@link RowEncoder#requestedLayout()}):
     * the current {@link #layout()} when they all keep it or when they disagree (the switch waits until they
     * agree). Once per source batch: one call per encoder, no allocation.
     */
    public int requestedLayout() {
        RowEncoder<?>[] encoders = this.encoders;
        int current = layout;
        int requested = current;
        for (int i = 0; i < encoders.length; i++) {
            int r = encoders[i].requestedLayout();
            if (i == 0) {
                requested = r;
            } else if (r != requested) {
                return current;
            }
        }
        return requested;
    }

    /**
     * An encoder writing through this outbox whose {@link RowEncoder#layout()} is not {@link #layout()}, or
     * null when they all write it (one that is not changed its layout by itself or refused to adopt one: an
     * encoder bug).
     */
    public RowEncoder<?> encoderOffLayout() {
        for (RowEncoder<?> e : encoders) {
            if (e.layout() != layout) {
                return e;
            }
        }
        return null;
    }

    /**
     * From now on the rows encoded through this outbox have column {@code layout}: hands off every open
     * chunk with rows (parks it when the sink refuses: it is offered again first at every {@link #flush()}),
     * and the empty ones take the new layout. The deterministic blocks must have been sealed before (the
     * lane does: {@code LaneBlocks.sealAll}); their open chunks take the new layout.
     */
    public void switchLayout(int layout) {
        if (layout == this.layout) {
            return;
        }
        for (int shard = 0; shard < open.length; shard++) {
            Chunk chunk = open[shard];
            if (chunk == null) {
                continue;
            }
            if (chunk.isEmpty()) {
                chunk.layout(layout);
                continue;
            }
            if (sink.tryHandOff(chunk)) {
                open[shard] = null;
            } else {
                parked.addLast(chunk);
                open[shard] = null;
            }
            if (pending[shard]) {
                pending[shard] = false;
                pendingCount--;
            }
        }
        if (blocks != null) {
            blocks.layout(layout);
        }
        this.layout = layout;
    }

    /** The open chunk of {@code shard} to encode the next row into. */
    public Chunk chunk(int shard) {
        Chunk chunk = open[shard];
        if (chunk == null) {
            chunk = sink.newChunk(shard);
            chunk.layout(layout);
            chunk.route = lane;
            open[shard] = chunk;
        }
        return chunk;
    }

    /** Called after a row was added to {@code chunk(shard)}: hands the chunk off when it is full. */
    public void rowAdded(int shard) {
        rowAdded(shard, config);
    }

    /**
     * Same as {@link #rowAdded(int)}, with the size limits of the writing sink stage instead of the
     * outbox's own (a chain declares its {@link ChunkConfig} per sink stage).
     */
    public void rowAdded(int shard, ChunkConfig limits) {
        Chunk chunk = open[shard];
        if (!pending[shard] && (chunk.rowCount() >= limits.maxRows() || chunk.byteCount() >= limits.maxBytes())) {
            offer(shard, chunk);
        }
    }

    /** Offers every non-empty open chunk (and every released block); returns true when nothing is left pending. */
    public boolean flush() {
        while (!parked.isEmpty() && sink.tryHandOff(parked.peekFirst())) {
            parked.pollFirst();
        }
        Chunk[] chunks = open;
        for (int shard = 0; shard < chunks.length; shard++) {
            Chunk chunk = chunks[shard];
            if (chunk != null && !chunk.isEmpty()) {
                offer(shard, chunk);
            }
        }
        boolean blocksDone = blocks == null || blocks.flush();
        return pendingCount == 0 && parked.isEmpty() && blocksDone;
    }

    private void offer(int shard, Chunk chunk) {
        if (sink.tryHandOff(chunk)) {
            open[shard] = null;
            if (pending[shard]) {
                pending[shard] = false;
                pendingCount--;
            }
        } else if (!pending[shard]) {
            pending[shard] = true;
            pendingCount++;
        }
    }

    /** Whether a chunk (or a released block) was refused and is waiting for room. */
    public boolean hasPending() {
        return pendingCount > 0 || !parked.isEmpty() || (blocks != null && blocks.hasPending());
    }

    /** Bytes held in open chunks (pending or not). */
    public long heldBytes() {
        long bytes = blocks == null ? 0 : blocks.heldBytes();
        for (Chunk chunk : parked) {
            bytes += chunk.byteCount();
        }
        for (Chunk chunk : open) {
            if (chunk != null) {
                bytes += chunk.byteCount();
            }
        }
        return bytes;
    }

    /**
     * Teardown without a write: fails the acks of every open chunk and drops them. Over-failing is
     * safe (the data replays); dropping acks silently would not be.
     *
     * @return how many non-empty chunks were given up (their rows were never handed to the sink)
     */
    public int failAll() {
        int givenUp = 0;
        for (Chunk chunk; (chunk = parked.pollFirst()) != null; ) {
            givenUp++;
            chunk.failAcks();
        }
        for (int shard = 0; shard < open.length; shard++) {
            Chunk chunk = open[shard];
            if (chunk != null) {
                givenUp += chunk.isEmpty() ? 0 : 1;
                chunk.failAcks();
                open[shard] = null;
            }
            pending[shard] = false;
        }
        pendingCount = 0;
        if (blocks != null) {
            givenUp += blocks.failAll();
        }
        return givenUp;
    }
}
