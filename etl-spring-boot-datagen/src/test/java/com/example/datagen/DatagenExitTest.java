package com.example.datagen;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A bounded datagen run in a real Spring Boot process ends by itself: with the default
 * {@code etl.source.datagen.when-done=exit} the JVM exits 0 once every record is written and committed,
 * without a broker (the Kafka source is configured too, and backs off).
 */
class DatagenExitTest {

    @TempDir
    Path dir;

    @Test
    void aBoundedRunEndsTheProcessWithExitCodeZeroOnceEverythingIsCommitted() throws Exception {
        Path log = this.dir.resolve("child.log");
        Process child = start(
                log,
                "--etl.source.datagen.records=20000",
                "--etl.source.datagen.partitions=4",
                "--etl.pipeline.threads=2",
                "--etl.checkpoint.interval=50ms",
                "--etl.source.kafka.topics=orders",
                "--spring.kafka.bootstrap-servers=127.0.0.1:1");
        boolean ended = child.waitFor(120, TimeUnit.SECONDS);
        if (!ended) {
            child.destroyForcibly();
        }
        String output = Files.readString(log);
        assertThat(ended).as("the process ended by itself:%n%s", output).isTrue();
        assertThat(child.exitValue()).as(output).isZero();
        assertThat(output)
                .contains("all 20000 records of 4 partitions written and committed")
                .contains("exiting the JVM with status 0")
                .contains("rows written: 20000")
                .contains("the Kafka source (etl.source.kafka.topics=[orders]) is not used");
    }

    private static Process start(Path log, String... args) throws IOException {
        List<String> command = new ArrayList<>(List.of(
                Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                "-Xmx256m",
                "-cp",
                System.getProperty("java.class.path"),
                DatagenDemoApplication.class.getName(),
                "--spring.main.web-application-type=none",
                "--etl.pipeline.name=datagen-demo"));
        command.addAll(List.of(args));
        return new ProcessBuilder(command)
                .redirectErrorStream(true)
                .redirectOutput(log.toFile())
                .start();
    }
}
