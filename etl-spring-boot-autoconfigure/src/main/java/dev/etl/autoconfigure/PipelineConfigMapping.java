package dev.etl.autoconfigure;

import dev.etl.error.ErrorClass;
import dev.etl.error.ErrorPolicy;
import dev.etl.error.SkipBudget;
import dev.etl.pipeline.PipelineConfig;
import java.util.EnumMap;
import java.util.LinkedHashMap;
import java.util.Map;
import org.springframework.core.env.Environment;
import org.springframework.util.StringUtils;

/** Maps {@code etl.*} onto the engine's {@link PipelineConfig}. */
final class PipelineConfigMapping {

    static final String DEFAULT_NAME = "etl";

    private PipelineConfigMapping() {}

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
                .maxInFlightBytes(backpressure.getMaxInFlightBytes().toBytes())
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
