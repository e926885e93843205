package dev.etl.ops;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.etl.error.FatalPipelineException;
import dev.etl.source.PartitionBatch;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import org.junit.jupiter.api.Test;

class TopicRoutingChainTest {
    private final TestChainContext context =
            new TestChainContext().topic(0, "orders").topic(1, "payments").topic(2, "refunds");
    private final List<String> seen = new ArrayList<>();

    private ChainFactory recording(String name) {
        return ctx -> new Chain() {
            @Override
            public void open() {
                seen.add(name + ":open");
            }

            @Override
            public void onBatch(PartitionBatch batch) {
                while (batch.next()) {
                    seen.add(name + ":" + new String(batch.value().toByteArray(), StandardCharsets.UTF_8));
                }
            }

            @Override
            public void close() {
                seen.add(name + ":close");
            }
        };
    }

    private static PartitionBatch batch(int partition, String value) {
        return new TestPartitionBatch(
                partition, 0, new byte[1][], new byte[][] {value.getBytes(StandardCharsets.UTF_8)});
    }

    @Test
    void batchesGoToTheFactoryNamingTheirTopicAndTheRestToTheCatchAll() {
        Chain chain = ChainFactory.routing(List.of(
                        ChainFactory.forTopics(Set.of("orders"), recording("o")),
                        ChainFactory.forTopics(Set.of("payments"), recording("p")),
                        recording("any")))
                .create(context);
        chain.open();
        chain.onBatch(batch(0, "a"));
        chain.onBatch(batch(1, "b"));
        chain.onBatch(batch(2, "c"));
        chain.onBatch(batch(0, "d"));
        chain.close();
        assertThat(seen)
                .containsExactly(
                        "o:open",
                        "p:open",
                        "any:open",
                        "o:a",
                        "p:b",
                        "any:c",
                        "o:d",
                        "any:close",
                        "p:close",
                        "o:close");
    }

    @Test
    void aTopicNobodyHandlesFailsThePipelineNamingIt() {
        Chain chain = ChainFactory.routing(List.of(
                        ChainFactory.forTopics(Set.of("orders"), recording("o")),
                        ChainFactory.forTopics(Set.of("payments"), recording("p"))))
                .create(context);
        assertThatThrownBy(() -> chain.onBatch(batch(2, "x")))
                .isInstanceOf(FatalPipelineException.class)
                .hasMessageContaining("refunds");
    }

    @Test
    void twoFactoriesClaimingOneTopicOrTwoCatchAllsAreRejected() {
        assertThatThrownBy(() -> ChainFactory.routing(List.of(
                        ChainFactory.forTopics(Set.of("orders"), recording("a")),
                        ChainFactory.forTopics(Set.of("orders"), recording("b")))))
                .hasMessageContaining("orders");
        assertThatThrownBy(() -> ChainFactory.routing(List.of(recording("a"), recording("b"))))
                .hasMessageContaining("every topic");
    }

    @Test
    void oneFactoryIsUsedAsIs() {
        ChainFactory only = recording("x");
        assertThat(ChainFactory.routing(List.of(only))).isSameAs(only);
    }
}
