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
import org.springframework.boot.context.properties.PropertyMapper;
import org.springframework.core.env.Environment;
import org.springframework.util.StringUtils;

/** Maps {@code etl.*} onto the engine's {@link PipelineConfig}. */
final class PipelineConfigMapping {

    static final String DEFAULT_NAME = "etl";

    private static final Logger LOG = LoggerFactory.getLogger(PipelineConfigMapping.class);

    private PipelineConfigMapping() {}

    /** The configured budget, or the heap-derived default (said once at startup, with the heap it came from). */
    private static long maxInFlightBytes(EtlBackpressureProperties backpressure) {
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

    static PipelineConfig.Builder builder(
            EtlPipelineProperties pipeline,
            EtlCheckpointProperties checkpoint,
            EtlBackpressureProperties backpressure,
            EtlErrorsProperties errors,
            Environment environment) {
        PipelineConfig.Builder builder = PipelineConfig.builder(name(pipeline, environment));
        PropertyMapper map = PropertyMapper.get();
        map.from(pipeline::getThreads).to(builder::lanes);
        map.from(pipeline::getIoThreads).to(builder::ioThreads);
        map.from(pipeline::getPollTimeout).to(builder::pollTimeout);
        map.from(checkpoint::getInterval).to(builder::checkpointInterval);
        map.from(checkpoint::getDrainTimeout).to(builder::drainTimeout);
        map.from(checkpoint::getStalledFailAfter).to(builder::stalledFailAfter);
        map.from(maxInFlightBytes(backpressure)).to(builder::maxInFlightBytes);
        map.from(backpressure::getPauseAbove).to(builder::pauseAbove);
        map.from(backpressure::getResumeBelow).to(builder::resumeBelow);
        map.from(backpressure::getMinPause).to(builder::minPause);
        map.from(errors::getStages).as(LinkedHashMap::new).to(builder::stagePolicies);
        map.from(errors::getTypes).as(PipelineConfigMapping::byClass).to(builder::classPolicies);
        map.from(errors::getSkipBudget).as(PipelineConfigMapping::skipBudget).to(builder::skipBudget);
        return builder;
    }

    private static Map<ErrorClass, ErrorPolicy> byClass(Map<ErrorClass, ErrorPolicy> types) {
        Map<ErrorClass, ErrorPolicy> byClass = new EnumMap<>(ErrorClass.class);
        byClass.putAll(types);
        return byClass;
    }

    static SkipBudget skipBudget(EtlErrorsProperties.SkipBudget budget) {
        try {
            return new SkipBudget(budget.isEnabled(), budget.getMaxRatio(), budget.getWindow(), budget.getMinRecords());
        } catch (IllegalArgumentException e) {
            throw new IllegalArgumentException("etl.errors.skip-budget: " + e.getMessage(), e);
        }
    }

    static String name(EtlPipelineProperties pipeline, Environment environment) {
        String name = pipeline.getName();
        if (StringUtils.hasText(name)) {
            return name;
        }
        String application = environment.getProperty("spring.application.name");
        return StringUtils.hasText(application) ? application : DEFAULT_NAME;
    }
}
