package dev.etl.test.infra;

import java.nio.file.Files;
import java.nio.file.Path;

/**
 * Where the local infrastructure lives on disk: the repository's {@code scripts/infra.sh} and the
 * state directory it writes {@code endpoints.properties} and server logs into.
 *
 * <p>The state directory is, in order: the system property {@code etl.infra.dir}, the environment
 * variable {@code ETL_INFRA_DIR}, or {@code <repo>/.infra}. The repository root is the nearest
 * directory, walking up from the working directory (or from the system property
 * {@code etl.repo.dir}), that contains {@code scripts/infra.sh}.
 *
 * @param repoRoot repository root, or {@code null} when no {@code scripts/infra.sh} was found
 * @param stateDir directory holding {@code endpoints.properties} and the servers' state and logs
 * @param fromOverride whether {@code stateDir} came from {@code etl.infra.dir} or
 * {@code ETL_INFRA_DIR} rather than the default
 */
record InfraDirectory(Path repoRoot, Path stateDir, boolean fromOverride) {

    static final String SCRIPT = "scripts/infra.sh";

    static InfraDirectory detect() {
        String repoProperty = System.getProperty("etl.repo.dir");
        Path start = Path.of(repoProperty != null ? repoProperty : System.getProperty("user.dir"))
                .toAbsolutePath()
                .normalize();
        Path repoRoot = findRepoRoot(start);
        String override = System.getProperty("etl.infra.dir");
        if (override == null || override.isBlank()) {
            override = System.getenv("ETL_INFRA_DIR");
        }
        if (override != null && !override.isBlank()) {
            return new InfraDirectory(
                    repoRoot, Path.of(override).toAbsolutePath().normalize(), true);
        }
        Path base = (repoRoot != null) ? repoRoot : start;
        return new InfraDirectory(repoRoot, base.resolve(".infra"), false);
    }

    static Path findRepoRoot(Path start) {
        for (Path dir = start; dir != null; dir = dir.getParent()) {
            if (Files.isRegularFile(dir.resolve(SCRIPT))) {
                return dir;
            }
        }
        return null;
    }

    Path endpointsFile() {
        return stateDir.resolve(InfraEndpoints.FILE_NAME);
    }

    Path script() {
        return (repoRoot != null) ? repoRoot.resolve(SCRIPT) : null;
    }
}
