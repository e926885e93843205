package dev.etl.autoconfigure.s3;

import java.util.Map;
import org.springframework.boot.EnvironmentPostProcessor;
import org.springframework.boot.SpringApplication;
import org.springframework.core.Ordered;
import org.springframework.core.env.ConfigurableEnvironment;
import org.springframework.core.env.MapPropertySource;

/**
 * Mode {@code plan} ({@code etl.source.s3.mode=plan}) is a command, not a pipeline: turns the pipeline off
 * ({@code etl.pipeline.enabled=false}) and the web server too ({@code spring.main.web-application-type=none}),
 * so the application writes the work list (the planner runs as an {@code ApplicationRunner}) and ends:
 * exit status 0 when the list was written (or already present), 1 when planning failed.
 */
class BackfillPlanModePostProcessor implements EnvironmentPostProcessor, Ordered {

    @Override
    public void postProcessEnvironment(ConfigurableEnvironment environment, SpringApplication application) {
        String mode = environment.getProperty("etl.source.s3.mode");
        if (mode != null && mode.trim().equalsIgnoreCase("plan")) {
            environment
                    .getPropertySources()
                    .addFirst(new MapPropertySource(
                            "etl-backfill-plan-mode",
                            Map.of("etl.pipeline.enabled", "false", "spring.main.web-application-type", "none")));
        }
    }

    @Override
    public int getOrder() {
        // after the config data (application.yml, profiles) is loaded
        return Ordered.LOWEST_PRECEDENCE;
    }
}
