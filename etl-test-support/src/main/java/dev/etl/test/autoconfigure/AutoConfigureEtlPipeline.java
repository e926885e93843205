package dev.etl.test.autoconfigure;

import java.lang.annotation.Documented;
import java.lang.annotation.ElementType;
import java.lang.annotation.Inherited;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;

import org.springframework.boot.autoconfigure.ImportAutoConfiguration;

/**
 * Imports the pipeline auto-configuration with the memory source and capture sink in place of the
 * connectors (the list is in
 * {@code META-INF/spring/dev.etl.test.autoconfigure.AutoConfigureEtlPipeline.imports}). Used by
 * {@link EtlPipelineTest @EtlPipelineTest}; put it on a {@code @SpringBootTest} to get the same doubles
 * in a fuller context.
 */
@Target(ElementType.TYPE)
@Retention(RetentionPolicy.RUNTIME)
@Documented
@Inherited
@ImportAutoConfiguration
public @interface AutoConfigureEtlPipeline {

}
