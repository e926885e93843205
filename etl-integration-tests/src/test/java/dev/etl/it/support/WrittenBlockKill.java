package dev.etl.it.support;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.fail;

import dev.etl.test.infra.ClickHouseHttp;
import dev.etl.test.infra.InfraEndpoints;
import java.time.Duration;
import java.util.HashMap;
import java.util.Map;
import java.util.Random;
import java.util.concurrent.TimeUnit;

/**
 * SIGKILLs a child pipeline in exactly the state crash replay without duplicates exists for: a block
 * written to ClickHouse whose offsets the consumer group has not committed, so the next owner must rebuild
 * and re-insert it, and the table must drop it. Random kill moments reach that state only by luck (an
 * insert is followed by the commit that covers it within tens of milliseconds, and a run that has caught
 * up writes nothing), so the replay ITs looked for it from the outside:
 *
 * <ol>
 *   <li>freeze the child (SIGSTOP): it can neither insert nor commit any more, only requests already on the
 *       wire complete; wait {@value #SETTLE_MS} ms for them;
 *   <li>observe, per source partition, the committed position and the furthest position that has a row in
 *       ClickHouse ({@link Observer}, on every replica);
 *   <li>if some partition has a row at or beyond its committed position — and its committed position has
 *       moved past every row the previous such kill left behind there, so this run wrote what it leaves
 *       behind rather than finding the last run's leftovers — SIGKILL the child and observe again (nothing
 *       can commit for the group now): the state is then certain;
 *   <li>otherwise thaw it (SIGCONT), let it run a random 50-300 ms, and look again.
 * </ol>
 *
 * <p>Frozen for a few hundred milliseconds at a time, the child stays well inside its group session.
 */
public final class WrittenBlockKill {

    private static final long SETTLE_MS = 150;

    /** Committed position and furthest written position per partition, in the source's offset space. */
    public record Positions(Map<Integer, Long> committed, Map<Integer, Long> written) {}

    /** Reads {@link Positions} from the broker and the ClickHouse replicas. */
    @FunctionalInterface
    public interface Observer {

        /**
         * The positions now.
         * @return committed (absent: none) and written (absent: no row) positions per partition
         * @throws Exception when the broker or a replica does not answer
         */
        Positions observe() throws Exception;
    }

    /**
     * What a kill left behind.
     * @param partition the partition with a written block behind its commit
     * @param committed its committed position after the kill
     * @param written the furthest position with a row in ClickHouse
     * @param attempts how many times the child was frozen and looked at
     */
    public record Kill(int partition, long committed, long written, int attempts) {}

    private final Observer observer;

    private Map<Integer, Long> leftBehind = Map.of();

    /**
     * @param observer what the test can see of the group's commits and the table's rows
     */
    public WrittenBlockKill(Observer observer) {
        this.observer = observer;
    }

    /**
     * Looks for the state (see the class comment) while {@code child} runs and SIGKILLs it there.
     * @param child a running child pipeline
     * @param timeout how long to look
     * @param random the test's seeded random (the pauses between looks)
     * @return what the kill left behind, or null when the child ended by itself first, or when a commit
     *     already on the wire as the child froze covered the block after all (the child is dead then: start
     *     another run)
     * @throws AssertionError when the state does not come within {@code timeout}
     */
    public Kill kill(Process child, Duration timeout, Random random) throws Exception {
        long deadline = System.nanoTime() + timeout.toNanos();
        for (int attempt = 1; ; attempt++) {
            if (!child.isAlive()) {
                return null;
            }
            signal(child, "STOP");
            Thread.sleep(SETTLE_MS);
            Integer partition = behindCommit(this.observer.observe());
            if (partition != null) {
                child.destroyForcibly(); // SIGKILL, frozen: no drain, no commit
                assertThat(child.waitFor(20, TimeUnit.SECONDS)).isTrue();
                Positions after = this.observer.observe();
                Integer confirmed = behindCommit(after);
                if (confirmed == null) {
                    return null;
                }
                this.leftBehind = after.written();
                return new Kill(
                        confirmed,
                        after.committed().getOrDefault(confirmed, 0L),
                        after.written().get(confirmed),
                        attempt);
            }
            signal(child, "CONT");
            if (System.nanoTime() - deadline > 0) {
                fail("no moment with a written block behind the commit within " + timeout + " (" + attempt
                        + " looks; last: " + this.observer.observe() + ")");
            }
            Thread.sleep(50 + random.nextInt(250));
        }
    }

    /**
     * Notes what a kill made some other way (at a random moment) left behind, so that the next
     * {@link #kill} does not take those rows for a block its run wrote.
     * @throws Exception when the broker or a replica does not answer
     */
    public void killedElsewise() throws Exception {
        this.leftBehind = this.observer.observe().written();
    }

    /** A partition with a row at or beyond its committed position, committed past the last leftovers. */
    private Integer behindCommit(Positions positions) {
        Map<Integer, Long> written = new HashMap<>(positions.written());
        for (Map.Entry<Integer, Long> e : written.entrySet()) {
            long committed = positions.committed().getOrDefault(e.getKey(), 0L);
            long left = this.leftBehind.getOrDefault(e.getKey(), -1L);
            if (e.getValue() >= committed && committed > left) {
                return e.getKey();
            }
        }
        return null;
    }

    /**
     * Blocks the replicas dropped as duplicates since they started: ClickHouse's {@code
     * DuplicatedInsertedBlocks} event, summed over every replica. A replayed block that had been written
     * before the kill is one of them.
     * @param infra the local servers
     * @return the sum
     */
    public static long duplicatedInsertedBlocks(InfraEndpoints infra) {
        long total = 0;
        for (InfraEndpoints.ClickHouseShard shard : infra.clickhouseShards()) {
            for (String url : shard.replicaUrls()) {
                String value = ClickHouseHttp.query(
                                url,
                                "SELECT sum(value) FROM system.events WHERE event = 'DuplicatedInsertedBlocks' "
                                        + "FORMAT TabSeparated")
                        .strip();
                total += value.isEmpty() ? 0 : Long.parseLong(value);
            }
        }
        return total;
    }

    private static void signal(Process child, String signal) throws Exception {
        Process kill = new ProcessBuilder("kill", "-" + signal, Long.toString(child.pid()))
                .redirectErrorStream(true)
                .start();
        assertThat(kill.waitFor(10, TimeUnit.SECONDS)).isTrue();
        if (kill.exitValue() != 0 && child.isAlive()) {
            fail("kill -" + signal + " " + child.pid() + " failed: "
                    + new String(kill.getInputStream().readAllBytes()));
        }
    }
}
