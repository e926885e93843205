package dev.etl.test.infra;

import java.io.File;
import java.io.IOException;
import java.nio.channels.FileChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.EnumMap;
import java.util.EnumSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The local servers as seen from this JVM: finds their endpoints, checks that they answer, and runs
 * {@code scripts/infra.sh start <server>} for the ones that do not.
 *
 * <p>One instance per JVM ({@link #get()}). Each server is started at most once per JVM: a failed
 * start is remembered and reported again to every later test class without re-running the script.
 * Starting is also serialized across JVMs (Failsafe forks one per module) by a file lock in the
 * state directory, and each JVM re-probes after taking the lock, so a server another JVM just
 * started is not started twice. Servers that were already running are never stopped; servers this
 * JVM started are left running for the next build ({@code .ci/run} or
 * {@code scripts/infra.sh stop all} stops them).
 *
 * <p>Thread-safe: {@link #ensureRunning(Set)} is serialized by a lock.
 */
final class LocalInfrastructure implements AutoCloseable {

    private static final Logger logger = LoggerFactory.getLogger(LocalInfrastructure.class);

    private static final LocalInfrastructure INSTANCE = new LocalInfrastructure(InfraDirectory.detect());

    private static final String ATTEMPT_MARKER = "=== ";

    /** How long the servers may take to answer after the script returned. */
    private static final Duration READY_TIMEOUT = Duration.ofSeconds(60);

    private final Object lock = new Object();
    private final InfraDirectory directory;
    private final InfraProbe probe = new InfraProbe();
    private final Duration startTimeout;

    /** Servers seen answering in this JVM; not probed again. Guarded by {@link #lock}. */
    private final Set<InfraServer> verified = EnumSet.noneOf(InfraServer.class);

    /** Start attempts made by this JVM and their failure, {@code null} on success. Guarded by {@link #lock}. */
    private final Map<InfraServer, InfraUnavailableException> started = new EnumMap<>(InfraServer.class);

    private InfraEndpoints endpoints;

    /** What the last probe found wrong, per server. Guarded by {@link #lock}. */
    private final Map<InfraServer, String> problems = new EnumMap<>(InfraServer.class);

    /** Why the last read of {@code endpoints.properties} failed, or {@code null}. */
    private String endpointsProblem;

    LocalInfrastructure(InfraDirectory directory) {
        this.directory = directory;
        this.startTimeout = Duration.ofSeconds(Long.getLong("etl.infra.start-timeout-seconds", 300));
    }

    /**
     * Returns this JVM's instance.
     */
    static LocalInfrastructure get() {
        return INSTANCE;
    }

    /**
     * Makes sure the given servers answer, starting the ones that do not.
     * @param servers the servers a test needs
     * @return the endpoints of all servers
     * @throws InfraUnavailableException if a server does not answer and could not be started
     */
    InfraEndpoints ensureRunning(Set<InfraServer> servers) {
        synchronized (lock) {
            if (endpoints != null && verified.containsAll(servers)) {
                return endpoints;
            }
            EnumSet<InfraServer> down = probe(servers);
            if (down.isEmpty()) {
                return endpoints;
            }
            try {
                Files.createDirectories(directory.stateDir());
            } catch (IOException ex) {
                throw new InfraUnavailableException(
                        down.iterator().next(),
                        "cannot create the infrastructure directory " + directory.stateDir() + ": " + ex,
                        ex);
            }
            try (FileChannel channel = FileChannel.open(
                    directory.stateDir().resolve(".junit-start.lock"),
                    StandardOpenOption.CREATE,
                    StandardOpenOption.WRITE)) {
                channel.lock(); // released when the channel closes
                down = probe(servers);
                if (down.isEmpty()) {
                    return endpoints; // another JVM started them while we waited for the lock
                }
                logger.info(
                        "Not answering: {} ({}); starting with {}",
                        down,
                        (endpoints == null) ? endpointsProblem : String.join("; ", problems.values()),
                        InfraDirectory.SCRIPT);
                if (down.containsAll(InfraServer.DEFAULTS)) {
                    // one call lets the script start the servers in parallel (S3 too: it is quick)
                    start(down, "all");
                } else {
                    for (InfraServer server : down) {
                        start(EnumSet.of(server), server.scriptName());
                    }
                }
                awaitReady(down);
            } catch (IOException ex) {
                throw new InfraUnavailableException(
                        down.iterator().next(),
                        "cannot lock " + directory.stateDir().resolve(".junit-start.lock") + ": " + ex,
                        ex);
            }
            return endpoints;
        }
    }

    /** Probes the servers not yet verified; returns those that do not answer, in start order. */
    private EnumSet<InfraServer> probe(Set<InfraServer> servers) {
        EnumSet<InfraServer> down = EnumSet.noneOf(InfraServer.class);
        problems.clear();
        endpoints = loadEndpoints();
        for (InfraServer server : servers) {
            if (endpoints == null) {
                down.add(server);
            } else if (!verified.contains(server)) {
                String problem = probe.problem(server, endpoints);
                if (problem == null) {
                    verified.add(server);
                } else {
                    problems.put(server, problem);
                    down.add(server);
                }
            }
        }
        return down;
    }

    /** Reads the endpoints file; {@code null} when it is missing or unreadable (it may be half written). */
    private InfraEndpoints loadEndpoints() {
        Path file = directory.endpointsFile();
        try {
            InfraEndpoints loaded = InfraEndpoints.load(file);
            endpointsProblem = null;
            return loaded;
        } catch (NoSuchFileException ex) {
            endpointsProblem = "there is no " + file;
        } catch (IOException | IllegalArgumentException ex) {
            endpointsProblem = "cannot read " + file + ": " + ex.getMessage();
        }
        return null;
    }

    /**
     * Runs {@code scripts/infra.sh start <target>} unless this JVM already did for these servers.
     * @param servers the servers the call starts
     * @param target the script's target, a server name or {@code all}
     */
    private void start(Set<InfraServer> servers, String target) {
        for (InfraServer server : servers) {
            InfraUnavailableException previous = started.get(server);
            if (previous != null) {
                throw new InfraUnavailableException(
                        server, previous.getMessage() + " (failed earlier in this JVM;" + " not retried)", previous);
            }
        }
        if (started.keySet().containsAll(servers)) {
            return; // started earlier in this JVM; awaitReady reports a server that has died since
        }
        Path script = directory.script();
        if (script == null) {
            throw failure(
                    servers,
                    target,
                    "it is not answering and no " + InfraDirectory.SCRIPT + " was found above "
                            + System.getProperty("user.dir")
                            + " to start it; start it yourself and point ETL_INFRA_DIR at the "
                            + "directory holding " + InfraEndpoints.FILE_NAME,
                    null);
        }
        Path log = startLog();
        logger.info(
                "Starting {} with {} start {} (ETL_INFRA_DIR={}, output in {})",
                servers,
                script,
                target,
                directory.stateDir(),
                log);
        long startNs = System.nanoTime();
        ProcessBuilder builder = new ProcessBuilder("bash", script.toString(), "start", target)
                .directory(directory.repoRoot().toFile())
                .redirectErrorStream(true)
                // A file, not a pipe: the servers inherit these descriptors and outlive this JVM.
                .redirectOutput(ProcessBuilder.Redirect.appendTo(log.toFile()))
                .redirectInput(ProcessBuilder.Redirect.from(new File("/dev/null")));
        builder.environment().put("ETL_INFRA_DIR", directory.stateDir().toString());
        try {
            Files.writeString(
                    log,
                    "\n" + ATTEMPT_MARKER + Instant.now() + " start " + target + " (pid "
                            + ProcessHandle.current().pid() + ")\n",
                    StandardCharsets.UTF_8,
                    StandardOpenOption.CREATE,
                    StandardOpenOption.APPEND);
            Process process = builder.start();
            if (!process.waitFor(startTimeout.toSeconds(), TimeUnit.SECONDS)) {
                // Only the script itself: servers it already launched stay up for the next attempt.
                process.destroyForcibly();
                throw failure(
                        servers,
                        target,
                        InfraDirectory.SCRIPT + " start " + target + " did not finish within "
                                + startTimeout.toSeconds() + "s (-Detl.infra.start-timeout-seconds)",
                        null);
            }
            if (process.exitValue() != 0) {
                throw failure(
                        servers,
                        target,
                        InfraDirectory.SCRIPT + " start " + target + " exited with status " + process.exitValue(),
                        null);
            }
        } catch (IOException ex) {
            throw failure(servers, target, "cannot run " + script + ": " + ex, ex);
        } catch (InterruptedException ex) {
            Thread.currentThread().interrupt();
            throw failure(servers, target, "interrupted while running " + script, ex);
        }
        for (InfraServer each : servers) {
            started.put(each, null);
        }
        logger.info("Started {} in {} ms", servers, TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - startNs));
    }

    /** Polls the started servers until they answer or {@link #READY_TIMEOUT} passes. */
    private void awaitReady(Set<InfraServer> servers) {
        long deadlineNs = System.nanoTime() + READY_TIMEOUT.toNanos();
        while (true) {
            EnumSet<InfraServer> down = probe(servers);
            if (down.isEmpty()) {
                return;
            }
            if (System.nanoTime() - deadlineNs > 0) {
                InfraServer server = down.iterator().next();
                String problem = (endpoints == null) ? endpointsProblem : problems.get(server);
                throw failure(
                        EnumSet.of(server),
                        server.scriptName(),
                        "it still does not answer " + READY_TIMEOUT.toSeconds() + "s after " + InfraDirectory.SCRIPT
                                + " start " + server.scriptName() + " returned: " + problem,
                        null);
            }
            try {
                Thread.sleep(250);
            } catch (InterruptedException ex) {
                Thread.currentThread().interrupt();
                throw failure(servers, "infrastructure", "interrupted while waiting for the servers to answer", ex);
            }
        }
    }

    /** Records a failed start of {@code servers} and returns the exception to throw. */
    private InfraUnavailableException failure(Set<InfraServer> servers, String label, String reason, Throwable cause) {
        StringBuilder logs = new StringBuilder();
        for (InfraServer server : servers) {
            logs.append(logs.isEmpty() ? "" : ", ").append(serverLogs(server));
        }
        InfraUnavailableException failure = new InfraUnavailableException(
                servers.iterator().next(),
                "Local " + label + " is unavailable: " + reason + ". Script output: " + startLog() + "; server logs: "
                        + logs + " (see also `" + InfraDirectory.SCRIPT + " status`)." + startLogTail(),
                cause);
        for (InfraServer server : servers) {
            started.put(server, failure);
        }
        return failure;
    }

    /** Where {@code scripts/infra.sh} keeps the server's logs. */
    private String serverLogs(InfraServer server) {
        Path state = directory.stateDir();
        return switch (server) {
            case ZOOKEEPER -> state.resolve("zookeeper/logs").toString();
            case CLICKHOUSE -> state.resolve("clickhouse") + "/{s1r1,s1r2,s2r1,s2r2}/logs";
            case KAFKA -> state.resolve("kafka/logs").toString();
            case REGISTRY -> state.resolve("registry/logs").toString();
            case S3 -> state.resolve("s3/logs").toString();
        };
    }

    /** The last lines the script printed, which name the failing server and quote its log. */
    private String startLogTail() {
        try {
            List<String> lines = Files.readAllLines(startLog(), StandardCharsets.UTF_8);
            int attempt = 0; // only the last run's output: earlier runs append to the same file
            for (int i = lines.size() - 1; i >= 0; i--) {
                if (lines.get(i).startsWith(ATTEMPT_MARKER)) {
                    attempt = i;
                    break;
                }
            }
            List<String> tail = lines.subList(Math.max(attempt, lines.size() - 40), lines.size());
            return tail.isEmpty() ? "" : "\n---- last lines of " + startLog() + " ----\n" + String.join("\n", tail);
        } catch (IOException ex) {
            return "";
        }
    }

    private Path startLog() {
        return directory.stateDir().resolve("junit-infra-start.log");
    }

    /** Reports what this JVM started; the servers keep running. */
    @Override
    public void close() {
        List<InfraServer> ours = new ArrayList<>();
        synchronized (lock) {
            started.forEach((server, failure) -> {
                if (failure == null) {
                    ours.add(server);
                }
            });
        }
        if (!ours.isEmpty()) {
            logger.info(
                    "Tests started {} and left them running; stop them with `{} stop all` (ETL_INFRA_DIR={})",
                    ours,
                    InfraDirectory.SCRIPT,
                    directory.stateDir());
        }
    }
}
