package dev.etl.fuzz;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HexFormat;
import java.util.Map;

/**
 * The seed corpus of a fuzz target: a few valid inputs, made by code (so they follow the schemas and
 * formats as they change) and kept in the tree where Jazzer reads a target's inputs,
 * {@code src/test/resources/<package>/<Class>Inputs/<method>/seed-*}: regression mode runs them on every
 * build, fuzzing mode starts from them. {@link #check} fails when the files differ from what the code
 * makes; {@code -Detl.fuzz.writeSeeds=true} rewrites them (crash files found by fuzzing, named
 * {@code crash-*} or {@code timeout-*}, are left alone).
 */
public final class Corpus {
    private static final boolean WRITE = Boolean.getBoolean("etl.fuzz.writeSeeds");

    private Corpus() {}

    /** The source directory of a target method's inputs, relative to the module. */
    public static Path inputs(Class<?> target, String method) {
        return Path.of("src/test/resources")
                .resolve(target.getPackageName().replace('.', '/'))
                .resolve(target.getSimpleName() + "Inputs")
                .resolve(method);
    }

    /** Checks (or with {@code -Detl.fuzz.writeSeeds=true} writes) the seeds of one target method. */
    public static void check(Class<?> target, String method, Map<String, byte[]> seeds) {
        Path dir = inputs(target, method);
        assertThat(seeds).as("seeds of %s", dir).isNotEmpty();
        try {
            if (WRITE) {
                Files.createDirectories(dir);
                try (var old = Files.list(dir)) {
                    for (Path p : (Iterable<Path>) old::iterator) {
                        if (p.getFileName().toString().startsWith("seed-")) {
                            Files.delete(p);
                        }
                    }
                }
                for (Map.Entry<String, byte[]> seed : seeds.entrySet()) {
                    Files.write(dir.resolve("seed-" + seed.getKey()), seed.getValue());
                }
                return;
            }
            for (Map.Entry<String, byte[]> seed : seeds.entrySet()) {
                Path file = dir.resolve("seed-" + seed.getKey());
                assertThat(file)
                        .as("seed file (rewrite the seeds with -Detl.fuzz.writeSeeds=true)")
                        .exists();
                byte[] actual = Files.readAllBytes(file);
                if (!java.util.Arrays.equals(actual, seed.getValue())) {
                    throw new AssertionError(file + " is not what the seed code makes (rewrite the seeds with "
                            + "-Detl.fuzz.writeSeeds=true): expected "
                            + HexFormat.of().formatHex(seed.getValue()));
                }
            }
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }
}
