package dev.etl.ops;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.etl.deser.Deserializer;
import dev.etl.error.FatalPipelineException;
import dev.etl.internal.checkpoint.AckQueue;
import dev.etl.internal.checkpoint.AckRef;
import dev.etl.internal.sink.Chunk;
import dev.etl.internal.sink.ChunkOutbox;
import dev.etl.record.Collector;
import dev.etl.sink.KeyHashRouter;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * Deferred emission (issue 11 item 1): a {@code process} operator that emits a value while a later
 * record is processed keeps the earlier batch's offset uncommittable until that value is written.
 * The test plays the lane (one ack per batch, its own hold), the sink (hand-off, write) and the
 * checkpointer (what was posted).
 */
class HeldAcksTest {
    private static final Deserializer<String> STRINGS = (key, value, meta, out) -> out.collect(value.toUtf8String());

    private final TestChainContext ctx = new TestChainContext();
    private final AckQueue acks = new AckQueue();
    private final RecordingChunkSink sink = new RecordingChunkSink(1);
    private final ChunkOutbox outbox = ctx.addSink("main", sink);
    private long nextSeq;
    private long nextOffset;

    /** Keeps the latest value; emits the previous one when the next arrives (the reproduction). */
    static final class OneDeepBuffer implements StatefulOperator<String, String> {
        private HeldAcks held;
        private String pending;

        @Override
        public void open(OperatorContext context) {
            held = context.heldAcks();
        }

        @Override
        public void process(String in, Collector<? super String> out) {
            if (pending != null) {
                try (HeldAcks.Emission<String> emission = held.emit(out)) {
                    emission.collect(pending);
                }
            }
            pending = in;
            held.holdCurrent();
        }

        @Override
        public void flush(Collector<? super String> out) {
            if (pending != null) {
                try (HeldAcks.Emission<String> emission = held.emit(out)) {
                    emission.collect(pending);
                }
                pending = null;
            }
        }
    }

    /** Counts records in tumbling windows of {@code size} records; emits "count=n" per window. */
    static final class TumblingCount implements StatefulOperator<String, String> {
        private final int size;
        private HeldAcks held;
        private int count;

        TumblingCount(int size) {
            this.size = size;
        }

        @Override
        public void open(OperatorContext context) {
            held = context.heldAcks();
        }

        @Override
        public void process(String in, Collector<? super String> out) {
            count++;
            held.holdCurrent();
            if (count == size) {
                emit(out);
            }
        }

        @Override
        public void flush(Collector<? super String> out) {
            if (count > 0) {
                emit(out);
            }
        }

        private void emit(Collector<? super String> out) {
            try (HeldAcks.Emission<String> emission = held.emit(out)) {
                emission.collect("count=" + count);
            }
            count = 0;
        }
    }

    private Chain chain(StatefulOperator<String, String> operator) {
        Chain chain = Chains.from(ctx, STRINGS)
                .process("buffer", operator)
                .sink(RowBinaryStrings.ENCODER, KeyHashRouter.byRecordKey());
        chain.open();
        return chain;
    }

    /** The lane's part for one batch: a fresh ack, the chain call, its own release. */
    private AckRef batch(Chain chain, String... values) {
        AckRef ack = new AckRef(0, 1, nextSeq++, acks);
        ctx.meta().ack(ack);
        chain.onBatch(TestPartitionBatch.from(nextOffset, values));
        nextOffset += values.length;
        ack.release(true);
        ctx.meta().ack(null);
        return ack;
    }

    /** Hands the open chunk off and returns it (the write is the caller's). */
    private Chunk handOff() {
        assertThat(outbox.flush()).isTrue();
        return sink.handedOff().get(sink.handedOff().size() - 1);
    }

    private List<AckRef> posted() {
        List<AckRef> posted = new ArrayList<>();
        acks.drain(posted::add);
        return posted;
    }

    @Test
    void aValueEmittedDuringALaterBatchKeepsItsBatchUncommittableUntilTheRowIsWritten() {
        Chain chain = chain(new OneDeepBuffer());
        AckRef first = batch(chain, "a1", "a2");
        Chunk firstRows = handOff();
        assertThat(RowBinaryStrings.decode(firstRows)).containsExactly("a1");
        firstRows.succeedAcks();
        assertThat(posted()).as("a2 is only in the operator's memory").isEmpty();

        AckRef second = batch(chain, "b1");
        Chunk secondRows = handOff();
        assertThat(RowBinaryStrings.decode(secondRows)).containsExactly("a2");
        assertThat(posted()).as("a2 is in a chunk, not yet written").isEmpty();

        secondRows.succeedAcks();
        assertThat(posted())
                .as("a2 written: its batch resolves; b1 is still held")
                .singleElement()
                .satisfies(ack -> {
                    assertThat(ack).isSameAs(first);
                    assertThat(ack.succeeded()).isTrue();
                });
        assertThat(second.refCount()).as("held by the operator").isEqualTo(1);
    }

