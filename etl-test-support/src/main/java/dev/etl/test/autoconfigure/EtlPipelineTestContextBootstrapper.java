package dev.etl.test.autoconfigure;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import org.springframework.boot.test.autoconfigure.TestSliceTestContextBootstrapper;

/**
 * Bootstraps {@link EtlPipelineTest @EtlPipelineTest}: the slice's fast timings first, then the
 * annotation's {@code properties} (later entries win). The safety switches (a failure neither closes
 * the context nor exits the JVM; signals are left to the test JVM) are not here but on
 * {@link AutoConfigureEtlPipeline}'s attributes, so they hold for a {@code @SpringBootTest} too.
 */
class EtlPipelineTestContextBootstrapper extends TestSliceTestContextBootstrapper<EtlPipelineTest> {

    static final List<String> DEFAULTS = List.of(
            "etl.checkpoint.interval=50ms",
            "etl.checkpoint.drain-timeout=5s",
            "etl.pipeline.poll-timeout=20ms",
            "etl.backpressure.min-pause=10ms");

    @Override
    protected String[] getProperties(Class<?> testClass) {
        String[] declared = super.getProperties(testClass);
        List<String> properties = new ArrayList<>(DEFAULTS);
        if (declared != null) {
            properties.addAll(Arrays.asList(declared));
        }
        return properties.toArray(new String[0]);
    }
}
