package dev.etl.test.autoconfigure;

import java.lang.annotation.Documented;
import java.lang.annotation.ElementType;
import java.lang.annotation.Inherited;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;
import org.springframework.boot.autoconfigure.ImportAutoConfiguration;
import org.springframework.boot.test.context.PropertyMapping;

/**
 * Imports the pipeline auto-configuration with the memory source and capture sink in place of the
 * connectors (the list is in
 * {@code META-INF/spring/dev.etl.test.autoconfigure.AutoConfigureEtlPipeline.imports}). Used by
 * {@link EtlPipelineTest @EtlPipelineTest}; put it on a {@code @SpringBootTest} to get the same doubles
 * in a fuller context.
 *
 * <p>Its attributes are mapped onto {@code etl.pipeline.*} (Boot's {@link PropertyMapping}, ahead of
 * every other property source): by default a failed pipeline neither closes the context nor exits the
 * JVM, and the pipeline does not take over SIGTERM/SIGINT, so a test (including a
 * {@code @SpringBootTest} with this annotation) can assert on {@code FAILED} and can never end the test
 * JVM. Change them with the attributes, not with properties.
 */
@Target(ElementType.TYPE)
@Retention(RetentionPolicy.RUNTIME)
@Documented
@Inherited
@ImportAutoConfiguration
@PropertyMapping("etl.pipeline")
public @interface AutoConfigureEtlPipeline {

    /**
     * Whether a failed pipeline closes the application context ({@code etl.pipeline.close-on-failure}).
     * @return whether a failure closes the context
     */
    boolean closeOnFailure() default false;

    /**
     * Whether a failed pipeline exits the JVM with status 1 ({@code etl.pipeline.exit-on-failure}). Never
     * true in a test JVM you want to survive the test.
     * @return whether a failure exits the JVM
     */
    boolean exitOnFailure() default false;

    /**
     * Whether the pipeline handles SIGTERM and SIGINT itself ({@code etl.pipeline.handle-signals}).
     * @return whether the pipeline takes over the signals
     */
    boolean handleSignals() default false;
}
