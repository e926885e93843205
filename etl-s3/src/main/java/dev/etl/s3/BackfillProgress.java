package dev.etl.s3;

import dev.etl.error.SourceException;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * What a backfill did on this instance (rows, bytes, items, corrupt items, readers) and what its group
 * did (work items committed of the list's total, sampled by {@link BackfillProgressSampler}): the
 * {@code etl_backfill_*} meters, and the corrupt-item policy with its bound. Thread-safe: lanes add per
 * batch, readers start and end, the completion thread samples.
 */
final class BackfillProgress {
    private static final Logger log = LoggerFactory.getLogger(S3BackfillSource.class);

    private final S3BackfillConfig config;
    private final Counter rows;
    private final Counter bytes;
    private final Counter itemsDone;
    private final Counter itemsCorrupt;
    private final AtomicLong finished = new AtomicLong();
    private final AtomicLong corrupt = new AtomicLong();
    final AtomicInteger readers = new AtomicInteger();
    final AtomicLong itemsTotal = new AtomicLong(-1);
    final AtomicLong itemsCommitted = new AtomicLong();
    final AtomicInteger done = new AtomicInteger();

    BackfillProgress(S3BackfillConfig config) {
        this.config = config;
        MeterRegistry registry = config.meterRegistry();
        String pipeline = config.pipeline();
        rows = Counter.builder("etl.backfill.rows")
                .description("Rows the backfill handed to the chains on this instance")
                .tag("pipeline", pipeline)
                .register(registry);
        bytes = Counter.builder("etl.backfill.read.bytes")
                .description("Bytes the backfill read from object storage on this instance")
                .tag("pipeline", pipeline)
                .register(registry);
        itemsDone = Counter.builder("etl.backfill.items")
                .description("Work items whose rows all went to the chains on this instance, by outcome")
                .tag("pipeline", pipeline)
                .tag("outcome", "read")
                .register(registry);
        itemsCorrupt = Counter.builder("etl.backfill.items")
                .description("Work items whose rows all went to the chains on this instance, by outcome")
                .tag("pipeline", pipeline)
                .tag("outcome", "corrupt")
                .register(registry);
        Gauge.builder("etl.backfill.work.items", itemsTotal, AtomicLong::get)
                .description("Work items in the work list when the backfill started (-1 before it is known)")
                .tag("pipeline", pipeline)
                .register(registry);
        Gauge.builder("etl.backfill.work.items.committed", itemsCommitted, AtomicLong::get)
                .description("Work items the group has committed (every row durable), as last sampled")
                .tag("pipeline", pipeline)
                .register(registry);
        Gauge.builder("etl.backfill.done", done, AtomicInteger::get)
                .description("1 once the group has committed the whole work list")
                .tag("pipeline", pipeline)
                .register(registry);
        Gauge.builder("etl.backfill.readers", readers, AtomicInteger::get)
                .description("Work-topic partitions being read on this instance (one reader thread each)")
                .tag("pipeline", pipeline)
                .register(registry);
    }

    void rowsOut(long n) {
        if (n > 0) {
            rows.increment(n);
        }
    }

    void bytesRead(long n) {
        if (n > 0) {
            bytes.increment(n);
        }
    }

    void itemFinished(boolean wasCorrupt) {
        finished.incrementAndGet();
        if (!wasCorrupt) {
            itemsDone.increment();
        }
    }

    /**
     * A work item ended on corrupt data: fails the pipeline under {@code FAIL}, else counts it and fails
     * only when corrupt items exceed their share. Lane thread, before the item's last batch.
     */
    void corrupt(RowSegment segment, String partition) {
        String what = (segment.item == null ? "a work item" : segment.item.describe()) + " (work-topic " + partition
                + "@" + segment.itemOffset + ", after " + segment.itemRows + " row(s))";
        if (config.onCorrupt() == S3BackfillConfig.CorruptPolicy.FAIL) {
            throw new SourceException(
                    "backfill: " + what + " is corrupt: " + segment.corrupt.getMessage()
                            + " (etl.source.s3.on-corrupt=fail; skip gives up the rest of such items)",
                    segment.corrupt);
        }
        long bad = corrupt.incrementAndGet();
        itemsCorrupt.increment();
        long all = finished.get() + 1;
        log.warn(
                "pipeline={} backfill: skipping the rest of {}: {} (etl.source.s3.on-corrupt=skip; {} corrupt of {} items)",
                config.pipeline(),
                what,
                segment.corrupt.getMessage(),
                bad,
                all);
        if (all >= config.minItemsForRatio() && bad > config.maxCorruptRatio() * all) {
            throw new SourceException(
                    "backfill: " + bad + " of " + all + " work items read on this instance were corrupt,"
                            + " more than etl.source.s3.max-corrupt-ratio=" + config.maxCorruptRatio()
                            + ": is this the right data (format, prefix)? Last: " + what + ": "
                            + segment.corrupt.getMessage(),
                    segment.corrupt);
        }
    }

    long rowsTotal() {
        return (long) rows.count();
    }

    long bytesTotal() {
        return (long) bytes.count();
    }

    long finished() {
        return finished.get();
    }

    long corruptItems() {
        return corrupt.get();
    }
}
