package dev.etl.ops;

import static org.assertj.core.api.Assertions.assertThat;

import dev.etl.deser.Deserializer;
import dev.etl.internal.checkpoint.AckQueue;
import dev.etl.internal.checkpoint.AckRef;
import dev.etl.internal.sink.ChunkOutbox;
import dev.etl.sink.ChunkConfig;
import dev.etl.sink.KeyHashRouter;
import dev.etl.sink.Router;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

class SinkHandOffTest {
    private static final Deserializer<String> STRINGS = (key, value, meta, out) -> out.collect(value.toUtf8String());

    private final TestChainContext ctx = new TestChainContext();
    private final RecordingChunkSink sink = new RecordingChunkSink(2);
    private final AckRef ack = new AckRef(0, 1, 1, new AckQueue());
    private ChunkOutbox outbox;

    @BeforeEach
    void laneHoldsAnAck() {
        outbox = ctx.addSink("main", sink);
        ctx.meta().ack(ack);
    }

    @Test
    void aChunkIsHandedOffWhenItReachesMaxRows() {
        outbox = ctx.addSink("main", sink, new ChunkConfig(3, 1 << 20));
        Chain chain = Chains.from(ctx, STRINGS).sink(RowBinaryStrings.ENCODER, (value, meta, shards) -> 0);

        chain.onBatch(TestPartitionBatch.of("1", "2", "3", "4", "5", "6", "7"));

        assertThat(sink.handedOff()).hasSize(2);
        assertThat(RowBinaryStrings.decode(sink.handedOff().get(0))).containsExactly("1", "2", "3");
        assertThat(RowBinaryStrings.decode(sink.handedOff().get(1))).containsExactly("4", "5", "6");
        assertThat(RowBinaryStrings.decode(outbox.chunk(0))).containsExactly("7");
        assertThat(ack.refCount()).as("lane hold + three chunks").isEqualTo(4);
    }

    @Test
    void aChunkIsHandedOffWhenItReachesMaxBytes() {
        outbox = ctx.addSink("main", sink, new ChunkConfig(1000, 6));
        Chain chain = Chains.from(ctx, STRINGS).sink(RowBinaryStrings.ENCODER, (value, meta, shards) -> 0);

        chain.onBatch(TestPartitionBatch.of("ab", "cd", "ef"));

        assertThat(sink.handedOff())
                .singleElement()
                .satisfies(chunk -> assertThat(RowBinaryStrings.decode(chunk)).containsExactly("ab", "cd"));
    }

    @Test
    void aRefusedChunkStaysPendingAndKeepsReceivingRows() {
        outbox = ctx.addSink("main", sink, new ChunkConfig(2, 1 << 20));
        sink.refuse(true);
        Chain chain = Chains.from(ctx, STRINGS).sink(RowBinaryStrings.ENCODER, (value, meta, shards) -> 0);

        chain.onBatch(TestPartitionBatch.of("1", "2", "3", "4", "5"));

        assertThat(sink.handedOff()).isEmpty();
        assertThat(outbox.hasPending()).isTrue();
        assertThat(RowBinaryStrings.decode(outbox.chunk(0))).containsExactly("1", "2", "3", "4", "5");

        sink.refuse(false);
        assertThat(outbox.flush()).isTrue();
        assertThat(sink.handedOff())
                .singleElement()
                .satisfies(chunk -> assertThat(chunk.rowCount()).isEqualTo(5));
    }

    @Test
    void rowsGoToTheShardTheRouterPicks() {
        Router<Object> byParity = (value, meta, shards) -> Integer.parseInt(value.toString()) % shards;
        Chain chain = Chains.from(ctx, STRINGS).sink(RowBinaryStrings.ENCODER, byParity);

        chain.onBatch(TestPartitionBatch.of("1", "2", "3", "4"));

        assertThat(RowBinaryStrings.decode(outbox.chunk(0))).containsExactly("2", "4");
        assertThat(RowBinaryStrings.decode(outbox.chunk(1))).containsExactly("1", "3");
        assertThat(ack.refCount()).as("lane hold + one per shard chunk").isEqualTo(3);
    }

    @Test
    void keyHashRouterRoutesOnTheRecordKeySetByTheHead() {
        Chain chain = Chains.from(ctx, STRINGS).sink(RowBinaryStrings.ENCODER, KeyHashRouter.byRecordKey());
        byte[][] keys = {"k1".getBytes(), "k1".getBytes()};
        byte[][] values = {"a".getBytes(), "b".getBytes()};

        chain.onBatch(new TestPartitionBatch(0, 0, keys, values));

        int shard = KeyHashRouter.byRecordKey().shard(null, ctx.meta(), 2);
        assertThat(RowBinaryStrings.decode(outbox.chunk(shard))).containsExactly("a", "b");
        assertThat(outbox.chunk(1 - shard).isEmpty()).isTrue();
    }
}
