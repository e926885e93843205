package dev.etl.clickhouse;

import dev.etl.clickhouse.ClickHouseErrors.Category;
import dev.etl.error.RateLimitedLog;
import dev.etl.error.SinkWriteException;
import dev.etl.sink.SealedBatch;
import dev.etl.sink.ShardWriter;
import io.micrometer.core.instrument.MeterRegistry;
import java.net.URI;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HexFormat;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.TreeMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.LongSupplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Writes sealed batches of one shard as {@code INSERT INTO db.table (a, b, …) FORMAT RowBinary} (or
 * {@code FORMAT Native}) to one replica at a time, straight into the shard-local table (never a
 * Distributed table: the insert's return is the durability signal). The column list is the sink's columns
 * (its encoder's, in the encoder's order; see {@link ClickHouseInsert}): the table's columns it leaves out
 * get their {@code DEFAULT}; a writer given no columns sends no list. With {@link ColumnLayouts} (a sink whose
 * encoders evolve) each batch is inserted with the columns of its {@linkplain SealedBatch#layout() layout}:
 * the statement, the row boundaries and the Native block encoder are built per layout on its first batch and
 * kept; a batch of a layout the writer does not know fails permanently, naming it.
 *
 * <p><b>Format.</b> With {@link InsertFormat#ROW_BINARY} the batch's bytes are the body. With
 * {@link InsertFormat#NATIVE} the writer first transposes the batch's RowBinary rows into one Native
 * block ({@link NativeBlockEncoder}, from the sink's columns), on the calling io thread, once per
 * attempt (the same rows always give the same block, so every retry sends the same bytes); rows that
 * do not parse as the columns fail the batch permanently, naming row and column. The block buffer is
 * reused from batch to batch and dropped after a write when it grew past twice the batch
 * {@code max-bytes}.
 *
 * <p><b>Replica choice.</b> First attempts go round-robin over the replicas; a retry
 * ({@code attempt() > 1}) goes to the replica after the one the previous attempt used. Replicas whose
 * circuit breaker is open are skipped; when every breaker is open the write fails at once,
 * transiently, without a request (the engine backs off and retries). See {@code ReplicaBreaker}.
 *
 * <p><b>Settings</b> on every insert, in this order: {@code wait_end_of_query=1} (the answer comes after
 * the part is written), {@code insert_deduplicate=1}, {@code send_progress_in_http_headers=0};
 * {@code async_insert=0} only where {@link ClickHouseCapabilities} says every replica of the shard knows
 * it; the configured extra settings; and, under the same condition, {@code insert_deduplication_token=<the
 * batch's token>}. The writer hands them to the {@link ClickHouseTransport} as a {@link ClickHouseInsert}
 * (table + settings); how they travel (URL parameters either way) is the transport's business.
 *
 * <p><b>Errors</b> are classified by {@code ClickHouseErrors} (with the sink's
 * {@linkplain ClickHouseSinkConfig#rejectionCodes() extra rejection codes}); the {@link SinkWriteException}
 * names the shard, the replica URL, the table, the batch and the server's own error text. Transient
 * failures count against the replica's breaker; permanent ones do not (the server answered).
 *
 * <p><b>Rows the server refuses.</b> When the server refuses a batch for the content of some of its rows
 * ({@code ClickHouseErrors.Category#DATA}: a {@code throwIf} in a {@code MATERIALIZED} column, a
 * constraint, a division by zero, a value a type cannot hold), no retry and no policy could get past it:
 * the same bytes fail forever. The writer isolates those rows instead. It cuts the batch's RowBinary rows
 * (their boundaries from the sink's columns, {@link RowBinaryRows}) into two halves by row index (rows
 * {@code [from, mid)} and {@code [mid, to)}, {@code mid = (from + to) / 2}), inserts each, and cuts again
 * each half the server refuses, depth first, left half first, until every piece is written or is one row
 * the server refuses. Every row it can write is then durably written, and the write throws
 * {@link SinkWriteException#rejectedRows} naming the refused rows' indexes in the batch (the engine applies
 * the sink's permanent-failure policy to them). If every piece is accepted (the server refused only the
 * whole), the write succeeds.
 *
 * <p>The cut depends only on the batch and on which rows the server refuses, so a replay of the batch (a
 * retry after a transient failure of a piece, or the same deterministic block after a crash) sends the same
 * pieces in the same order, and the server drops those it already has: a piece's RowBinary (or Native)
 * bytes are the same, so a Replicated*MergeTree's block checksum matches (18.16), and where the server
 * knows {@code insert_deduplication_token} a piece's token is {@code <the batch's token>~<from>-<to>~<the
 * first 64 bits of the SHA-256 of the piece's RowBinary bytes, hex>} (the bytes in the token so that a replay
 * whose rows differ, from a chain that is not deterministic, is written rather than dropped). Pieces go
 * through the same replica choice, breakers, settings and (for Native) transposition as a batch; a piece
 * that fails transiently, or with a configuration error, ends the write with that failure (the engine
 * retries the whole batch; the pieces written so far are dropped as duplicates then).
 *
 * <p>Not a mismatch in disguise: when more than half the batch's rows, and at least
 * {@value #STORM_MIN_ROWS}, are refused, or when the isolation would need more than
 * {@code 2 × }{@value #STORM_MIN_ROWS}{@code  × ⌈log2(rows)⌉} inserts (enough for {@value #STORM_MIN_ROWS}
 * refused rows anywhere in the batch), the write fails permanently as a whole, naming the code and the
 * count, instead of reporting rejected rows: a constraint every row violates must stop the pipeline, not
 * let a {@code SKIP} policy drop the data. Without the sink's columns (or with a column type
 * {@link RowBinaryRows} does not know) the rows cannot be told apart: a refusal fails the batch
 * permanently, saying so. Each isolation is logged at WARN (rate-limited) with the server's answer; its
 * inserts count in {@code etl_clickhouse_isolation_inserts_total{outcome}}.
 *
 * <p>Thread-safe: calls may overlap when the sink allows several in-flight batches per shard.
 */
public final class ClickHouseShardWriter implements ShardWriter {
    private static final Logger log = LoggerFactory.getLogger(ClickHouseShardWriter.class);

    /**
     * Refused rows below which a batch is never a storm, and for which the isolation always has inserts
     * enough (see the class comment).
     */
    static final int STORM_MIN_ROWS = 10;

    /** Rejected row indexes a message lists before it summarises the rest. */
    private static final int LISTED_ROWS = 20;

    /**
     * The state of a replica's circuit breaker. {@code CLOSED}: inserts flow; consecutive transient
     * failures up to the sink's breaker threshold open it. {@code OPEN}: the replica is refused for the
     * breaker's open time. {@code HALF_OPEN}: one probe insert is in flight; its success closes the breaker,
     * its failure opens it again.
     */
    public enum BreakerState {
        CLOSED,
        OPEN,
        HALF_OPEN
    }

    /** The state of one replica, for metrics, health details and tests. */
    public record ReplicaStatus(String replica, BreakerState state, int consecutiveFailures, long opens) {}

    private final String sinkName;
    private final int shard;
    private final String table;
    private final ShardReplica[] replicas;
    private final ClickHouseTransport transport;
    private final Runnable onClose;
    private final AtomicBoolean closed = new AtomicBoolean();
    private final boolean sendToken;
    private final LongSupplier nanoClock;
    private final AtomicLong roundRobin = new AtomicLong();
    /** The sink's column lists, by layout. */
    private final ColumnLayouts layouts;
    /** What a batch of each layout is sent with, by layout id, built on a layout's first batch; copy-on-write. */
    private volatile LayoutWriter[] byLayout = new LayoutWriter[0];
    /** Guards growing {@link #byLayout}. */
    private final Object layoutLock = new Object();

    private final ClickHouseSinkConfig config;
    private final ClickHouseCapabilities capabilities;
    private final MeterRegistry registry;
    private final String pipelineName;
    /** The sink's extra data-rejection codes. */
    private final Set<Integer> rejectionCodes;

    private final RateLimitedLog isolationLog;

    /** Last failed attempt (sequence, replica index), so the retry can go to the next replica. */
    private final Object lastFailureLock = new Object();

    private long lastFailedSequence = Long.MIN_VALUE;
    private int lastFailedReplica = -1;

    /**
     * @param config       the sink's configuration
     * @param shard        shard index in {@code [0, config.shards().size())}
     * @param sinkName     sink name (metrics and messages)
     * @param pipelineName pipeline name (metrics)
     * @param capabilities what every replica of this shard supports (see {@link ClickHouseCapabilities#common})
     * @param transport    the exchange with the replicas (shared by the sink's writers; not closed here)
     * @param registry     where the replica meters are registered
     * @param nanoClock    monotonic clock for the breakers ({@code System::nanoTime})
     */
    public ClickHouseShardWriter(
            ClickHouseSinkConfig config,
            int shard,
            String sinkName,
            String pipelineName,
            ClickHouseCapabilities capabilities,
            ClickHouseTransport transport,
            MeterRegistry registry,
            LongSupplier nanoClock) {
        this(config, shard, sinkName, pipelineName, capabilities, transport, registry, nanoClock, () -> {});
    }

    /**
     * As the other constructor, with {@code onClose} run once by the first {@link #close()} (the sink
     * uses it to close its transport after the last writer).
     */
    public ClickHouseShardWriter(
            ClickHouseSinkConfig config,
            int shard,
            String sinkName,
            String pipelineName,
            ClickHouseCapabilities capabilities,
            ClickHouseTransport transport,
            MeterRegistry registry,
            LongSupplier nanoClock,
            Runnable onClose) {
        this(config, List.of(), shard, sinkName, pipelineName, capabilities, transport, registry, nanoClock, onClose);
    }

    /**
     * As the other constructors, for rows of {@code columns} (the sink's encoder's, in order): every insert
     * names them ({@code INSERT INTO … (a, b, …)}; none: no list), refused rows are isolated by their
     * boundaries, and {@link InsertFormat#NATIVE} builds its blocks from them.
     *
     * @throws UnsupportedNativeTypeException with {@code NATIVE}, when {@code columns} is empty or a column's
     *                                        type cannot be sent in a Native block
     */
    public ClickHouseShardWriter(
            ClickHouseSinkConfig config,
            List<ClickHouseColumn> columns,
            int shard,
            String sinkName,
            String pipelineName,
            ClickHouseCapabilities capabilities,
            ClickHouseTransport transport,
            MeterRegistry registry,
            LongSupplier nanoClock,
            Runnable onClose) {
        this(
                config,
                ColumnLayouts.of(columns),
                shard,
                sinkName,
                pipelineName,
                capabilities,
                transport,
                registry,
                nanoClock,
                onClose);
    }

    /**
     * As the other constructors, for rows of several column layouts: each batch is inserted with the
     * columns of its {@linkplain SealedBatch#layout() layout} in {@code layouts} (its statement, row boundaries
     * and Native block encoder built on the layout's first batch and kept); a batch of a layout
     * {@code layouts} does not know fails permanently, naming it.
     *
     * @throws UnsupportedNativeTypeException with {@code NATIVE}, when layout 0 has no columns or a column
     *                                        whose type cannot be sent in a Native block (a later layout's
     *                                        batches fail permanently for the same reason)
     */
    public ClickHouseShardWriter(
            ClickHouseSinkConfig config,
            ColumnLayouts layouts,
            int shard,
            String sinkName,
            String pipelineName,
            ClickHouseCapabilities capabilities,
            ClickHouseTransport transport,
            MeterRegistry registry,
            LongSupplier nanoClock,
            Runnable onClose) {
        this(
                config,
                layouts,
                shard,
                sinkName,
                pipelineName,
                capabilities,
                transport,
                registry,
                nanoClock,
                onClose,
                replicas(config, shard, sinkName, pipelineName, registry, nanoClock));
    }

    /**
     * As the public constructor, over {@code replicas} shared with the shard's other writers (their breakers
     * and meters are the replica's, whichever writer sends: {@link #replicas}).
     */
    ClickHouseShardWriter(
            ClickHouseSinkConfig config,
            ColumnLayouts layouts,
            int shard,
            String sinkName,
            String pipelineName,
            ClickHouseCapabilities capabilities,
            ClickHouseTransport transport,
            MeterRegistry registry,
            LongSupplier nanoClock,
            Runnable onClose,
            ShardReplica[] replicas) {
        this.config = Objects.requireNonNull(config, "config");
        this.layouts = Objects.requireNonNull(layouts, "layouts");
        this.capabilities = Objects.requireNonNull(capabilities, "capabilities");
        this.registry = Objects.requireNonNull(registry, "registry");
        this.pipelineName = Objects.requireNonNull(pipelineName, "pipelineName");
        this.rejectionCodes = config.rejectionCodes();
        this.sinkName = Objects.requireNonNull(sinkName, "sinkName");
        this.shard = shard;
        this.table = config.qualifiedTable();
        this.transport = Objects.requireNonNull(transport, "transport");
        this.nanoClock = Objects.requireNonNull(nanoClock, "nanoClock");
        if (replicas.length != config.shards().get(shard).size()) {
            throw new IllegalArgumentException("shard " + shard + " has "
                    + config.shards().get(shard).size() + " replicas, got " + replicas.length);
        }
        this.replicas = replicas;
        this.sendToken = capabilities.dedupToken();
        this.onClose = Objects.requireNonNull(onClose, "onClose");
        this.isolationLog = new RateLimitedLog(TimeUnit.SECONDS.toNanos(10), nanoClock);
        layout(0); // builds layout 0 now: a Native block it cannot carry fails here, at startup
    }

    /**
     * The replicas of {@code shard}, each with its breaker and meters: one set per shard, shared by its writers
     * (a replica that fails opens its breaker for all of them; its meters count every writer's inserts).
     */
    static ShardReplica[] replicas(
            ClickHouseSinkConfig config,
            int shard,
            String sinkName,
            String pipelineName,
            MeterRegistry registry,
            LongSupplier nanoClock) {
        List<URI> uris = config.shards().get(shard);
        ShardReplica[] replicas = new ShardReplica[uris.size()];
        for (int i = 0; i < replicas.length; i++) {
            ReplicaBreaker breaker = new ReplicaBreaker(
                    config.breakerThreshold(), config.breakerOpenTime().toNanos(), nanoClock);
            replicas[i] = new ShardReplica(
                    uris.get(i),
                    breaker,
                    new ClickHouseReplicaMetrics(
                            registry, pipelineName, sinkName, shard, describe(uris.get(i)), breaker));
        }
        return replicas;
    }

    /** What the batches of one column layout are sent with. */
    private static final class LayoutWriter {
        final ClickHouseInsert insert;
        /** NATIVE only (else null): the transposition of each batch into its Native block. */
        final NativeBatchTransposer transposer;
        /** Row boundaries for isolating refused rows, or null when the columns do not allow it (see {@link #noRows}). */
        final RowBinaryRows rowBoundaries;
        /** Why {@link #rowBoundaries} is null. */
        final String noRows;

        LayoutWriter(
                ClickHouseInsert insert, NativeBatchTransposer transposer, RowBinaryRows rowBoundaries, String noRows) {
            this.insert = insert;
            this.transposer = transposer;
            this.rowBoundaries = rowBoundaries;
            this.noRows = noRows;
        }
    }

    /**
     * The writer of {@code layout}'s batches, built on first use.
     *
     * @throws IllegalArgumentException       when {@code layouts} does not know {@code layout}
     * @throws UnsupportedNativeTypeException with {@code NATIVE}, when the layout's columns cannot be sent so
     */
    private LayoutWriter layout(int layout) {
        LayoutWriter[] known = byLayout;
        if (layout >= 0 && layout < known.length && known[layout] != null) {
            return known[layout];
        }
        synchronized (layoutLock) {
            known = byLayout;
            if (layout >= 0 && layout < known.length && known[layout] != null) {
                return known[layout];
            }
            List<ClickHouseColumn> columns = layouts.columns(layout); // throws for an unknown layout
            NativeBatchTransposer transposer = config.format() == InsertFormat.NATIVE
                    ? new NativeBatchTransposer(
                            columns,
                            2 * config.batch().maxBytes(),
                            registry,
                            pipelineName,
                            sinkName,
                            shard,
                            config.qualifiedTable(),
                            nanoClock)
                    : null;
            RowBinaryRows boundaries = null;
            String noBoundaries = null;
            try {
                boundaries = RowBinaryRows.of(columns);
            } catch (IllegalArgumentException e) {
                noBoundaries = e.getMessage();
            }
            LayoutWriter writer = new LayoutWriter(
                    insertRequest(config, columns, capabilities), transposer, boundaries, noBoundaries);
            LayoutWriter[] next = Arrays.copyOf(known, Math.max(known.length, layout + 1));
            next[layout] = writer;
            byLayout = next;
            return writer;
        }
    }

    /** The writer of {@code batch}'s layout; a layout it cannot write fails the batch permanently. */
    private LayoutWriter layoutOf(SealedBatch batch) throws SinkWriteException {
        try {
            return layout(batch.layout());
        } catch (IllegalArgumentException e) { // an unknown layout, or UnsupportedNativeTypeException
            throw SinkWriteException.permanentFailure(
                    "ClickHouse sink '" + sinkName + "' shard " + shard + " table " + config.qualifiedTable()
                            + ": batch " + batch.sequence() + " (" + batch.rowCount() + " rows) has column layout "
                            + batch.layout() + ", which this sink cannot write: " + e.getMessage(),
                    e);
        }
    }

    /** The insert a batch of {@code layout} is sent with (before its token); for tests. */
    ClickHouseInsert insert(int layout) {
        return layout(layout).insert;
    }

    /**
     * The insert every batch of this writer sends (before the per-batch token): the shard-local table,
     * the names of {@code columns} as its column list (none when there are none) and, in this order,
     * {@code wait_end_of_query=1}, {@code insert_deduplicate=1}, {@code send_progress_in_http_headers=0},
     * {@code async_insert=0} where supported, then the configured extra settings.
     */
    static ClickHouseInsert insertRequest(
            ClickHouseSinkConfig config, List<ClickHouseColumn> columns, ClickHouseCapabilities capabilities) {
        Map<String, String> settings = new LinkedHashMap<>();
        settings.put("wait_end_of_query", "1");
        settings.put("insert_deduplicate", "1");
        settings.put("send_progress_in_http_headers", "0");
        if (capabilities.asyncInsert()) {
            settings.put("async_insert", "0");
        }
        settings.putAll(config.settings());
        return new ClickHouseInsert(
                config.database(),
                config.table(),
                columns.stream().map(ClickHouseColumn::name).toList(),
                settings,
                config.format());
    }

    /** A replica's URI for messages and metric tags: scheme, host and port, never user info. */
    static String describe(URI uri) {
        return uri.getScheme() + "://" + uri.getHost() + (uri.getPort() >= 0 ? ":" + uri.getPort() : "");
    }

    @Override
    public void write(SealedBatch batch) throws SinkWriteException {
        LayoutWriter layout = layoutOf(batch);
        try {
            send(layout, batch);
        } catch (SinkWriteException e) {
            if (!isDataRejection(e)) {
                throw e;
            }
            isolate(layout, batch, e);
        }
    }

    /** One insert of {@code batch} (a batch or a piece of one) in the insert's format, with its layout's columns. */
    private void send(LayoutWriter layout, SealedBatch batch) throws SinkWriteException {
        if (layout.insert.format() == InsertFormat.ROW_BINARY) {
            write(layout, batch, batch.bytes(), batch.byteCount());
            return;
        }
        layout.transposer.write(batch, (body, length) -> write(layout, batch, body, length));
    }

    /** Whether {@code e} is the server refusing rows for their content. */
    private boolean isDataRejection(SinkWriteException e) {
        return !e.isTransient()
                && e.getCause() instanceof ClickHouseRequestException r
                && ClickHouseErrors.classify(r, rejectionCodes) == Category.DATA;
    }

    /**
     * The server refused {@code batch} ({@code refusal}) for the content of some rows: writes the others in
     * pieces and throws {@link SinkWriteException#rejectedRows} naming the refused ones (see the class
     * comment); returns normally when every piece is accepted.
     */
    private void isolate(LayoutWriter layout, SealedBatch batch, SinkWriteException refusal) throws SinkWriteException {
        int rows = batch.rowCount();
        int[] starts;
        RowBinaryRows rowBoundaries = layout.rowBoundaries;
        if (rows == 1) {
            starts = new int[] {0, batch.byteCount()};
        } else if (rows < 1 || rowBoundaries == null) {
            throw SinkWriteException.permanentFailure(
                    refusal.getMessage() + "; the rows the server refuses cannot be isolated from the others: "
                            + (rowBoundaries == null ? layout.noRows : "the batch has no rows"),
                    refusal.getCause());
        } else {
            try {
                starts = rowBoundaries.starts(batch.bytes(), batch.byteCount(), rows);
            } catch (RowBinaryMismatchException e) {
                throw SinkWriteException.permanentFailure(
                        refusal.getMessage() + "; the rows the server refuses cannot be isolated from the others: "
                                + e.getMessage(),
                        refusal.getCause());
            }
        }
        new Isolation(layout, batch, starts, refusal).run();
    }

    /** The isolation of the rows the server refuses in one batch: the pieces, what they gave, the guards. */
    private final class Isolation {
        private final LayoutWriter layout;
        private final SealedBatch batch;
        private final int[] starts;
        private final int rows;
        private final SinkWriteException wholeRefusal;
        private final int maxInserts;
        /** The RowBinary bytes of the piece being sent. */
        private final byte[] scratch;

        private int[] rejected = new int[4];
        private int rejectedCount;
        private SinkWriteException firstRowRefusal;
        private int firstRejectedRow = -1;
        private final Map<Integer, Integer> codes = new TreeMap<>();
        private int inserts;
        private int piecesWritten;
        private int rowsWritten;

        Isolation(LayoutWriter layout, SealedBatch batch, int[] starts, SinkWriteException wholeRefusal) {
            this.layout = layout;
            this.batch = batch;
            this.starts = starts;
            this.rows = batch.rowCount();
            this.wholeRefusal = wholeRefusal;
            this.maxInserts = maxIsolationInserts(rows);
            this.scratch = new byte[batch.byteCount()];
        }

        void run() throws SinkWriteException {
            if (rows == 1) {
                reject(0, wholeRefusal);
            } else {
                split(0, rows);
            }
            if (rejectedCount == 0) {
                long suppressed = isolationLog.permit();
                if (suppressed >= 0) {
                    log.warn(
                            "{}: the server refused batch {} ({} rows) as a whole ({}), but accepted every piece of it: "
                                    + "all its rows are written, in {} pieces ({} similar messages suppressed)",
                            where(),
                            batch.sequence(),
                            rows,
                            serverAnswer(wholeRefusal),
                            piecesWritten,
                            suppressed);
                }
                return;
            }
            int[] refused = Arrays.copyOf(rejected, rejectedCount);
            String message = where() + ": the server refused " + rejectedCount + " of the " + rows + " rows of batch "
                    + batch.sequence() + " (attempt " + batch.attempt() + ") for their content, rows "
                    + listRows(refused) + "; the other " + rowsWritten + " rows are written, in " + piecesWritten
                    + " pieces (" + inserts + " inserts)" + codeSummary() + ". The server's answer for row "
                    + firstRejectedRow + ": " + serverAnswer(firstRowRefusal);
            long suppressed = isolationLog.permit();
            if (suppressed >= 0) {
                log.warn("{} ({} similar messages suppressed)", message, suppressed);
            }
            throw SinkWriteException.rejectedRows(message, refused, firstRowRefusal.getCause());
        }

        /** Rows {@code [from, to)}, at least two, were refused together: tries each half. */
        private void split(int from, int to) throws SinkWriteException {
            int mid = (from + to) >>> 1;
            attempt(from, mid);
            attempt(mid, to);
        }

        private void attempt(int from, int to) throws SinkWriteException {
            SinkWriteException refusal = piece(from, to);
            if (refusal == null) {
                return;
            }
            if (to - from == 1) {
                reject(from, refusal);
            } else {
                split(from, to);
            }
        }

        /** Inserts rows {@code [from, to)} as a piece: null when written, the refusal when refused for data. */
        private SinkWriteException piece(int from, int to) throws SinkWriteException {
            if (inserts >= maxInserts) {
                throw SinkWriteException.permanentFailure(
                        where() + ": isolating the rows the server refuses in batch " + batch.sequence() + " ("
                                + rows + " rows) needs more than " + maxInserts + " inserts (" + rejectedCount
                                + " rows refused so far" + codeSummary() + ", " + rowsWritten + " rows written in "
                                + piecesWritten + " pieces): too many refused rows to isolate them one by one, "
                                + "which looks like a mismatch between the rows and the table rather than a few "
                                + "bad rows; failing the batch instead of dropping rows. The server's answer to the "
                                + "batch: " + serverAnswer(wholeRefusal),
                        wholeRefusal.getCause());
            }
            inserts++;
            int offset = starts[from];
            int length = starts[to] - offset;
            System.arraycopy(batch.bytes(), offset, scratch, 0, length);
            Piece piece = new Piece(
                    batch, from, to, scratch, length, pieceToken(batch.dedupToken(), from, to, scratch, length));
            try {
                send(layout, piece);
            } catch (SinkWriteException e) {
                if (isDataRejection(e)) {
                    return e;
                }
                throw new SinkWriteException(
                        e.isTransient(),
                        where() + ": isolating the rows the server refuses in batch " + batch.sequence()
                                + ", the piece of rows [" + from + ", " + to + ") failed "
                                + (e.isTransient()
                                        ? "transiently; the whole batch is written again on retry (the "
                                                + piecesWritten + " pieces written so far are dropped then as "
                                                + "duplicates): "
                                        : "permanently: ")
                                + e.getMessage(),
                        e.getCause());
            }
            piecesWritten++;
            rowsWritten += to - from;
            return null;
        }

        private void reject(int row, SinkWriteException refusal) throws SinkWriteException {
            if (rejectedCount == rejected.length) {
                rejected = Arrays.copyOf(rejected, rejectedCount * 2);
            }
            rejected[rejectedCount++] = row;
            if (firstRowRefusal == null) {
                firstRowRefusal = refusal;
                firstRejectedRow = row;
            }
            if (refusal.getCause() instanceof ClickHouseRequestException r) {
                codes.merge(r.serverCode(), 1, Integer::sum);
            }
            if (rejectedCount >= STORM_MIN_ROWS && 2L * rejectedCount > rows) {
                throw SinkWriteException.permanentFailure(
                        where() + ": the server refused " + rejectedCount + " of the " + rows + " rows of batch "
                                + batch.sequence() + " (more than half" + codeSummary() + ", rows "
                                + listRows(Arrays.copyOf(rejected, rejectedCount)) + "): not a few bad rows but a "
                                + "mismatch between the rows and the table (a constraint or expression every row "
                                + "violates, values of the wrong kind); failing the batch instead of dropping its "
                                + "rows. " + rowsWritten + " rows are written, in " + piecesWritten + " pieces. The "
                                + "server's answer for row " + firstRejectedRow + ": " + serverAnswer(firstRowRefusal),
                        refusal.getCause());
            }
        }

        private String codeSummary() {
            return codes.isEmpty() ? "" : ", codes " + codes;
        }

        private String where() {
            return "ClickHouse sink '" + sinkName + "' shard " + shard + " table " + table;
        }
    }

    /**
     * The inserts an isolation of {@code rows} rows may send: {@code 2 × STORM_MIN_ROWS × ⌈log2(rows)⌉}, what
     * {@code STORM_MIN_ROWS} refused rows need at most wherever they are (each level of the bisection tries
     * at most two pieces per refused row).
     */
    static int maxIsolationInserts(int rows) {
        int levels = rows <= 1 ? 1 : 32 - Integer.numberOfLeadingZeros(rows - 1);
        return 2 * STORM_MIN_ROWS * levels;
    }

    /**
     * A piece's deduplication token: {@code <batch token>~<from>-<to>~<16 hex digits of the SHA-256 of the
     * piece's RowBinary bytes>}.
     */
    static String pieceToken(String batchToken, int from, int to, byte[] bytes, int length) {
        MessageDigest sha;
        try {
            sha = MessageDigest.getInstance("SHA-256");
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException("SHA-256 is missing from this JVM", e);
        }
        sha.update(bytes, 0, length);
        byte[] digest = sha.digest();
        return batchToken + "~" + from + "-" + to + "~" + HexFormat.of().formatHex(digest, 0, 8);
    }

    /** Row indexes for a message: the first {@value #LISTED_ROWS}, then how many more. */
    private static String listRows(int[] rows) {
        if (rows.length <= LISTED_ROWS) {
            return Arrays.toString(rows);
        }
        String head = Arrays.toString(Arrays.copyOf(rows, LISTED_ROWS));
        return head.substring(0, head.length() - 1) + ", … (" + (rows.length - LISTED_ROWS) + " more)]";
    }

    /** The server's own answer in a failure (status and text), or the failure's message. */
    private static String serverAnswer(SinkWriteException e) {
        if (e.getCause() instanceof ClickHouseRequestException r) {
            return "HTTP " + r.status() + ": " + r.serverText();
        }
        return e.getMessage();
    }

    /** Rows {@code [from, to)} of {@code batch}, as a batch of their own (its RowBinary bytes, its token). */
    private record Piece(SealedBatch batch, int from, int to, byte[] bytes, int byteCount, String dedupToken)
            implements SealedBatch {
        @Override
        public String sinkName() {
            return batch.sinkName();
        }

        @Override
        public int shard() {
            return batch.shard();
        }

        @Override
        public long sequence() {
            return batch.sequence();
        }

        @Override
        public int rowCount() {
            return to - from;
        }

        @Override
        public int attempt() {
            return batch.attempt();
        }

        @Override
        public int layout() {
            return batch.layout();
        }
    }

    /** Sends {@code body[0, length)}, the batch in the insert's format, to the first replica that admits it. */
    private void write(LayoutWriter layout, SealedBatch batch, byte[] body, int length) throws SinkWriteException {
        int n = replicas.length;
        int start = startReplica(batch, n);
        for (int k = 0; k < n; k++) {
            int index = (start + k) % n;
            ShardReplica replica = replicas[index];
            if (replica.breaker.tryAcquire()) {
                insert(replica, index, layout.insert, batch, body, length);
                return;
            }
        }
        throw SinkWriteException.transientFailure(allOpenMessage(batch), null);
    }

    private int startReplica(SealedBatch batch, int n) {
        if (batch.attempt() > 1) {
            synchronized (lastFailureLock) {
                if (lastFailedSequence == batch.sequence() && lastFailedReplica >= 0) {
                    return (lastFailedReplica + 1) % n;
                }
            }
        }
        return (int) Long.remainderUnsigned(roundRobin.getAndIncrement(), n);
    }

    /**
     * One attempt on one replica whose breaker admitted it. Every outcome settles the breaker exactly
     * once (success, transient or permanent failure, or any throwable from building the request to
     * counting the metrics), so a half-open probe can never leave the replica HALF_OPEN forever.
     */
    private void insert(
            ShardReplica replica, int index, ClickHouseInsert insert, SealedBatch batch, byte[] body, int length)
            throws SinkWriteException {
        boolean settled = false;
        long startNs = nanoClock.getAsLong();
        try {
            ClickHouseInsert request =
                    sendToken ? insert.withSetting("insert_deduplication_token", batch.dedupToken()) : insert;
            long written = transport.insert(replica.uri, request, body, length);
            settled = true;
            replica.breaker.onSuccess();
            if (batch instanceof Piece) {
                replica.metrics.piece(true);
            }
            if (written == 0 && batch.rowCount() > 0) {
                // The server reports it wrote nothing: it dropped the insert as a block it already had
                // (a retry whose first attempt landed, or a replayed deterministic block).
                replica.metrics.deduplicated();
            }
        } catch (ClickHouseRequestException e) {
            long durationNs = nanoClock.getAsLong() - startNs;
            Category category = ClickHouseErrors.classify(e, rejectionCodes);
            boolean transientFailure = category == Category.TRANSIENT;
            settled = true;
            if (transientFailure) {
                long opensBefore = replica.breaker.opens();
                replica.breaker.onFailure();
                if (replica.breaker.opens() != opensBefore) {
                    log.warn(
                            "ClickHouse sink '{}' shard {}: circuit breaker of replica {} opened after {}",
                            sinkName,
                            shard,
                            replica.name,
                            e.getMessage());
                }
                synchronized (lastFailureLock) {
                    lastFailedSequence = batch.sequence();
                    lastFailedReplica = index;
                }
            } else {
                // The replica answered (the request itself is wrong): it is healthy.
                replica.breaker.onSuccess();
            }
            replica.metrics.failure(transientFailure, durationNs);
            if (batch instanceof Piece && category == Category.DATA) {
                replica.metrics.piece(false);
            }
            throw new SinkWriteException(transientFailure, failureMessage(transientFailure, replica, batch, e), e);
        } catch (RuntimeException e) {
            // e.g. a rejected URI; unknown failures are treated as transient (the engine's rule too)
            settled = true;
            replica.breaker.onFailure();
            replica.metrics.failure(true, nanoClock.getAsLong() - startNs);
            throw SinkWriteException.transientFailure(failureMessage(true, replica, batch, e), e);
        } catch (Error e) {
            // An Error (out of memory, a linkage or assertion error in a transport library) is no answer
            // from the server either: it settles the breaker as a transient failure and is rethrown
            // unchanged (the engine treats it as a failed attempt and retries).
            settled = true;
            replica.breaker.onFailure();
            log.warn(
                    "ClickHouse sink '{}' shard {}: insert to replica {} threw {}; counted as a transient failure "
                            + "of the replica",
                    sinkName,
                    shard,
                    replica.name,
                    e.toString());
            replica.metrics.failure(true, nanoClock.getAsLong() - startNs);
            throw e;
        } finally {
            if (!settled) {
                // A throwable before the breaker was settled (building the request, the clock, a
                // metric after a success): count it as a failed attempt of this replica.
                replica.breaker.onFailure();
            }
        }
        replica.metrics.success(nanoClock.getAsLong() - startNs);
    }

    private String failureMessage(boolean transientFailure, ShardReplica replica, SealedBatch batch, Exception e) {
        String detail;
        if (e instanceof ClickHouseRequestException r) {
            detail = switch (r.kind()) {
                case CONNECT -> "cannot connect: " + r.serverText();
                case TIMEOUT -> "no answer within the socket timeout: " + r.serverText();
                case IO -> (r.status() > 0 ? "answer not read: " : "connection failed: ") + r.serverText();
                case HTTP -> "HTTP " + r.status() + ": " + r.serverText();
            };
        } else {
            detail = e.toString();
        }
        String piece = batch instanceof Piece p ? " piece of rows [" + p.from() + ", " + p.to() + ")" : "";
        return "ClickHouse insert failed (" + (transientFailure ? "transient" : "permanent") + ") on sink '" + sinkName
                + "' shard " + shard + " replica " + replica.name + " table " + table + ", batch " + batch.sequence()
                + " attempt " + batch.attempt() + piece + " (" + batch.rowCount() + " rows, " + batch.byteCount()
                + " bytes): " + detail;
    }

    private String allOpenMessage(SealedBatch batch) {
        StringBuilder sb = new StringBuilder("ClickHouse sink '")
                .append(sinkName)
                .append("' shard ")
                .append(shard)
                .append(" table ")
                .append(table)
                .append(": no replica available for batch ")
                .append(batch.sequence())
                .append(" attempt ")
                .append(batch.attempt())
                .append(", every circuit breaker is open [");
        for (int i = 0; i < replicas.length; i++) {
            sb.append(i == 0 ? "" : ", ")
                    .append(replicas[i].name)
                    .append(" retry in ")
                    .append(replicas[i].breaker.remainingOpenNs() / 1_000_000)
                    .append(" ms");
        }
        return sb.append(']').toString();
    }

    /**
     * True while at least one replica's breaker is closed. Half-open breakers do not count: against a
     * hung shard their probes wait a whole socket timeout, and readiness must not flap up meanwhile.
     */
    @Override
    public boolean isHealthy() {
        for (ShardReplica r : replicas) {
            if (r.breaker.isClosed()) {
                return true;
            }
        }
        return false;
    }

    /** NATIVE: bytes of the block buffer kept for the next batch (0 when dropped or RowBinary); for tests. */
    int retainedBlockBytes() {
        int bytes = 0;
        for (LayoutWriter layout : byLayout) {
            if (layout != null && layout.transposer != null) {
                bytes += layout.transposer.retainedBlockBytes();
            }
        }
        return bytes;
    }

    /** Shard index. */
    public int shard() {
        return shard;
    }

    /** Per-replica state, in configuration order. */
    public List<ReplicaStatus> replicaStatus() {
        List<ReplicaStatus> out = new ArrayList<>(replicas.length);
        for (ShardReplica r : replicas) {
            out.add(new ReplicaStatus(r.name, r.breaker.state(), r.breaker.consecutiveFailures(), r.breaker.opens()));
        }
        return out;
    }

    /** Runs the close hook once; the transport is shared and closed by whoever created it. */
    @Override
    public void close() {
        if (closed.compareAndSet(false, true)) {
            long suppressed = isolationLog.drainSuppressed();
            if (suppressed > 0) {
                log.warn(
                        "ClickHouse sink '{}' shard {}: {} more messages about rows the server refused were suppressed",
                        sinkName,
                        shard,
                        suppressed);
            }
            onClose.run();
        }
    }

    @Override
    public String toString() {
        return "ClickHouseShardWriter[sink=" + sinkName + ", shard=" + shard + ", table=" + table + ", replicas="
                + replicaStatus() + "]";
    }
}
