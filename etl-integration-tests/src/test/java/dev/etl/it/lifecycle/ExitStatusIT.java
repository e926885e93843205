package dev.etl.it.lifecycle;

import static org.assertj.core.api.Assertions.assertThat;

import com.sun.net.httpserver.HttpServer;
import dev.etl.it.lifecycle.ExitStatusApplication.Cause;
import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The process status of a Boot application running the starter equals its pipeline's run report exit
 * code, every time: {@link ExitStatusApplication} in child JVMs, in a loop over several causes of
 * failure (1), a SIGTERM whose drain hits its deadline (2) and a clean SIGTERM (0). A failed run used to
 * exit 0 about half the time (the failure watcher was a daemon thread racing the JVM's own exit).
 *
 * <p>Needs no servers: the memory source, a sink that writes nowhere, a registry URL on a closed
 * port of 127.0.0.1, and a web server of the test's own that answers 404 where the registry API should be.
 */
class ExitStatusIT {

    private static final Logger log = LoggerFactory.getLogger(ExitStatusIT.class);

    private static final int RUNS_PER_CAUSE = 4;

    private static final int PARALLEL = 4;

    private static final long EXIT_TIMEOUT_MS = 60_000;

    /** The status recorded for a child that did not exit within {@link #EXIT_TIMEOUT_MS}. */
    private static final int HUNG = -2;

    private static final Pattern REPORT = Pattern.compile("ended: state=(\\w+) exitCode=(\\d+)");

    private record Outcome(Cause cause, int run, int status, int reported, Path log) {

        boolean matches() {
            boolean reportAgrees =
                    this.cause.failsBeforeThePipeline() ? this.reported == -1 : this.status == this.reported;
            return reportAgrees && this.status == this.cause.expectedStatus && logContains(this.cause.logMarker);
        }

        private boolean logContains(String text) {
            try {
                return Files.readString(this.log).contains(text);
            } catch (IOException ex) {
                return false;
            }
        }
    }

    @Test
    @Timeout(value = 300, unit = TimeUnit.SECONDS)
    void processStatusEqualsTheRunReportExitCodeEveryTime(@TempDir Path dir) throws Exception {
        int closedPort;
        try (ServerSocket socket = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
            closedPort = socket.getLocalPort();
        }
        // A web server that is not a schema registry: every path answers 404.
        HttpServer notARegistry = HttpServer.create(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 16);
        notARegistry.createContext("/", (exchange) -> {
            exchange.sendResponseHeaders(404, -1);
            exchange.close();
        });
        notARegistry.start();
        String wrongRegistryUrl =
                "http://127.0.0.1:" + notARegistry.getAddress().getPort() + "/apis";
        List<Cause> runs = new ArrayList<>();
        for (int i = 0; i < RUNS_PER_CAUSE; i++) {
            runs.addAll(List.of(Cause.values()));
        }
        long started = System.nanoTime();
        ExecutorService pool = Executors.newFixedThreadPool(PARALLEL);
        List<Outcome> outcomes = new ArrayList<>();
        try {
            List<Future<Outcome>> futures = new ArrayList<>();
            for (int i = 0; i < runs.size(); i++) {
                Cause cause = runs.get(i);
                int run = i;
                futures.add(pool.submit(
                        () -> runOnce(cause, run, closedPort, wrongRegistryUrl, dir.resolve("child-" + run + ".log"))));
            }
            for (Future<Outcome> future : futures) {
                outcomes.add(future.get(EXIT_TIMEOUT_MS * 2, TimeUnit.MILLISECONDS));
            }
        } finally {
            pool.shutdownNow();
            pool.awaitTermination(30, TimeUnit.SECONDS);
            notARegistry.stop(0);
        }
        List<Outcome> mismatches =
                outcomes.stream().filter((outcome) -> !outcome.matches()).toList();
        log.info(
                "{} child JVMs in {} ms, {} mismatches",
                outcomes.size(),
                TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - started),
                mismatches.size());
        assertThat(outcomes.stream()
                        .filter((outcome) -> outcome.cause.expectedStatus != 0)
                        .count())
                .isGreaterThanOrEqualTo(20);
        assertThat(mismatches)
                .as("runs whose process status differs from the report or the expectation:%n%s", describe(mismatches))
                .isEmpty();
    }

    private static Outcome runOnce(Cause cause, int run, int closedPort, String wrongRegistryUrl, Path childLog)
            throws Exception {
        Process child = start(cause, closedPort, wrongRegistryUrl, childLog);
        try {
            if (cause.signalled()) {
                String marker = (cause == Cause.SIGTERM_DEADLINE)
                        ? ExitStatusApplication.BLOCKED
                        : ExitStatusApplication.WRITTEN;
                long deadline = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(EXIT_TIMEOUT_MS);
                while (!Files.readString(childLog).contains(marker)) {
                    assertThat(child.isAlive())
                            .as("%s run %d ended before %s; log:%n%s", cause, run, marker, tail(childLog))
                            .isTrue();
                    assertThat(System.nanoTime() - deadline)
                            .as("%s run %d: no '%s' in time", cause, run, marker)
                            .isNegative();
                    Thread.sleep(20);
                }
                child.destroy(); // SIGTERM
            }
            boolean exited = child.waitFor(EXIT_TIMEOUT_MS, TimeUnit.MILLISECONDS);
            // A child that never exits (e.g. threads left behind by a failed start) is a mismatch too.
            return new Outcome(cause, run, exited ? child.exitValue() : HUNG, reportedExitCode(childLog), childLog);
        } finally {
            if (child.isAlive()) {
                child.destroyForcibly().waitFor(10, TimeUnit.SECONDS);
            }
        }
    }

    private static Process start(Cause cause, int closedPort, String wrongRegistryUrl, Path childLog)
            throws IOException {
        String java = Path.of(System.getProperty("java.home"), "bin", "java").toString();
        List<String> command = new ArrayList<>(List.of(
                java,
                "-Xmx192m",
                "-XX:TieredStopAtLevel=1",
                "-XX:+UseSerialGC",
                "-Xshare:auto",
                "-cp",
                System.getProperty("java.class.path"),
                ExitStatusApplication.class.getName()));
        command.addAll(List.of(
                "--lifecycle-test.cause=" + cause,
                "--lifecycle-test.closed-port=" + closedPort,
                "--spring.main.web-application-type=none",
                "--spring.main.banner-mode=off",
                "--spring.jmx.enabled=false",
                "--etl.pipeline.name=exit-status",
                "--etl.pipeline.threads=" + cause.lanes(),
                "--etl.checkpoint.drain-timeout=1s",
                "--spring.lifecycle.timeout-per-shutdown-phase=15s",
                "--etl.errors.types.deserialization=fail"));
        if (cause == Cause.REGISTRY_WRONG_PATH) {
            command.add("--etl.avro.registry.url=" + wrongRegistryUrl);
        }
        return new ProcessBuilder(command)
                .redirectErrorStream(true)
                .redirectOutput(childLog.toFile())
                .start();
    }

    /** The exit code of the pipeline's final log line, -1 if there is none. */
    private static int reportedExitCode(Path childLog) throws IOException {
        Matcher matcher = REPORT.matcher(Files.readString(childLog));
        int reported = -1;
        while (matcher.find()) {
            reported = Integer.parseInt(matcher.group(2));
        }
        return reported;
    }

    private static String describe(List<Outcome> outcomes) {
        StringBuilder text = new StringBuilder();
        for (Outcome outcome : outcomes) {
            text.append(String.format(
                    "%s run %d: status %d (-2: did not exit), reported %d, expected %d; log:%n%s%n",
                    outcome.cause,
                    outcome.run,
                    outcome.status,
                    outcome.reported,
                    outcome.cause.expectedStatus,
                    tail(outcome.log)));
        }
        return text.toString();
    }

    private static String tail(Path log) {
        try {
            List<String> lines = Files.readAllLines(log);
            return String.join("\n", lines.subList(Math.max(0, lines.size() - 30), lines.size()));
        } catch (IOException ex) {
            return "(no log: " + ex + ")";
        }
    }
}
