package dev.etl.sink;

import java.util.function.Consumer;

import dev.etl.backpressure.InFlightBudget;
import dev.etl.error.FatalPipelineException;
import io.micrometer.core.instrument.MeterRegistry;

/**
 * The running side of one {@link SinkDefinition}: a bounded chunk queue per shard, and shard workers
 * on io threads that merge chunks into batches, seal them ({@link BatchConfig}), write them through
 * the shard's {@link ShardWriter}, retry transient failures with backoff ({@link RetryConfig}), and
 * release the batches' acks: success after a durable write, failure on every other path.
 *
 * <p>Lanes call {@link #newChunk} and {@link #tryHandOff} from their own threads; neither ever
 * blocks. The pipeline controller calls the life-cycle methods.
 */
public final class SinkRuntime implements ChunkSink, AutoCloseable {
    public SinkRuntime(String pipelineName, SinkDefinition definition, InFlightBudget budget, int ioThreads,
            MeterRegistry registry, Consumer<FatalPipelineException> fatalListener) {
        throw new UnsupportedOperationException("implemented in the sink-runtime change");
    }

    public String name() {
        throw new UnsupportedOperationException();
    }

    public int shardCount() {
        throw new UnsupportedOperationException();
    }

    /** An empty chunk for {@code shard}, recycled when possible. Any thread; never blocks. */
    public Chunk newChunk(int shard) {
        throw new UnsupportedOperationException();
    }

    /**
     * Hands a non-empty chunk to its shard worker if the in-flight budget and the shard's queue both
     * have room; on success ownership moves to the worker. On {@code false} nothing changed and the
     * caller still owns the chunk (it keeps it and pauses). Any lane thread; never blocks.
     */
    public boolean tryHandOff(Chunk chunk) {
        throw new UnsupportedOperationException();
    }

    /** Starts the io threads. */
    public void start() {
        throw new UnsupportedOperationException();
    }

    /**
     * Asks every worker to seal what it holds now instead of waiting for linger (revoke and shutdown
     * drains). Returns immediately.
     */
    public void flushNow() {
        throw new UnsupportedOperationException();
    }

    /** Whether every handed-off chunk has been written or failed (queues empty, nothing being written). */
    public boolean isIdle() {
        throw new UnsupportedOperationException();
    }

    /**
     * Stops the workers: they keep draining queued chunks and writing (retrying as configured) until
     * everything is written or {@code deadlineNanos} ({@link System#nanoTime()} based) passes; what is
     * still unwritten then is abandoned — acks failed, {@code etl_sink_abandoned_batches_total}
     * incremented, one log line per shard. Returns the number of abandoned batches. Blocks the caller
     * until the workers have exited.
     */
    public int shutdown(long deadlineNanos) {
        throw new UnsupportedOperationException();
    }

    /** Whether every shard's writer reports healthy. */
    public boolean isHealthy() {
        throw new UnsupportedOperationException();
    }

    /** Same as {@code shutdown(System.nanoTime())}: abandon whatever is left immediately. */
    @Override
    public void close() {
        shutdown(System.nanoTime());
    }
}
