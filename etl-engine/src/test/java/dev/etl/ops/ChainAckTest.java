package dev.etl.ops;

import static org.assertj.core.api.Assertions.assertThat;

import dev.etl.deser.Deserializer;
import dev.etl.internal.checkpoint.AckQueue;
import dev.etl.internal.checkpoint.AckRef;
import dev.etl.internal.sink.Chunk;
import dev.etl.internal.sink.ChunkOutbox;
import dev.etl.sink.KeyHashRouter;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/** The chain acting on the ack chain of seed 000: the test plays the lane, the sink and the shard workers. */
class ChainAckTest {
    private static final Deserializer<String> STRINGS = (key, value, meta, out) -> out.collect(value.toUtf8String());

    private final TestChainContext ctx = new TestChainContext();
    private final AckQueue acks = new AckQueue();
    private final AckRef ack = new AckRef(0, 1, 7, acks);
    private final RecordingChunkSink mainSink = new RecordingChunkSink(1);
    private final RecordingChunkSink auditSink = new RecordingChunkSink(1);
    private ChunkOutbox main;
    private ChunkOutbox audit;

    @BeforeEach
    void laneHoldsTheBatchAck() {
        main = ctx.addSink("main", mainSink);
        audit = ctx.addSink("audit", auditSink);
        ctx.meta().ack(ack);
    }

    private List<AckRef> drained() {
        List<AckRef> posted = new ArrayList<>();
        acks.drain(posted::add);
        return posted;
    }

    @Test
    void aBatchFilteredOutEntirelyIsAcknowledgedAsSuccessWhenTheLaneReleasesItsHold() {
        Chain chain = Chains.from(ctx, STRINGS)
                .filter("none", s -> false)
                .sink(RowBinaryStrings.ENCODER, KeyHashRouter.byRecordKey());

        chain.onBatch(TestPartitionBatch.of("a", "b", "c"));
        assertThat(ack.refCount()).isEqualTo(1);
        assertThat(main.flush()).isTrue();
        ack.release(true);

        assertThat(mainSink.handedOff()).isEmpty();
        assertThat(drained()).singleElement().satisfies(posted -> {
            assertThat(posted).isSameAs(ack);
            assertThat(posted.succeeded()).isTrue();
        });
    }

    @Test
    void flatMapChildrenInOneChunkHoldTheAckOnce() {
        Chain chain = Chains.from(ctx, STRINGS)
                .<String>flatMap("triple", (s, out) -> {
                    out.collect(s + 1);
                    out.collect(s + 2);
                    out.collect(s + 3);
                })
                .sink(RowBinaryStrings.ENCODER, KeyHashRouter.byRecordKey());

        chain.onBatch(TestPartitionBatch.of("x"));

        assertThat(ack.refCount()).isEqualTo(2);
        Chunk chunk = main.chunk(0);
        assertThat(chunk.rowCount()).isEqualTo(3);
        assertThat(chunk.ackCount()).isEqualTo(1);
        assertThat(RowBinaryStrings.decode(chunk)).containsExactly("x1", "x2", "x3");
    }

    @Test
    void fanOutToTwoSinksPostsTheAckOnceWithTheWorstStatus() {
        Chain chain = Chains.from(ctx, STRINGS)
                .fanOut(
                        "both",
                        b -> b.sink("main", RowBinaryStrings.ENCODER, KeyHashRouter.byRecordKey()),
                        b -> b.map("to-audit", s -> "audit:" + s)
                                .sink("audit", RowBinaryStrings.ENCODER, KeyHashRouter.byRecordKey()));

        chain.onBatch(TestPartitionBatch.of("a", "b"));
        assertThat(ack.refCount()).as("lane hold + one chunk per output").isEqualTo(3);
        main.flush();
        audit.flush();
        ack.release(true);

        Chunk written = mainSink.handedOff().get(0);
        Chunk failed = auditSink.handedOff().get(0);
        assertThat(RowBinaryStrings.decode(written)).containsExactly("a", "b");
        assertThat(RowBinaryStrings.decode(failed)).containsExactly("audit:a", "audit:b");

        written.succeedAcks();
        assertThat(drained()).as("still held by the audit chunk").isEmpty();
        failed.failAcks();

        assertThat(drained())
                .singleElement()
                .satisfies(posted -> assertThat(posted.succeeded()).isFalse());
    }

    @Test
    void fanOutAcknowledgesSuccessOnlyWhenEveryOutputWrote() {
        Chain chain = Chains.from(ctx, STRINGS)
                .fanOut(
                        b -> b.sink("main", RowBinaryStrings.ENCODER, KeyHashRouter.byRecordKey()),
                        b -> b.filter("some", s -> s.equals("b"))
                                .sink("audit", RowBinaryStrings.ENCODER, KeyHashRouter.byRecordKey()));

        chain.onBatch(TestPartitionBatch.of("a", "b"));
        main.flush();
        audit.flush();
        ack.release(true);
        auditSink.handedOff().get(0).succeedAcks();
        assertThat(drained()).isEmpty();
        mainSink.handedOff().get(0).succeedAcks();

        assertThat(drained())
                .singleElement()
                .satisfies(posted -> assertThat(posted.succeeded()).isTrue());
    }

    @Test
    void nestedFanOutReachesEveryLeafInDeclarationOrder() {
        List<String> order = new ArrayList<>();
        Chain chain = Chains.from(ctx, STRINGS)
                .fanOut(
                        b -> b.peek(s -> order.add("first"))
                                .fanOut(
                                        c -> c.peek(s -> order.add("first.1"))
                                                .sink("main", RowBinaryStrings.ENCODER, KeyHashRouter.byRecordKey()),
                                        c -> c.peek(s -> order.add("first.2"))
                                                .sink("audit", RowBinaryStrings.ENCODER, KeyHashRouter.byRecordKey())),
                        b -> b.peek(s -> order.add("second"))
                                .sink("audit", RowBinaryStrings.ENCODER, KeyHashRouter.byRecordKey()));

        chain.onBatch(TestPartitionBatch.of("v"));

        assertThat(order).containsExactly("first", "first.1", "first.2", "second");
        assertThat(RowBinaryStrings.decode(audit.chunk(0))).containsExactly("v", "v");
        assertThat(audit.chunk(0).ackCount())
                .as("both branches share the audit chunk")
                .isEqualTo(1);
    }
}
