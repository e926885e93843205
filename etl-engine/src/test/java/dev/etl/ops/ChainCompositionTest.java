package dev.etl.ops;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.etl.deser.Deserializer;
import dev.etl.internal.checkpoint.AckQueue;
import dev.etl.internal.checkpoint.AckRef;
import dev.etl.internal.sink.ChunkOutbox;
import dev.etl.record.Collector;
import dev.etl.sink.KeyHashRouter;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

class ChainCompositionTest {
    private static final Deserializer<String> STRINGS = (key, value, meta, out) -> out.collect(value.toUtf8String());

    private final TestChainContext ctx = new TestChainContext();
    private final RecordingChunkSink sink = new RecordingChunkSink(1);
    private ChunkOutbox outbox;

    @BeforeEach
    void laneHoldsAnAck() {
        outbox = ctx.addSink("main", sink);
        ctx.meta().ack(new AckRef(0, 1, 1, new AckQueue()));
    }

    @Test
    void operatorsRunInDeclarationOrderAndProduceTheEncodedRows() {
        List<String> peeked = new ArrayList<>();
        Chain chain = Chains.from(ctx, STRINGS)
                .filter("not-skip", s -> !s.equals("skip"))
                .map("upper", String::toUpperCase)
                .<String>flatMap("repeat-by-length", (s, out) -> {
                    for (int i = 1; i <= s.length(); i++) {
                        out.collect(s + i);
                    }
                })
                .peek("observe", peeked::add)
                .process("number", new StatefulOperator<String, String>() {
                    private int seen;

                    @Override
                    public void process(String in, Collector<? super String> out) {
                        out.collect(++seen + ":" + in);
                    }
                })
                .sink(RowBinaryStrings.ENCODER, KeyHashRouter.byRecordKey());

        chain.open();
        chain.onBatch(TestPartitionBatch.of("a", "skip", "bb"));
        assertThat(outbox.flush()).isTrue();

        assertThat(peeked).containsExactly("A1", "BB1", "BB2");
        assertThat(sink.handedOff())
                .singleElement()
                .satisfies(
                        chunk -> assertThat(RowBinaryStrings.decode(chunk)).containsExactly("1:A1", "2:BB1", "3:BB2"))
                .satisfies(chunk -> assertThat(chunk.rowCount()).isEqualTo(3));
    }

    @Test
    void stagesSeeTheMetadataOfTheRecordTheyProcess() {
        List<String> positions = new ArrayList<>();
        Chain chain = Chains.from(ctx, STRINGS)
                .peek(s -> positions.add(ctx.meta().partition() + "@"
                        + ctx.meta().offset() + " ts=" + ctx.meta().timestampMs()))
                .sink("main", RowBinaryStrings.ENCODER, KeyHashRouter.byRecordKey());

        chain.onBatch(TestPartitionBatch.from(40, "x", "y"));

        assertThat(positions).containsExactly("0@40 ts=1000", "0@41 ts=1001");
        assertThat(sink.handedOff()).isEmpty();
    }

    @Test
    void unnamedOperatorsAreNamedByVerbAndDeclarationPosition() {
        Chains.from(ctx, STRINGS)
                .filter(s -> true)
                .map(s -> s)
                .tryMap("parse", s -> s, dev.etl.error.ErrorPolicy.SKIP)
                .flatMap((String s, Collector<? super String> out) -> out.collect(s))
                .peek(s -> {})
                .sink(RowBinaryStrings.ENCODER, KeyHashRouter.byRecordKey());

        assertThat(ctx.policyQueries())
                .containsExactly(
                        "sink-main/ENCODE/FAIL",
                        "peek#5/OPERATOR/FAIL",
                        "flatMap#4/OPERATOR/FAIL",
                        "parse/OPERATOR/SKIP",
                        "map#2/OPERATOR/FAIL",
                        "filter#1/OPERATOR/FAIL",
                        "deserialize/DESERIALIZATION/FAIL");
    }

    @Test
    void duplicateStageNamesAreRejected() {
        ChainBuilder<String> builder = Chains.from(ctx, STRINGS).map("clean", String::trim);

        assertThatThrownBy(() -> builder.filter("clean", s -> true))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("duplicate stage name 'clean'");
    }

    @Test
    void givenNamesCannotTakeTheDefaultNamePattern() {
        ChainBuilder<String> builder = Chains.from(ctx, STRINGS);

        assertThatThrownBy(() -> builder.map("map#2", String::trim))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("without '#'");
    }

    @Test
    void aBuilderContinuesWithOneStageOnly() {
        ChainBuilder<String> builder = Chains.from(ctx, STRINGS);
        builder.map(String::trim);

        assertThatThrownBy(() -> builder.filter(s -> true))
                .isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("fanOut");
    }

    @Test
    void buildersCannotBeExtendedAfterTheChainIsBuilt() {
        ChainBuilder<String> trimmed = Chains.from(ctx, STRINGS).map(String::trim);
        ChainBuilder<String> upper = trimmed.map(String::toUpperCase);
        upper.sink(RowBinaryStrings.ENCODER, KeyHashRouter.byRecordKey());

        assertThatThrownBy(() -> upper.peek(s -> {}))
                .isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("already built");
    }

    @Test
    void sinkingToAnUnknownSinkNamesTheKnownOnes() {
        assertThatThrownBy(() ->
                        Chains.from(ctx, STRINGS).sink("nope", RowBinaryStrings.ENCODER, KeyHashRouter.byRecordKey()))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("[main]");
    }

    @Test
    void aBranchMustReturnTheTerminalOfItsOwnBuilder() {
        Chain unrelated = Chains.from(new TestChainContextWithMain().ctx, STRINGS)
                .sink(RowBinaryStrings.ENCODER, KeyHashRouter.byRecordKey());

        assertThatThrownBy(() -> Chains.from(ctx, STRINGS).fanOut(b -> unrelated))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("branch 0 of fanOut 'fanOut#1'");
    }

    @Test
    void aBranchTerminalIsNotARunnableChain() {
        Chain[] branchEnd = new Chain[1];
        Chains.from(ctx, STRINGS)
                .fanOut(b -> branchEnd[0] = b.sink(RowBinaryStrings.ENCODER, KeyHashRouter.byRecordKey()));

        assertThatThrownBy(() -> branchEnd[0].onBatch(TestPartitionBatch.of("x")))
                .isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("not a chain");
    }

    /** A second, independent lane context. */
    private static final class TestChainContextWithMain {
        final TestChainContext ctx = new TestChainContext();

        TestChainContextWithMain() {
            ctx.addSink("main", new RecordingChunkSink(1));
        }
    }
}
