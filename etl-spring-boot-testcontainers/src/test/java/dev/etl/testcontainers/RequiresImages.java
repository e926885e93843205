package dev.etl.testcontainers;

import java.lang.annotation.Documented;
import java.lang.annotation.ElementType;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * Skips the test class unless a Docker API answers and every named image can be had there: it is
 * present, or a pull of it succeeds. {@code @Testcontainers(disabledWithoutDocker = true)} only skips
 * without a Docker API; where one answers but no registry can be reached (this repository's CI:
 * {@code podman system service}, no network to Docker Hub), a test of an image that is not there would
 * fail on the pull instead of saying what is missing. The skip message names the image and why it
 * could not be had. Names go through Testcontainers' image name substitution first, as the containers'
 * names do (a registry mirror configured with {@code hub.image.name.prefix} is asked, not Docker Hub).
 */
@Target(ElementType.TYPE)
@Retention(RetentionPolicy.RUNTIME)
@Documented
@ExtendWith(ImagesAvailableCondition.class)
@interface RequiresImages {

    /** @return the images, as the containers name them ({@code clickhouse/clickhouse-server:24.8}) */
    String[] value();
}