    /**
     * Issue 30 item 2: whether a held emission landed in the open deterministic block depended on the poll
     * boundaries (in the block when the only held ack was the current batch's, merged otherwise), so a
     * replay that polled differently rebuilt a block of the same range, and token, with other rows: a
     * token-aware server dropped it, and the row was never written. Held data now never enters a block,
     * however the records were polled.
     */
    @Test
    void heldEmissionsNeverEnterTheDeterministicBlockWhateverThePollBoundaries() {
        for (int split = 1; split <= 4; split++) {
            TestChainContext blockCtx = new TestChainContext();
            ChunkOutbox blockOutbox = blockCtx.addBlockSink("main", new RecordingChunkSink(1));
            Chain chain = Chains.from(blockCtx, STRINGS)
                    .process("buffer", new OneDeepBuffer())
                    .sink(RowBinaryStrings.ENCODER, KeyHashRouter.byRecordKey());
            chain.open();
            String[] values = {"r0", "r1", "r2", "r3", "r4"};
            int seq = 0;
            for (int from = 0; from < values.length; from += split) {
                String[] polled = java.util.Arrays.copyOfRange(values, from, Math.min(values.length, from + split));
                AckRef ack = new AckRef(0, 1, seq++, acks);
                blockCtx.meta().ack(ack);
                blockCtx.meta().batchAck(ack);
                chain.onBatch(TestPartitionBatch.from(from, polled));
                ack.release(true);
                blockCtx.meta().ack(null);
                blockCtx.meta().batchAck(null);
            }
            assertThat(blockOutbox.blocks().openBytes(0))
                    .as("polls of %d records: the block holds no held data", split)
                    .isZero();
            assertThat(RowBinaryStrings.decode(blockOutbox.chunk(0)))
                    .as("polls of %d records: every emission in the merged chunk", split)
                    .containsExactly("r0", "r1", "r2", "r3");
        }
    }

    @Test
    void aHeldEmissionHasNoSourceRecordSoADeadLetterCannotCarryTheWrongPayload() {
        List<dev.etl.record.Payload> seen = new ArrayList<>();
        Chain chain = Chains.from(ctx, STRINGS)
                .process("buffer", new OneDeepBuffer())
                .peek(v -> seen.add(ctx.meta().sourceValue()))
                .sink(RowBinaryStrings.ENCODER, KeyHashRouter.byRecordKey());
        chain.open();
        batch(chain, "a1", "a2");
        assertThat(seen)
                .as("a1 emitted while a2 was processed: no source record")
                .containsExactly((dev.etl.record.Payload) null);
        assertThat(ctx.meta().sourceValue()).as("restored after the emission").isNotNull();
    }

    @Test
    void aFailedWriteOfTheEmittedRowFailsTheEarlierBatch() {
        Chain chain = chain(new OneDeepBuffer());
        AckRef first = batch(chain, "a1");
        batch(chain, "b1");
        handOff().failAcks();

        assertThat(posted()).singleElement().satisfies(ack -> {
            assertThat(ack).isSameAs(first);
            assertThat(ack.succeeded()).isFalse();
        });
    }

    @Test
    void aWindowSpanningBatchesHoldsEveryOneOfThemUntilItsRowIsWritten() {
        Chain chain = chain(new TumblingCount(5));
        AckRef a = batch(chain, "1", "2");
        AckRef b = batch(chain, "3", "4");
        AckRef c = batch(chain, "5", "6");
        assertThat(posted()).as("nothing written yet").isEmpty();
        Chunk window = handOff();
        assertThat(RowBinaryStrings.decode(window)).containsExactly("count=5");
        assertThat(window.ackCount()).as("one group ack for the window").isEqualTo(1);

        window.succeedAcks();
        assertThat(posted()).as("c is held again by the next window (record 6)").containsExactly(a, b);
        assertThat(a.succeeded() && b.succeeded()).isTrue();

        chain.flush();
        handOff().succeedAcks();
        assertThat(posted()).containsExactly(c);
        assertThat(c.succeeded()).isTrue();
    }

    @Test
    void aWindowClosedWithinOneBatchNeedsNoGroupAndHoldsNothingAfterwards() {
        Chain chain = chain(new TumblingCount(2));
        AckRef a = batch(chain, "1", "2", "3", "4");
        Chunk rows = handOff();
        assertThat(RowBinaryStrings.decode(rows)).containsExactly("count=2", "count=2");
        assertThat(rows.ack(0)).as("the batch's own ack, no group").isSameAs(a);
        rows.succeedAcks();
        assertThat(posted()).containsExactly(a);
    }

    @Test
    void flushEmitsWhatIsBufferedUnderItsBatchesAcks() {
        Chain chain = chain(new OneDeepBuffer());
        AckRef a = batch(chain, "a1");
        assertThat(outbox.chunk(0).isEmpty()).isTrue();

        chain.flush();
        Chunk rows = handOff();
        assertThat(RowBinaryStrings.decode(rows)).containsExactly("a1");
        assertThat(posted()).isEmpty();
        rows.succeedAcks();
        assertThat(posted()).containsExactly(a);
        assertThat(a.succeeded()).isTrue();
    }

