package dev.etl.ops;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.etl.deser.Deserializer;
import dev.etl.error.FatalPipelineException;
import dev.etl.record.Collector;
import dev.etl.sink.KeyHashRouter;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

class ChainLifecycleTest {
    private final TestChainContext ctx = new TestChainContext();
    private final List<String> events = new ArrayList<>();

    ChainLifecycleTest() {
        ctx.addSink("main", new RecordingChunkSink(1));
    }

    /** Records its hooks; throws from the hooks named in {@code failIn}. */
    private final class Hooked implements StatefulOperator<String, String> {
        private final String name;
        private final String failIn;

        Hooked(String name, String failIn) {
            this.name = name;
            this.failIn = failIn;
        }

        @Override
        public void open(OperatorContext context) {
            events.add("open " + name + " as " + context.stageName() + " on lane " + context.laneIndex());
            if (failIn.contains("open")) {
                throw new IllegalStateException("cannot open " + name);
            }
        }

        @Override
        public void process(String in, Collector<? super String> out) {
            out.collect(in);
        }

        @Override
        public void flush(Collector<? super String> out) {
            events.add("flush " + name);
        }

        @Override
        public void close() throws Exception {
            events.add("close " + name);
            if (failIn.contains("close")) {
                throw new java.io.IOException("cannot close " + name);
            }
        }
    }

    private Chain chain(String failA, String failB, String failC) {
        return Chains.from(ctx, Deserializer.bytes())
                .map(String::new)
                .process("a", new Hooked("a", failA))
                .fanOut(
                        b -> b.process("b", new Hooked("b", failB))
                                .sink(RowBinaryStrings.ENCODER, KeyHashRouter.byRecordKey()),
                        b -> b.process(new Hooked("c", failC))
                                .sink(RowBinaryStrings.ENCODER, KeyHashRouter.byRecordKey()));
    }

    @Test
    void statefulOperatorsOpenInChainOrderAndCloseInReverse() {
        Chain chain = chain("", "", "");

        chain.open();
        chain.close();

        assertThat(events)
                .containsExactly(
                        "open a as a on lane 0",
                        "open b as b on lane 0",
                        "open c as process#6 on lane 0",
                        "close c",
                        "close b",
                        "close a");
    }

    @Test
    void flushRunsInChainOrderOnlyForOpenedOperators() {
        Chain chain = chain("", "", "");
        chain.flush();
        assertThat(events).as("nothing opened, nothing flushed").isEmpty();

        chain.open();
        events.clear();
        chain.flush();
        chain.close();
        chain.flush();

        assertThat(events).containsExactly("flush a", "flush b", "flush c", "close c", "close b", "close a");
    }

    @Test
    void closeRunsEveryHookWhenSomeThrow() {
        Chain chain = chain("close", "", "close");
        chain.open();

        assertThatThrownBy(chain::close)
                .isInstanceOf(FatalPipelineException.class)
                .hasMessageContaining("stage 'process#6' failed to close")
                .satisfies(e -> assertThat(e.getSuppressed())
                        .singleElement()
                        .satisfies(s -> assertThat(s).hasMessage("cannot close a")));
        assertThat(events).endsWith("close c", "close b", "close a");
    }

    @Test
    void aFailedOpenClosesOnlyTheOperatorsThatOpened() {
        Chain chain = chain("", "open", "");

        assertThatThrownBy(chain::open)
                .isInstanceOf(FatalPipelineException.class)
                .hasMessageContaining("stage 'b' failed to open");
        chain.close();

        assertThat(events).containsExactly("open a as a on lane 0", "open b as b on lane 0", "close a");
    }

    @Test
    void closingTwiceClosesOnce() {
        Chain chain = chain("", "", "");
        chain.open();
        chain.close();
        chain.close();

        assertThat(events).filteredOn(e -> e.startsWith("close")).hasSize(3);
    }
}
