/** The {@code @EtlPipelineTest} slice and {@code @AutoConfigureEtlPipeline}, for Spring Boot tests of a pipeline. Public API. */
@NullMarked
package dev.etl.test.autoconfigure;

import org.jspecify.annotations.NullMarked;
