package dev.etl.clickhouse;

import dev.etl.error.SinkWriteException;
import dev.etl.sink.SealedBatch;
import dev.etl.sink.ShardWriter;
import io.micrometer.core.instrument.MeterRegistry;
import java.net.URI;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.LongSupplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Writes sealed batches of one shard as {@code INSERT INTO db.table FORMAT RowBinary} (or
 * {@code FORMAT Native}) to one replica at a time, straight into the shard-local table (never a
 * Distributed table: the insert's return is the durability signal).
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
 * transiently, without a request (the engine backs off and retries). See {@link ReplicaBreaker}.
 *
 * <p><b>Settings</b> on every insert, in this order: {@code wait_end_of_query=1} (the answer comes after
 * the part is written), {@code insert_deduplicate=1}, {@code send_progress_in_http_headers=0};
 * {@code async_insert=0} only where {@link ClickHouseCapabilities} says every replica of the shard knows
 * it; the configured extra settings; and, under the same condition, {@code insert_deduplication_token=<the
 * batch's token>}. The writer hands them to the {@link ClickHouseTransport} as a {@link ClickHouseInsert}
 * (table + settings); how they travel (URL parameters either way) is the transport's business.
 *
 * <p><b>Errors</b> are classified by {@link ClickHouseErrors}; the {@link SinkWriteException} names the
 * shard, the replica URL, the table, the batch and the server's own error text. Transient failures
 * count against the replica's breaker; permanent ones do not (the server answered).
 *
 * <p>Thread-safe: calls may overlap when the sink allows several in-flight batches per shard.
 */
public final class ClickHouseShardWriter implements ShardWriter {
    private static final Logger log = LoggerFactory.getLogger(ClickHouseShardWriter.class);

    /** The state of one replica, for metrics, health details and tests. */
    public record ReplicaStatus(String replica, ReplicaBreaker.State state, int consecutiveFailures, long opens) {}

    private final String sinkName;
    private final int shard;
    private final String table;
    private final ShardReplica[] replicas;
    private final ClickHouseTransport transport;
    private final ClickHouseInsert insert;
    private final Runnable onClose;
    private final AtomicBoolean closed = new AtomicBoolean();
    private final boolean sendToken;
    private final LongSupplier nanoClock;
    private final AtomicLong roundRobin = new AtomicLong();
    /** NATIVE only (else null): the transposition of each batch into its Native block. */
    private final NativeBatchTransposer transposer;

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
     * As the other constructors, for rows of {@code columns} (the sink's encoder's, in order), which
     * {@link InsertFormat#NATIVE} needs to build its blocks; RowBinary ignores them.
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
        Objects.requireNonNull(config, "config");
        List<ClickHouseColumn> columnsCopy = List.copyOf(columns);
        this.transposer = config.format() == InsertFormat.NATIVE
                ? new NativeBatchTransposer(
                        columnsCopy,
                        2 * config.batch().maxBytes(),
                        registry,
                        pipelineName,
                        sinkName,
                        shard,
                        config.qualifiedTable(),
                        nanoClock)
                : null;
        this.sinkName = Objects.requireNonNull(sinkName, "sinkName");
        this.shard = shard;
        this.table = config.qualifiedTable();
        this.transport = Objects.requireNonNull(transport, "transport");
        this.nanoClock = Objects.requireNonNull(nanoClock, "nanoClock");
        List<URI> uris = config.shards().get(shard);
        this.replicas = new ShardReplica[uris.size()];
        for (int i = 0; i < replicas.length; i++) {
            ReplicaBreaker breaker = new ReplicaBreaker(
                    config.breakerThreshold(), config.breakerOpenTime().toNanos(), nanoClock);
            replicas[i] = new ShardReplica(
                    uris.get(i),
                    breaker,
                    new ClickHouseReplicaMetrics(
                            registry, pipelineName, sinkName, shard, describe(uris.get(i)), breaker));
        }
        this.sendToken = capabilities.dedupToken();
        this.insert = insertRequest(config, capabilities);
        this.onClose = Objects.requireNonNull(onClose, "onClose");
    }

    /**
     * The insert every batch of this writer sends (before the per-batch token): the shard-local table
     * and, in this order, {@code wait_end_of_query=1}, {@code insert_deduplicate=1},
     * {@code send_progress_in_http_headers=0}, {@code async_insert=0} where supported, then the
     * configured extra settings.
     */
    static ClickHouseInsert insertRequest(ClickHouseSinkConfig config, ClickHouseCapabilities capabilities) {
        Map<String, String> settings = new LinkedHashMap<>();
        settings.put("wait_end_of_query", "1");
        settings.put("insert_deduplicate", "1");
        settings.put("send_progress_in_http_headers", "0");
        if (capabilities.asyncInsert()) {
            settings.put("async_insert", "0");
        }
        settings.putAll(config.settings());
        return new ClickHouseInsert(config.database(), config.table(), settings, config.format());
    }

    /** A replica's URI for messages and metric tags: scheme, host and port, never user info. */
    static String describe(URI uri) {
        return uri.getScheme() + "://" + uri.getHost() + (uri.getPort() >= 0 ? ":" + uri.getPort() : "");
    }

    @Override
    public void write(SealedBatch batch) throws SinkWriteException {
        if (insert.format() == InsertFormat.ROW_BINARY) {
            write(batch, batch.bytes(), batch.byteCount());
            return;
        }
        transposer.write(batch, (body, length) -> write(batch, body, length));
    }

    /** Sends {@code body[0, length)}, the batch in the insert's format, to the first replica that admits it. */
    private void write(SealedBatch batch, byte[] body, int length) throws SinkWriteException {
        int n = replicas.length;
        int start = startReplica(batch, n);
        for (int k = 0; k < n; k++) {
            int index = (start + k) % n;
            ShardReplica replica = replicas[index];
            if (replica.breaker.tryAcquire()) {
                insert(replica, index, batch, body, length);
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
    private void insert(ShardReplica replica, int index, SealedBatch batch, byte[] body, int length)
            throws SinkWriteException {
        boolean settled = false;
        long startNs = nanoClock.getAsLong();
        try {
            ClickHouseInsert request =
                    sendToken ? insert.withSetting("insert_deduplication_token", batch.dedupToken()) : insert;
            long written = transport.insert(replica.uri, request, body, length);
            settled = true;
            replica.breaker.onSuccess();
            if (written == 0 && batch.rowCount() > 0) {
                // The server reports it wrote nothing: it dropped the insert as a block it already had
                // (a retry whose first attempt landed, or a replayed deterministic block).
                replica.metrics.deduplicated();
            }
        } catch (ClickHouseRequestException e) {
            long durationNs = nanoClock.getAsLong() - startNs;
            boolean transientFailure = ClickHouseErrors.isTransient(e);
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
        return "ClickHouse insert failed (" + (transientFailure ? "transient" : "permanent") + ") on sink '" + sinkName
                + "' shard " + shard + " replica " + replica.name + " table " + table + ", batch " + batch.sequence()
                + " attempt " + batch.attempt() + " (" + batch.rowCount() + " rows, " + batch.byteCount() + " bytes): "
                + detail;
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
        return transposer == null ? 0 : transposer.retainedBlockBytes();
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
            onClose.run();
        }
    }

    @Override
    public String toString() {
        return "ClickHouseShardWriter[sink=" + sinkName + ", shard=" + shard + ", table=" + table + ", replicas="
                + replicaStatus() + "]";
    }
}
