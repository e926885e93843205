package dev.etl.pipeline;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

/** The heap-derived default of the in-flight byte budget. */
class PipelineConfigDefaultsTest {
    private static final long MIB = 1L << 20;

    @Test
    void theBudgetIsAQuarterOfTheHeapBetween32MiBAnd1GiB() {
        assertThat(PipelineConfig.defaultMaxInFlightBytes(1024 * MIB)).isEqualTo(256 * MIB);
        assertThat(PipelineConfig.defaultMaxInFlightBytes(2048 * MIB)).isEqualTo(512 * MIB);
        assertThat(PipelineConfig.defaultMaxInFlightBytes(256 * MIB)).isEqualTo(64 * MIB);
        assertThat(PipelineConfig.defaultMaxInFlightBytes(64 * MIB))
                .as("the floor")
                .isEqualTo(32 * MIB);
        assertThat(PipelineConfig.defaultMaxInFlightBytes(16L << 30))
                .as("the cap")
                .isEqualTo(1L << 30);
        assertThat(PipelineConfig.defaultMaxInFlightBytes(Long.MAX_VALUE))
                .as("no heap limit reported")
                .isEqualTo(1L << 30);
    }

    @Test
    void aBuilderWithoutABudgetTakesThisJvmsDefault() {
        assertThat(PipelineConfig.builder("orders").build().maxInFlightBytes())
                .isEqualTo(PipelineConfig.defaultMaxInFlightBytes(
                        Runtime.getRuntime().maxMemory()))
                .isEqualTo(PipelineConfig.defaultMaxInFlightBytes());
        assertThat(PipelineConfig.builder("orders")
                        .maxInFlightBytes(8 * MIB)
                        .build()
                        .maxInFlightBytes())
                .isEqualTo(8 * MIB);
    }
}
