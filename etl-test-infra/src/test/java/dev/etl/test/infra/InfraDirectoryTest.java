package dev.etl.test.infra;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class InfraDirectoryTest {

    @Test
    void repoRootIsTheNearestDirectoryAboveHoldingTheInfraScript(@TempDir Path dir) throws IOException {
        Files.createDirectories(dir.resolve("scripts"));
        Files.writeString(dir.resolve(InfraDirectory.SCRIPT), "#!/bin/sh\n");
        Path module = Files.createDirectories(dir.resolve("etl-test-support/target"));

        assertThat(InfraDirectory.findRepoRoot(module)).isEqualTo(dir);
    }

    @Test
    void noRepoRootWithoutTheScript(@TempDir Path dir) {
        assertThat(InfraDirectory.findRepoRoot(dir.resolve("a/b"))).isNull();
    }
}
