package dev.etl.test.infra;

import java.io.File;
import java.io.IOException;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * One ClickHouse server process of the local cluster, for fault-injection tests: kill it
 * ({@code SIGKILL}), freeze it ({@code SIGSTOP}), thaw it ({@code SIGCONT}) and start it again with
 * the same command line.
 *
 * <p>The process is found through the infrastructure directory ({@code etl.infra.dir}, else
 * {@code ETL_INFRA_DIR}, else {@code <repo>/.infra}, as for {@link LocalInfra}): instance
 * {@code s<shard>r<replica>} keeps its PID in {@code clickhouse/s<shard>r<replica>/clickhouse.pid},
 * written by {@code scripts/infra.sh}. Before acting, {@link #of} checks that the PID is alive, that
 * its command line names that instance's {@code config.xml}, and that the config's
 * {@code <http_port>} is the port of the endpoint: a signal never goes to a process of another
 * infrastructure directory or to a recycled PID.
 *
 * <p>{@link #restore()} undoes whatever this instance did (continue a stopped process, start a
 * killed one); call it in {@code finally} or {@code @AfterAll}. A restart records the new PID in the
 * PID file, so {@code scripts/infra.sh stop} keeps working.
 *
 * <p>Not thread-safe: one test drives one instance.
 */
public final class ClickHouseInstance {

    private static final Pattern HTTP_PORT = Pattern.compile("<http_port>(\\d+)</http_port>");

    private final String name;
    private final String url;
    private final Path dir;
    private final Path pidFile;
    private final String token;
    private final List<String> commandLine;
    private long pid;
    private boolean stopped;
    private boolean killed;

    private ClickHouseInstance(String name, String url, Path dir, long pid, List<String> commandLine) {
        this.name = name;
        this.url = url;
        this.dir = dir;
        this.pidFile = dir.resolve("clickhouse.pid");
        this.token = dir.resolve("config.xml").toString();
        this.pid = pid;
        this.commandLine = List.copyOf(commandLine);
    }

    /**
     * Finds the running process of one instance.
     * @param endpoints the endpoints of the infrastructure the test uses
     * @param shardNumber 1-based shard number ({@code s1r2} is shard 1, replica 2)
     * @param replicaNumber 1-based replica position in the shard
     * @return the instance
     * @throws IllegalStateException if the PID file is missing, its process is not that instance's
     * server, or the server's HTTP port is not the endpoint's
     */
    public static ClickHouseInstance of(InfraEndpoints endpoints, int shardNumber, int replicaNumber) {
        String url = endpoints.clickhouseShard(shardNumber).replicaUrl(replicaNumber);
        String name = "s" + shardNumber + "r" + replicaNumber;
        Path dir = InfraDirectory.detect().stateDir().resolve("clickhouse").resolve(name);
        Path pidFile = dir.resolve("clickhouse.pid");
        String token = dir.resolve("config.xml").toString();
        long pid;
        try {
            pid = Long.parseLong(
                    Files.readString(pidFile, StandardCharsets.UTF_8).trim());
        } catch (IOException | NumberFormatException ex) {
            throw new IllegalStateException("ClickHouse " + name + ": cannot read PID file " + pidFile, ex);
        }
        List<String> cmd = commandLine(pid)
                .orElseThrow(() -> new IllegalStateException(
                        "ClickHouse " + name + ": process " + pid + " from " + pidFile + " is not running"));
        if (cmd.stream().noneMatch((arg) -> arg.contains(token))) {
            throw new IllegalStateException("ClickHouse " + name + ": process " + pid + " is not ours: " + cmd);
        }
        int port = URI.create(url).getPort();
        int configured = configuredHttpPort(dir.resolve("config.xml"));
        if (configured != port) {
            throw new IllegalStateException("ClickHouse " + name + ": " + dir + " listens on HTTP port " + configured
                    + " but the endpoint is " + url + " (is ETL_INFRA_DIR the directory of these endpoints?)");
        }
        return new ClickHouseInstance(name, url, dir, pid, cmd);
    }

    private static int configuredHttpPort(Path config) {
        try {
            Matcher m = HTTP_PORT.matcher(Files.readString(config, StandardCharsets.UTF_8));
            if (!m.find()) {
                throw new IllegalStateException(config + " has no <http_port>");
            }
            return Integer.parseInt(m.group(1));
        } catch (IOException ex) {
            throw new IllegalStateException("cannot read " + config, ex);
        }
    }

    private static Optional<List<String>> commandLine(long pid) {
        try {
            byte[] raw = Files.readAllBytes(Path.of("/proc", Long.toString(pid), "cmdline"));
            if (raw.length == 0) {
                return Optional.empty(); // a zombie
            }
            List<String> args = new ArrayList<>(Arrays.asList(new String(raw, StandardCharsets.UTF_8).split("\0")));
            return Optional.of(args);
        } catch (IOException ex) {
            return Optional.empty();
        }
    }

    /**
     * Returns the instance name as {@code scripts/infra.sh} spells it.
     * @return e.g. {@code s1r2}
     */
    public String name() {
        return name;
    }

    /**
     * Returns the HTTP base URL.
     * @return e.g. {@code http://127.0.0.1:18124}
     */
    public String url() {
        return url;
    }

    /**
     * Returns the current PID.
     * @return the PID of the server process (the last one started, after a restart)
     */
    public long pid() {
        return pid;
    }

    /** Whether the server process is alive (stopped or not). */
    public boolean isAlive() {
        return commandLine(pid)
                .map((cmd) -> cmd.stream().anyMatch((arg) -> arg.contains(token)))
                .orElse(false);
    }

    /**
     * Sends {@code SIGKILL} and waits until the process is gone.
     * @param timeout how long to wait for the process to disappear
     */
    public void kill(Duration timeout) {
        requireOurs();
        ProcessHandle.of(pid).ifPresent(ProcessHandle::destroyForcibly); // SIGKILL on Linux
        killed = true;
        stopped = false;
        long deadline = System.nanoTime() + timeout.toNanos();
        while (isAlive()) {
            if (System.nanoTime() - deadline > 0) {
                throw new IllegalStateException("ClickHouse " + name + " (pid " + pid + ") still alive after SIGKILL");
            }
            sleep(20);
        }
    }

    /** Sends {@code SIGSTOP}: the process keeps its sockets (connections are accepted) but answers nothing. */
    public void stop() {
        requireOurs();
        signal("STOP");
        stopped = true;
    }

    /** Sends {@code SIGCONT} to a process {@link #stop() stopped} before. */
    public void resume() {
        requireOurs();
        signal("CONT");
        stopped = false;
    }

    /**
     * Starts a killed server again with its original command line, in its own session, output
     * appended to {@code logs/stdout.log} (as {@code scripts/infra.sh} does), records the new PID,
     * and waits until it answers {@code SELECT 1}.
     * @param timeout how long to wait for the server to answer
     */
    public void restart(Duration timeout) {
        if (isAlive()) {
            throw new IllegalStateException("ClickHouse " + name + " (pid " + pid + ") is still running");
        }
        List<String> cmd = new ArrayList<>();
        cmd.add("setsid");
        cmd.addAll(commandLine);
        File out = dir.resolve("logs").resolve("stdout.log").toFile();
        Process process;
        try {
            process = new ProcessBuilder(cmd)
                    .redirectErrorStream(true)
                    .redirectOutput(ProcessBuilder.Redirect.appendTo(out))
                    .redirectInput(ProcessBuilder.Redirect.from(new File("/dev/null")))
                    .start();
            pid = process.pid(); // setsid execs in place when not a process group leader
            Files.writeString(pidFile, pid + "\n", StandardCharsets.UTF_8);
        } catch (IOException ex) {
            throw new IllegalStateException("cannot start ClickHouse " + name + " with " + cmd, ex);
        }
        killed = false;
        awaitReady(timeout);
    }

    /**
     * Waits until the server answers {@code SELECT 1}.
     * @param timeout how long to wait
     */
    public void awaitReady(Duration timeout) {
        ClickHouseHttp http = new ClickHouseHttp(Duration.ofMillis(500), Duration.ofSeconds(2));
        long deadline = System.nanoTime() + timeout.toNanos();
        RuntimeException last = null;
        while (System.nanoTime() - deadline < 0) {
            try {
                if ("1".equals(http.execute(url, "SELECT 1").trim())) {
                    return;
                }
            } catch (RuntimeException ex) {
                last = ex;
            }
            if (!isAlive()) {
                throw new IllegalStateException(
                        "ClickHouse " + name + " exited during startup; see " + dir.resolve("logs"));
            }
            sleep(100);
        }
        throw new IllegalStateException("ClickHouse " + name + " not ready after " + timeout, last);
    }

    /**
     * Undoes what this instance did: continues a stopped process, starts a killed one. Idempotent;
     * for {@code finally} blocks.
     */
    public void restore() {
        if (stopped && isAlive()) {
            resume();
        }
        if (killed || !isAlive()) {
            restart(Duration.ofSeconds(60));
        }
    }

    private void requireOurs() {
        if (!isAlive()) {
            throw new IllegalStateException("ClickHouse " + name + " (pid " + pid + ") is not running");
        }
    }

    private void signal(String signal) {
        try {
            Process p = new ProcessBuilder("kill", "-" + signal, Long.toString(pid))
                    .redirectErrorStream(true)
                    .start();
            if (!p.waitFor(10, TimeUnit.SECONDS) || p.exitValue() != 0) {
                throw new IllegalStateException("kill -" + signal + " " + pid + " failed: "
                        + new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8));
            }
        } catch (IOException ex) {
            throw new IllegalStateException("kill -" + signal + " " + pid + " failed", ex);
        } catch (InterruptedException ex) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted", ex);
        }
    }

    private static void sleep(long ms) {
        try {
            Thread.sleep(ms);
        } catch (InterruptedException ex) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted", ex);
        }
    }

    @Override
    public String toString() {
        return "ClickHouseInstance{" + name + ", " + url + ", pid " + pid + (stopped ? ", stopped" : "")
                + (killed ? ", killed" : "") + "}";
    }
}
