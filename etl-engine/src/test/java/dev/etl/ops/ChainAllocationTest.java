package dev.etl.ops;

import static org.assertj.core.api.Assertions.assertThat;

import dev.etl.deser.Deserializer;
import dev.etl.internal.checkpoint.AckQueue;
import dev.etl.internal.checkpoint.AckRef;
import dev.etl.internal.checkpoint.Checkpointer;
import dev.etl.internal.sink.ChunkOutbox;
import dev.etl.record.Collector;
import dev.etl.record.Payload;
import dev.etl.sink.ChunkConfig;
import dev.etl.sink.KeyHashRouter;
import java.lang.management.ManagementFactory;
import java.util.function.Consumer;
import org.agrona.collections.Long2LongHashMap;
import org.junit.jupiter.api.Test;

/** The engine's part of the record path allocates nothing per record once buffers have grown. */
class ChainAllocationTest {
    private static final int RECORDS = 20_000;

    private static final class Counter implements StatefulOperator<Payload, Payload> {
        long seen;

        @Override
        public void process(Payload in, Collector<? super Payload> out) {
            seen++;
            out.collect(in);
        }
    }

    /** Holds every record and emits every 100th under its held acks: a window within one batch. */
    private static final class Holding implements StatefulOperator<Payload, Payload> {
        private HeldAcks held;
        long emitted;
        private int count;

        @Override
        public void open(OperatorContext context) {
            held = context.heldAcks();
        }

        @Override
        public void process(Payload in, Collector<? super Payload> out) {
            held.holdCurrent();
            if (++count == 100) {
                count = 0;
                try (HeldAcks.Emission<Payload> emission = held.emit(out)) {
                    emission.collect(in);
                }
                emitted++;
            }
        }
    }

    @Test
    void aStatefulOperatorHoldingAcksWithinOneBatchAllocatesNothingPerRecord() {
        com.sun.management.ThreadMXBean threads = (com.sun.management.ThreadMXBean) ManagementFactory.getThreadMXBean();
        threads.setThreadAllocatedMemoryEnabled(true);
        TestChainContext ctx = new TestChainContext();
        ChunkOutbox outbox =
                ctx.addSink("main", new RecordingChunkSink(1), new ChunkConfig(Integer.MAX_VALUE, Integer.MAX_VALUE));
        Holding holding = new Holding();
        Chain chain = Chains.from(ctx, Deserializer.payload())
                .process("window", holding)
                .sink(
                        (p, meta, out) -> out.writeStringBytes(p.array(), p.offset(), p.length()),
                        KeyHashRouter.byRecordKey());
        byte[][] keys = new byte[RECORDS][];
        byte[][] values = new byte[RECORDS][];
        for (int i = 0; i < RECORDS; i++) {
            keys[i] = ("key-" + i).getBytes();
            values[i] = ("value-" + i).getBytes();
        }
        TestPartitionBatch batch = new TestPartitionBatch(0, 0, keys, values);
        AckQueue acks = new AckQueue();
        chain.open();

        long allocated = Long.MAX_VALUE;
        for (int round = 0; round < 5; round++) {
            AckRef ack = new AckRef(0, 1, round, acks);
            ctx.meta().ack(ack);
            batch.rewind();

            long before = threads.getCurrentThreadAllocatedBytes();
            chain.onBatch(batch);
            allocated = threads.getCurrentThreadAllocatedBytes() - before;

            assertThat(outbox.chunk(0).rowCount()).isEqualTo(RECORDS / 100);
            assertThat(ack.refCount()).as("lane + chunk; nothing left held").isEqualTo(2);
            outbox.chunk(0).succeedAcks();
            ack.release(true);
            acks.drain(a -> {});
        }
        chain.close();

        assertThat(holding.emitted).isEqualTo(5L * RECORDS / 100);
        assertThat(allocated)
                .as("bytes allocated pushing %s held records", RECORDS)
                .isLessThan(4096);
    }

