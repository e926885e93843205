package dev.etl.autoconfigure;

import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;
import java.util.function.IntConsumer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import sun.misc.Signal;
import sun.misc.SignalHandler;

/**
 * Turns SIGTERM and SIGINT into an orderly exit with a meaningful status, for the applications whose
 * pipelines are running in this JVM.
 *
 * <p>Without it the JVM answers SIGTERM by running its shutdown hooks (Spring's closes the context, so
 * the pipeline drains) and then ends with status 143, whatever the drain did; {@code System.exit}
 * cannot be called from a shutdown hook to change that. With it, the signal starts a non-daemon
 * thread named {@code etl-signal-exit} that asks every registered {@link Target} to exit (an
 * {@link EtlPipelineLifecycle} closes its context through {@code SpringApplication.exit}, which drains
 * the pipeline, and answers 0 after a clean drain, 2 when data was abandoned, 1 when the pipeline
 * failed) and then calls {@code System.exit} with the first non-zero answer, else 0.
 *
 * <p>A second signal while the targets drain does not interrupt the drain (which is bounded by
 * {@code etl.checkpoint.drain-timeout}): it is logged and ignored; SIGKILL ends the process at once.
 * A signal that arrives while no target is registered (no pipeline running) goes to the handler that
 * was installed before this one, normally the JVM's own (shutdown hooks, status 128 + signal).
 *
 * <p>One instance per JVM ({@link #jvm()}) installs itself once, through {@code sun.misc.Signal} (module
 * {@code jdk.unsupported}, readable without flags), and stays installed. Instances made with the
 * package-private constructor are not installed: tests drive {@link #handle} directly. Thread-safe.
 */
final class SignalExitHandler {

    /** Something that exits in an orderly way on a signal and says with which status. */
    interface Target {

        /** Name for the log. */
        String name();

        /**
         * Stops in an orderly way (blocking until done or given up) and answers the exit status.
         * @param signal the signal's name, e.g. {@code TERM}
         * @return the process exit status this target asks for
         */
        int exitOnSignal(String signal);
    }

    static final List<String> SIGNALS = List.of("TERM", "INT");

    static final String THREAD_NAME = "etl-signal-exit";

    private static final Logger logger = LoggerFactory.getLogger(SignalExitHandler.class);

    private static SignalExitHandler jvm;

    private final IntConsumer systemExit;

    private final Set<Target> targets = new LinkedHashSet<>();

    private String exitingOn;

    SignalExitHandler(IntConsumer systemExit) {
        this.systemExit = systemExit;
    }

    /**
     * The JVM's instance, installed for SIGTERM and SIGINT on first use.
     * @return the installed handler
     */
    static synchronized SignalExitHandler jvm() {
        if (jvm == null) {
            jvm = new SignalExitHandler(System::exit);
            for (String name : SIGNALS) {
                jvm.install(name);
            }
        }
        return jvm;
    }

    private void install(String name) {
        Signal signal = new Signal(name);
        try {
            SignalHandler[] previous = new SignalHandler[1];
            previous[0] = Signal.handle(signal, (received) -> handle(name, () -> delegate(previous[0], received)));
        } catch (IllegalArgumentException ex) {
            // e.g. -Xrs, or a platform without the signal: the JVM's behaviour stays as it is
            logger.info("Cannot handle SIG{} ({}); the JVM's default handling applies", name, ex.getMessage());
        }
    }

    private void delegate(SignalHandler previous, Signal received) {
        if (previous == SignalHandler.SIG_IGN) {
            return;
        }
        if (previous == null || previous == SignalHandler.SIG_DFL) {
            this.systemExit.accept(128 + received.getNumber());
            return;
        }
        previous.handle(received);
    }

    /**
     * Registers a target: from now on a signal makes it exit.
     * @param target the target
     */
    synchronized void register(Target target) {
        this.targets.add(target);
    }

    /**
     * Unregisters a target (it stopped by other means). A signal already being handled still reaches it.
     * @param target the target
     */
    synchronized void unregister(Target target) {
        this.targets.remove(target);
    }

    /**
     * Handles one signal; runs on the JVM's signal dispatcher thread and never blocks.
     * @param signal the signal's name, e.g. {@code TERM}
     * @param fallback what to do when no target is registered
     */
    void handle(String signal, Runnable fallback) {
        List<Target> exiting;
        synchronized (this) {
            if (this.exitingOn != null) {
                logger.warn(
                        "Received SIG{} while exiting on SIG{}: the drain of {} continues (it is bounded by "
                                + "etl.checkpoint.drain-timeout); send SIGKILL to end the process at once",
                        signal,
                        this.exitingOn,
                        names(this.targets));
                return;
            }
            if (this.targets.isEmpty()) {
                exiting = null;
            } else {
                this.exitingOn = signal;
                exiting = new ArrayList<>(this.targets);
            }
        }
        if (exiting == null) {
            fallback.run();
            return;
        }
        logger.info("Received SIG{}: stopping {} (drain, final commit), then exiting", signal, names(exiting));
        Thread thread = new Thread(() -> exit(signal, exiting), THREAD_NAME);
        thread.setDaemon(false);
        thread.start();
    }

    private void exit(String signal, List<Target> exiting) {
        int status = 0;
        for (Target target : exiting) {
            int answer;
            try {
                answer = target.exitOnSignal(signal);
            } catch (Throwable ex) {
                logger.error("Stopping {} on SIG{} failed", target.name(), signal, ex);
                answer = 1;
            }
            if (status == 0) {
                status = answer;
            }
        }
        logger.info("Exiting with status {} after SIG{}", status, signal);
        this.systemExit.accept(status);
    }

    /** Whether a signal is being handled (the targets are exiting). */
    synchronized boolean isExiting() {
        return this.exitingOn != null;
    }

    private static List<String> names(Iterable<Target> targets) {
        List<String> names = new ArrayList<>();
        targets.forEach((target) -> names.add(target.name()));
        return names;
    }
}
