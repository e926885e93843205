package dev.etl.autoconfigure;

import dev.etl.error.ErrorClass;
import dev.etl.error.ErrorPolicy;
import dev.etl.error.SkipBudget;
import dev.etl.pipeline.PipelineConfig;
import java.util.EnumMap;
import java.util.LinkedHashMap;
import java.util.Map;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.core.env.Environment;
import org.springframework.util.StringUtils;

/** Maps {@code etl.*} onto the engine's {@link PipelineConfig}. */
final class PipelineConfigMapping {

    static final String DEFAULT_NAME = "etl";

    private static final Logger LOG = LoggerFactory.getLogger(PipelineConfigMapping.class);

    private PipelineConfigMapping() {}

    /** The configured budget, or the heap-derived default (said once at startup, with the heap it came from). */
    private static long maxInFlightBytes(EtlProperties.Backpressure backpressure) {
        if (backpressure.getMaxInFlightBytes() != null) {
            return backpressure.getMaxInFlightBytes().toBytes();
        }
        long heap = Runtime.getRuntime().maxMemory();
        long budget = PipelineConfig.defaultMaxInFlightBytes(heap);
        LOG.info(
                "etl.backpressure.max-in-flight-bytes not set: {} MiB (a quarter of the {} MiB maximum heap, "
                        + "between 32 MiB and 1 GiB)",
                budget >> 20,
                heap == Long.MAX_VALUE ? "unlimited" : String.valueOf(heap >> 20));
        return budget;
    }

    static PipelineConfig.Builder builder(EtlProperties properties, Environment environment) {
        EtlProperties.Pipeline pipeline = properties.getPipeline();
        EtlProperties.Checkpoint checkpoint = properties.getCheckpoint();
        EtlProperties.Backpressure backpressure = properties.getBackpressure();
        Map<ErrorClass, ErrorPolicy> types = new EnumMap<>(ErrorClass.class);
        types.putAll(properties.getErrors().getTypes());
        return PipelineConfig.builder(name(properties, environment))
                .lanes(pipeline.getThreads())
                .ioThreads(pipeline.getIoThreads())
                .pollTimeout(pipeline.getPollTimeout())
                .checkpointInterval(checkpoint.getInterval())
                .drainTimeout(checkpoint.getDrainTimeout())
                .stalledFailAfter(checkpoint.getStalledFailAfter())
                .maxInFlightBytes(maxInFlightBytes(backpressure))
                .pauseAbove(backpressure.getPauseAbove())
                .resumeBelow(backpressure.getResumeBelow())
                .minPause(backpressure.getMinPause())
                .stagePolicies(new LinkedHashMap<>(properties.getErrors().getStages()))
                .classPolicies(types)
                .skipBudget(skipBudget(properties.getErrors().getSkipBudget()));
    }

    static SkipBudget skipBudget(EtlErrorsProperties.SkipBudget budget) {
        try {
            return new SkipBudget(budget.isEnabled(), budget.getMaxRatio(), budget.getWindow(), budget.getMinRecords());
        } catch (IllegalArgumentException e) {
            throw new IllegalArgumentException("etl.errors.skip-budget: " + e.getMessage(), e);
        }
    }

    static String name(EtlProperties properties, Environment environment) {
        String name = properties.getPipeline().getName();
        if (StringUtils.hasText(name)) {
            return name;
        }
        String application = environment.getProperty("spring.application.name");
        return StringUtils.hasText(application) ? application : DEFAULT_NAME;
    }
}
