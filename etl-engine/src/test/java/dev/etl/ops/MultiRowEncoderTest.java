package dev.etl.ops;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.etl.deser.Deserializer;
import dev.etl.error.ErrorPolicy;
import dev.etl.error.FatalPipelineException;
import dev.etl.error.RecordException;
import dev.etl.internal.checkpoint.AckQueue;
import dev.etl.internal.checkpoint.AckRef;
import dev.etl.internal.sink.Chunk;
import dev.etl.internal.sink.ChunkOutbox;
import dev.etl.record.RecordMeta;
import dev.etl.sink.KeyHashRouter;
import dev.etl.sink.MultiRowEncoder;
import dev.etl.sink.RowBuffer;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/** The sink stage with an encoder that writes any number of rows per value. */
class MultiRowEncoderTest {
    private static final Deserializer<String> STRINGS = (key, value, meta, out) -> out.collect(value.toUtf8String());

    /**
     * "abc" → rows "a", "b", "c"; "" → no row; a value containing '!' fails at that character, after
     * writing the rows before it.
     */
    private static final MultiRowEncoder<String> CHARACTERS = new MultiRowEncoder<>() {
        @Override
        public int encodeRows(String value, RecordMeta meta, RowBuffer out) {
            for (int i = 0; i < value.length(); i++) {
                if (value.charAt(i) == '!') {
                    throw new IllegalArgumentException("bad character at " + i);
                }
                out.writeString(value.substring(i, i + 1));
            }
            return value.length();
        }

        @Override
        public String toString() {
            return "CHARACTERS";
        }
    };

    private final TestChainContext ctx = new TestChainContext();
    private final AckQueue acks = new AckQueue();
    private final AckRef ack = new AckRef(0, 1, 7, acks);
    private final RecordingChunkSink sink = new RecordingChunkSink(1);
    private ChunkOutbox outbox;

    @BeforeEach
    void laneHoldsTheBatchAck() {
        outbox = ctx.addSink("main", sink);
        ctx.meta().ack(ack);
    }

    private Chain chain() {
        return Chains.from(ctx, STRINGS).sink(CHARACTERS, KeyHashRouter.byRecordKey());
    }

    private List<AckRef> drained() {
        List<AckRef> posted = new ArrayList<>();
        acks.drain(posted::add);
        return posted;
    }

    @Test
    void everyRowOfAValueIsCountedAndTheAckIsHeldOnce() {
        chain().onBatch(TestPartitionBatch.of("abc", "de"));

        Chunk chunk = outbox.chunk(0);
        assertThat(chunk.rowCount()).isEqualTo(5);
        assertThat(chunk.ackCount()).isEqualTo(1);
        assertThat(ack.refCount()).as("lane hold + the chunk").isEqualTo(2);
        assertThat(RowBinaryStrings.decode(chunk)).containsExactly("a", "b", "c", "d", "e");
    }

    @Test
    void aValueWithoutRowsHoldsNoAckAndIsAcknowledgedWithTheBatch() {
        chain().onBatch(TestPartitionBatch.of("", ""));

        assertThat(ack.refCount()).as("only the lane's hold").isEqualTo(1);
        assertThat(outbox.flush()).isTrue();
        assertThat(sink.handedOff()).isEmpty();
        ack.release(true);
        assertThat(drained())
                .singleElement()
                .satisfies(posted -> assertThat(posted.succeeded()).isTrue());
    }

    @Test
    void aFailureCutsEveryRowOfTheValueAndTheSkipPolicyKeepsTheOthers() {
        ctx.override("sink-main", ErrorPolicy.SKIP);

        chain().onBatch(TestPartitionBatch.of("ab", "cd!e", "f"));

        Chunk chunk = outbox.chunk(0);
        assertThat(RowBinaryStrings.decode(chunk)).containsExactly("a", "b", "f");
        assertThat(chunk.rowCount()).isEqualTo(3);
        assertThat(ctx.skipped()).extracting(RecordException::stage).containsExactly("sink-main");
    }

    @Test
    void aFailureFailsThePipelineByDefaultWithTheValueCutOut() {
        Chain chain = chain();
        assertThatThrownBy(() -> chain.onBatch(TestPartitionBatch.of("ab", "c!")))
                .isInstanceOf(FatalPipelineException.class)
                .hasMessageContaining("bad character at 1");
        assertThat(RowBinaryStrings.decode(outbox.chunk(0))).containsExactly("a", "b");
    }

    @Test
    void zeroRowsWithBytesWrittenIsAnEncoderBugThatFailsThePipeline() {
        MultiRowEncoder<String> liar = (value, meta, out) -> {
            out.writeString(value);
            return 0;
        };
        Chain chain = Chains.from(ctx, STRINGS).sink(liar, KeyHashRouter.byRecordKey());

        assertThatThrownBy(() -> chain.onBatch(TestPartitionBatch.of("x")))
                .isInstanceOf(FatalPipelineException.class)
                .hasMessageContaining("returned 0 rows but wrote bytes");
        assertThat(outbox.chunk(0).rows().length()).isZero();
    }

    @Test
    void encodeOfASingleRowRefusesAnotherCount() {
        RowBuffer out = new RowBuffer(16);
        assertThatThrownBy(() -> CHARACTERS.encode("ab", null, out))
                .isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("wrote 2 rows");
    }
}
