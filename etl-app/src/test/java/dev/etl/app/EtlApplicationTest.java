package dev.etl.app;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The application in a child JVM with no configuration at all (no server is needed): it does not start a
 * pipeline that reads nothing, it exits non-zero and its one failure report says what to configure.
 */
class EtlApplicationTest {

    @Test
    void withoutConfigurationTheProcessExitsNonZeroSayingWhatToConfigure(@TempDir Path dir) throws Exception {
        Path log = dir.resolve("child.log");
        ProcessBuilder builder = new ProcessBuilder(List.of(
                        Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                        "-Xmx256m",
                        "-cp",
                        System.getProperty("java.class.path"),
                        EtlApplication.class.getName()))
                .redirectErrorStream(true)
                .redirectOutput(log.toFile());
        builder.environment().keySet().removeIf((k) -> k.startsWith("ETL_") || k.startsWith("SPRING_"));
        builder.environment().put("SPRING_MAIN_WEB_APPLICATION_TYPE", "none");
        Process child = builder.start();
        boolean ended = child.waitFor(120, TimeUnit.SECONDS);
        if (!ended) {
            child.destroyForcibly();
        }
        String output = Files.readString(log);
        assertThat(ended).as("the process ended by itself:%n%s", output).isTrue();
        assertThat(child.exitValue()).as(output).isNotZero();
        assertThat(output)
                .contains("APPLICATION FAILED TO START")
                .contains("etl.source.kafka.topics")
                .doesNotContain("Started EtlApplication");
    }
}
