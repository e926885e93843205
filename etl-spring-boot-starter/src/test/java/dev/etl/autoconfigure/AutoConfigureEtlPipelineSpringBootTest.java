package dev.etl.autoconfigure;

import static org.assertj.core.api.Assertions.assertThat;

import dev.etl.deser.Deserializer;
import dev.etl.ops.ChainFactory;
import dev.etl.ops.Chains;
import dev.etl.pipeline.PipelineRuntime;
import dev.etl.pipeline.PipelineState;
import dev.etl.test.autoconfigure.AutoConfigureEtlPipeline;
import dev.etl.test.capture.TestEncoders;
import dev.etl.test.memory.MemorySourceHandle;
import java.time.Duration;
import org.junit.jupiter.api.Test;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.SpringBootConfiguration;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.context.annotation.Bean;
import org.springframework.core.env.Environment;

/**
 * {@code @AutoConfigureEtlPipeline} on a {@code @SpringBootTest}: the slice's safety switches are
 * attributes mapped ahead of every property source, so an application whose configuration says
 * {@code exit-on-failure=true} (the default a real deployment wants) still cannot end the test JVM
 * when its pipeline fails. Before, those defaults lived in the {@code @EtlPipelineTest} bootstrapper and
 * this combination kept {@code exit-on-failure=true}: a failing pipeline called {@code System.exit}, and
 * the test JVM died with it.
 */
@SpringBootTest(
        classes = AutoConfigureEtlPipelineSpringBootTest.Application.class,
        properties = {
            "etl.pipeline.exit-on-failure=true",
            "etl.pipeline.close-on-failure=true",
            "etl.pipeline.handle-signals=true",
            "etl.checkpoint.interval=50ms",
            "etl.pipeline.poll-timeout=20ms"
        })
@AutoConfigureEtlPipeline
class AutoConfigureEtlPipelineSpringBootTest {

    @Autowired
    private Environment environment;

    @Autowired
    private PipelineRuntime runtime;

    @Autowired
    private MemorySourceHandle source;

    @Autowired
    private ConfigurableApplicationContext context;

    @Test
    void theAnnotationsSwitchesWinOverTheApplicationsConfiguration() {
        assertThat(this.environment.getProperty("etl.pipeline.exit-on-failure", Boolean.class))
                .isFalse();
        assertThat(this.environment.getProperty("etl.pipeline.close-on-failure", Boolean.class))
                .isFalse();
        assertThat(this.environment.getProperty("etl.pipeline.handle-signals", Boolean.class))
                .isFalse();
    }

    @Test
    void aFailingPipelineNeitherExitsTheTestJvmNorClosesTheContext() throws Exception {
        this.source.assign(0, 0);
        this.source.push(0, null, "bad".getBytes());
        long deadline = System.nanoTime() + Duration.ofSeconds(20).toNanos();
        while (this.runtime.state() != PipelineState.FAILED && System.nanoTime() < deadline) {
            Thread.sleep(10);
        }
        assertThat(this.runtime.state()).isEqualTo(PipelineState.FAILED);
        Thread.sleep(500); // an exit or a close would have happened by now
        assertThat(this.context.isActive())
                .as("the context stays open for the test to inspect")
                .isTrue();
    }

    @SpringBootConfiguration
    static class Application {

        /** Fails on a record that says "bad", under the default FAIL policy. */
        @Bean
        ChainFactory failing() {
            Deserializer<String> strict = (key, value, meta, out) -> {
                String text = value.toUtf8String();
                if (text.equals("bad")) {
                    throw new IllegalArgumentException("bad record");
                }
                out.collect(text);
            };
            return (ctx) -> Chains.from(ctx, strict).sink(TestEncoders.string(), (value, meta, shards) -> 0);
        }
    }
}
