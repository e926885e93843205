package dev.etl.pipeline;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.etl.error.ErrorClass;
import dev.etl.error.ErrorPolicy;
import dev.etl.error.SkipBudget;
import java.time.Duration;
import java.util.HashMap;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** The builder is the one way in: it checks in {@code build()}, and {@code toBuilder()} copies every setting. */
class PipelineConfigBuilderTest {

    private static PipelineConfig.Builder custom() {
        return PipelineConfig.builder("orders")
                .lanes(3)
                .ioThreads(2)
                .checkpointInterval(Duration.ofSeconds(1))
                .drainTimeout(Duration.ofSeconds(7))
                .stalledFailAfter(Duration.ZERO)
                .maxInFlightBytes(1L << 20)
                .pauseAbove(0.8)
                .resumeBelow(0.4)
                .minPause(Duration.ofMillis(5))
                .pollTimeout(Duration.ofMillis(20))
                .stagePolicies(Map.of("map", ErrorPolicy.SKIP))
                .classPolicies(Map.of(ErrorClass.DESERIALIZATION, ErrorPolicy.DEAD_LETTER))
                .skipBudget(SkipBudget.DISABLED);
    }

    @Test
    void toBuilderCopiesEverySetting() {
        PipelineConfig config = custom().build();
        assertThat(config.toBuilder().build()).isEqualTo(config).hasSameHashCodeAs(config);
        assertThat(config.toBuilder().build().toString())
                .isEqualTo(config.toString())
                .startsWith("PipelineConfig[name=orders, lanes=3, ioThreads=2, ")
                .endsWith(", skipBudget=" + SkipBudget.DISABLED + "]");

        PipelineConfig changed = config.toBuilder().lanes(4).build();
        assertThat(changed).isNotEqualTo(config);
        assertThat(changed.lanes()).isEqualTo(4);
        assertThat(changed.toBuilder().lanes(3).build()).isEqualTo(config);
    }

    @Test
    void buildChecksTheSettingsAndCopiesThePolicyMaps() {
        assertThatThrownBy(() -> custom().lanes(0).build())
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("lanes");
        assertThatThrownBy(() -> custom().resumeBelow(0.9).build())
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("resume-below");
        assertThatThrownBy(() -> PipelineConfig.builder(" ").build())
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("blank");

        Map<String, ErrorPolicy> stages = new HashMap<>(Map.of("map", ErrorPolicy.SKIP));
        PipelineConfig config = custom().stagePolicies(stages).build();
        stages.put("filter", ErrorPolicy.FAIL);
        assertThat(config.stagePolicies()).containsOnlyKeys("map");
    }
}
