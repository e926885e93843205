package dev.etl.sink;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.etl.error.ErrorPolicy;
import java.time.Duration;
import java.util.function.IntFunction;
import org.junit.jupiter.api.Test;

/** The builder is the one way in: defaults, checks in {@code build()}, and {@code toBuilder()} copies. */
class SinkDefinitionTest {

    private static final IntFunction<ShardWriter> WRITERS = shard -> batch -> {};

    @Test
    void aNewBuilderHasTheDefaults() {
        SinkDefinition sink = SinkDefinition.builder("s", 2, WRITERS).build();
        assertThat(sink.name()).isEqualTo("s");
        assertThat(sink.shardCount()).isEqualTo(2);
        assertThat(sink.writers()).isSameAs(WRITERS);
        assertThat(sink.encoder()).isNull();
        assertThat(sink.chunks()).isEqualTo(ChunkConfig.DEFAULTS);
        assertThat(sink.batch()).isEqualTo(BatchConfig.DEFAULTS);
        assertThat(sink.retry()).isEqualTo(RetryConfig.DEFAULTS);
        assertThat(sink.queueCapacity()).isEqualTo(SinkDefinition.DEFAULT_QUEUE_CAPACITY);
        assertThat(sink.permanentFailure()).isEqualTo(ErrorPolicy.FAIL);
        assertThat(sink.deterministicBlocks()).isFalse();
    }

    @Test
    void toBuilderCopiesEverySettingAndChangesOnlyWhatItIsTold() {
        SinkDefinition sink = SinkDefinition.builder("s", 2, WRITERS)
                .chunks(new ChunkConfig(10, 1 << 10))
                .batch(new BatchConfig(100, 1 << 20, Duration.ofMillis(5)))
                .queueCapacity(8)
                .permanentFailure(ErrorPolicy.SKIP)
                .deterministicBlocks(true)
                .build();
        assertThat(sink.toBuilder().build()).isEqualTo(sink).hasSameHashCodeAs(sink);

        SinkDefinition changed = sink.toBuilder().queueCapacity(16).build();
        assertThat(changed.queueCapacity()).isEqualTo(16);
        assertThat(changed.toBuilder().queueCapacity(8).build()).isEqualTo(sink);
    }

    @Test
    void buildChecksTheSettings() {
        assertThatThrownBy(() -> SinkDefinition.builder("s", 0, WRITERS).build())
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("at least one shard");
        assertThatThrownBy(() ->
                        SinkDefinition.builder("s", 1, WRITERS).queueCapacity(6).build())
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("power of two");
        assertThatThrownBy(() -> SinkDefinition.builder("s", 1, null).build())
                .isInstanceOf(NullPointerException.class)
                .hasMessageContaining("writers");
    }
}