    /**
     * What the lane does per (poll batch, partition), once warm: register the batch, take its ack
     * from the queue's pool, push the batch through a chain into a chunk, write the chunk (release its
     * ack), release the lane's hold, drain the ack into the checkpointer (which recycles it) and
     * collect the committable watermark. A new ack per batch would be ~40 bytes a batch, 40 KB here.
     */
    @Test
    void aBatchsWholeLaneCycleWithPooledAcksAllocatesNothingOnceWarm() {
        com.sun.management.ThreadMXBean threads = (com.sun.management.ThreadMXBean) ManagementFactory.getThreadMXBean();
        threads.setThreadAllocatedMemoryEnabled(true);
        TestChainContext ctx = new TestChainContext();
        ChunkOutbox outbox =
                ctx.addSink("main", new RecordingChunkSink(1), new ChunkConfig(Integer.MAX_VALUE, Integer.MAX_VALUE));
        Chain chain = Chains.from(ctx, Deserializer.payload())
                .filter("non-empty", p -> p.length() > 0)
                .sink(
                        (p, meta, out) -> out.writeStringBytes(p.array(), p.offset(), p.length()),
                        KeyHashRouter.byRecordKey());
        int records = 100;
        byte[][] keys = new byte[records][];
        byte[][] values = new byte[records][];
        for (int i = 0; i < records; i++) {
            keys[i] = ("key-" + i).getBytes();
            values[i] = ("value-" + i).getBytes();
        }
        TestPartitionBatch batch = new TestPartitionBatch(0, 0, keys, values);
        Checkpointer checkpointer = new Checkpointer(System::nanoTime);
        int[] epochs = {checkpointer.assign(0), checkpointer.assign(1)};
        AckQueue acks = new AckQueue();
        Consumer<AckRef> ackHandler = checkpointer::ack;
        Long2LongHashMap committable = new Long2LongHashMap(-1);
        long[] nextOffset = {0};
        chain.open();
        Runnable batchCycle = () -> {
            for (int partition = 0; partition < 2; partition++) {
                nextOffset[0] += records;
                long seq = checkpointer.register(partition, nextOffset[0]);
                AckRef ack = acks.acquire(partition, epochs[partition], seq);
                ctx.meta().ack(ack);
                ctx.meta().batchAck(ack);
                chain.onBatch(batch.rewind());
                ctx.meta().ack(null);
                ctx.meta().batchAck(null);
                outbox.chunk(0).succeedAcks(); // the shard worker's durable write
                ack.release(true);
            }
            acks.drain(ackHandler);
            committable.clear();
            checkpointer.collectCommittable(committable);
            for (int partition = 0; partition < 2; partition++) {
                checkpointer.markCommitted(partition, committable.get(partition));
            }
        };
        for (int i = 0; i < 2_000; i++) {
            batchCycle.run(); // warm up: JIT, rings, pool
        }
        long createdBefore = acks.acksCreated();

        long before = threads.getCurrentThreadAllocatedBytes();
        for (int i = 0; i < 500; i++) {
            batchCycle.run();
        }
        long allocated = threads.getCurrentThreadAllocatedBytes() - before;
        chain.close();

        assertThat(checkpointer.watermark(1)).isEqualTo(nextOffset[0]);
        assertThat(checkpointer.outstanding()).isZero();
        assertThat(acks.acksCreated()).as("acks allocated once warm").isEqualTo(createdBefore);
        assertThat(allocated)
                .as("bytes allocated by 1,000 batches of %s records, acks included", records)
                .isLessThan(1_024);
    }

    @Test
    void pushingABatchThroughEveryOperatorAllocatesNothingPerRecord() {
        com.sun.management.ThreadMXBean threads = (com.sun.management.ThreadMXBean) ManagementFactory.getThreadMXBean();
        assertThat(threads.isThreadAllocatedMemorySupported()).isTrue();
        threads.setThreadAllocatedMemoryEnabled(true);

        TestChainContext ctx = new TestChainContext();
        ChunkOutbox outbox =
                ctx.addSink("main", new RecordingChunkSink(1), new ChunkConfig(Integer.MAX_VALUE, Integer.MAX_VALUE));
        Counter counter = new Counter();
        Chain chain = Chains.from(ctx, Deserializer.payload())
                .filter("non-empty", p -> p.length() > 0)
                .map("same", p -> p)
                .<Payload>flatMap("twice", (p, out) -> {
                    out.collect(p);
                    out.collect(p);
                })
                .peek("look", p -> {})
                .process("count", counter)
                .sink(
                        (p, meta, out) -> out.writeStringBytes(p.array(), p.offset(), p.length()),
                        KeyHashRouter.byRecordKey());
        byte[][] keys = new byte[RECORDS][];
        byte[][] values = new byte[RECORDS][];
        for (int i = 0; i < RECORDS; i++) {
            keys[i] = ("key-" + i).getBytes();
            values[i] = ("value-" + i).getBytes();
        }
        TestPartitionBatch batch = new TestPartitionBatch(0, 0, keys, values);
        AckQueue acks = new AckQueue();
        chain.open();

        long allocated = Long.MAX_VALUE;
        for (int round = 0; round < 5; round++) {
            AckRef ack = new AckRef(0, 1, round, acks);
            ctx.meta().ack(ack);
            batch.rewind();

            long before = threads.getCurrentThreadAllocatedBytes();
            chain.onBatch(batch);
            allocated = threads.getCurrentThreadAllocatedBytes() - before;

            // Play the shard worker and the lane: write the chunk, release the lane's hold; reuse the chunk.
            assertThat(outbox.chunk(0).rowCount()).isEqualTo(2 * RECORDS);
            outbox.chunk(0).succeedAcks();
            ack.release(true);
        }
        chain.close();

        assertThat(counter.seen).isEqualTo(5L * 2 * RECORDS);
        // One 16-byte object per record would be 640 KB; allow a little for the measurement itself.
        assertThat(allocated).as("bytes allocated pushing %s records", RECORDS).isLessThan(4096);
    }
}