    @Test
    void closeFailsEveryAckStillHeldSoBufferedDataReplaysAndNeverCommits() {
        Chain chain = chain(new TumblingCount(100));
        AckRef a = batch(chain, "1", "2");
        AckRef b = batch(chain, "3");
        assertThat(posted()).isEmpty();

        chain.close();

        assertThat(posted()).containsExactly(a, b);
        assertThat(a.succeeded()).isFalse();
        assertThat(b.succeeded()).isFalse();
    }

    @Test
    void anEmissionFromFlushWithoutHeldAcksFailsThePipelineInsteadOfLosingTheValueSilently() {
        StatefulOperator<String, String> careless = new StatefulOperator<>() {
            private String pending;

            @Override
            public void process(String in, Collector<? super String> out) {
                pending = in;
            }

            @Override
            public void flush(Collector<? super String> out) {
                out.collect(pending);
            }
        };
        Chain chain = chain(careless);
        batch(chain, "a1");

        assertThatThrownBy(chain::flush)
                .isInstanceOf(FatalPipelineException.class)
                .hasMessageContaining("sink stage 'sink-main'")
                .hasMessageContaining("HeldAcks");
    }

    @Test
    void aFailingCallFailsTheAcksOfItsEmissionsUnderFailPolicy() {
        StatefulOperator<String, String> failing = new StatefulOperator<>() {
            private HeldAcks held;

            @Override
            public void open(OperatorContext context) {
                held = context.heldAcks();
            }

            @Override
            public void process(String in, Collector<? super String> out) {
                if (in.equals("boom")) {
                    try (HeldAcks.Emission<String> emission = held.emit(out)) {
                        emission.collect("partial");
                        throw new IllegalStateException("cannot emit");
                    }
                }
                held.holdCurrent();
            }
        };
        Chain chain = chain(failing);
        AckRef a = batch(chain, "a1");
        AckRef b = new AckRef(0, 1, nextSeq++, acks);
        ctx.meta().ack(b);
        assertThatThrownBy(() -> chain.onBatch(TestPartitionBatch.from(nextOffset, "boom")))
                .isInstanceOf(FatalPipelineException.class);
        b.release(false);
        outbox.failAll(); // the lane's teardown: the chunk with the partial emission is never written

        assertThat(posted()).containsExactlyInAnyOrder(a, b);
        assertThat(a.succeeded()).as("the emission covering a failed").isFalse();
        assertThat(ctx.meta().ack()).as("the record's ack is restored").isSameAs(b);
    }

    @Test
    void anEmissionLeftOpenFailsThePipelineNamingTheStage() {
        StatefulOperator<String, String> leaky = new StatefulOperator<>() {
            private HeldAcks held;

            @Override
            public void open(OperatorContext context) {
                held = context.heldAcks();
            }

            @Override
            public void process(String in, Collector<? super String> out) {
                held.holdCurrent();
                held.emit(out).collect(in);
            }
        };
        Chain chain = chain(leaky);
        AckRef a = new AckRef(0, 1, nextSeq++, acks);
        ctx.meta().ack(a);

        assertThatThrownBy(() -> chain.onBatch(TestPartitionBatch.of("x")))
                .isInstanceOf(FatalPipelineException.class)
                .hasMessageContaining("stage 'buffer' left an emission scope open");
        assertThat(ctx.meta().ack()).isSameAs(a);
    }

    @Test
    void holdingOutsideProcessIsRejected() {
        HeldAcks[] holder = new HeldAcks[1];
        Chain chain = chain(new StatefulOperator<String, String>() {
            @Override
            public void open(OperatorContext context) {
                holder[0] = context.heldAcks();
            }

            @Override
            public void process(String in, Collector<? super String> out) {}
        });
        assertThat(chain).isNotNull();
        ctx.meta().ack(null);

        assertThatThrownBy(holder[0]::holdCurrent)
                .isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("outside process()");
    }

    @Test
    void twoStatefulStagesInARowHoldTheUpstreamEmissionUntilTheDownstreamOneEmits() {
        Chain chain = Chains.from(ctx, STRINGS)
                .process("first", new OneDeepBuffer())
                .process("second", new OneDeepBuffer())
                .sink(RowBinaryStrings.ENCODER, KeyHashRouter.byRecordKey());
        chain.open();
        AckRef a = batch(chain, "a1");
        AckRef b = batch(chain, "b1");
        AckRef c = batch(chain, "c1");
        handOff().succeedAcks(); // a1, emitted by the second stage while c1 was processed
        assertThat(posted()).containsExactly(a);

        chain.flush(); // first emits c1, second emits b1 and then c1
        handOff().succeedAcks();
        assertThat(posted()).containsExactly(b, c);
        assertThat(b.succeeded() && c.succeeded()).isTrue();
    }
}
