package dev.etl.fuzz;

import java.io.PrintWriter;
import java.lang.reflect.Method;
import java.util.ArrayList;
import java.util.List;
import org.junit.platform.engine.discovery.DiscoverySelectors;
import org.junit.platform.launcher.Launcher;
import org.junit.platform.launcher.LauncherDiscoveryRequest;
import org.junit.platform.launcher.core.LauncherDiscoveryRequestBuilder;
import org.junit.platform.launcher.core.LauncherFactory;
import org.junit.platform.launcher.listeners.SummaryGeneratingListener;
import org.junit.platform.launcher.listeners.TestExecutionSummary;

/**
 * Runs one fuzz test, {@code Class#method}, on the JUnit Platform in this JVM: what {@code scripts/fuzz.sh}
 * starts for each target once it has built the modules (and written the test class path) with one Maven
 * run. Jazzer fuzzes one test per JVM, so every target needs a JVM of its own; through Maven each also paid
 * for the reactor (the decoders' modules checked again) and Surefire's fork, about as long as 30 s of
 * fuzzing. With {@code JAZZER_FUZZ} set the test fuzzes (Jazzer's options as {@code -Djazzer.*} system
 * properties), without it it replays its inputs directory.
 *
 * <p>Prints every failure with its stack (a finding: Jazzer's {@code FuzzTestFindingException}) and a
 * summary; exits 0 when the test ran and passed, 1 when it failed, 2 when nothing ran (no such test).
 */
public final class FuzzLauncher {
    private FuzzLauncher() {}

    public static void main(String[] args) throws ClassNotFoundException {
        if (args.length != 1 || !args[0].contains("#")) {
            System.err.println("usage: FuzzLauncher fully.qualified.Class#method");
            System.exit(2);
        }
        String className = args[0].substring(0, args[0].indexOf('#'));
        String methodName = args[0].substring(args[0].indexOf('#') + 1);
        Class<?> testClass = Class.forName(className);
        List<Method> methods = new ArrayList<>();
        for (Method m : testClass.getDeclaredMethods()) {
            if (m.getName().equals(methodName)) {
                methods.add(m);
            }
        }
        if (methods.size() != 1) {
            System.err.println(args[0] + ": " + methods.size() + " methods of that name, not one");
            System.exit(2);
        }
        LauncherDiscoveryRequest request = LauncherDiscoveryRequestBuilder.request()
                .selectors(DiscoverySelectors.selectMethod(testClass, methods.get(0)))
                .build();
        Launcher launcher = LauncherFactory.create();
        SummaryGeneratingListener listener = new SummaryGeneratingListener();
        launcher.execute(request, listener);
        TestExecutionSummary summary = listener.getSummary();
        PrintWriter out = new PrintWriter(System.out, true);
        summary.printFailuresTo(out, 60);
        summary.printTo(out);
        out.flush();
        if (summary.getTotalFailureCount() > 0) {
            System.exit(1);
        }
        System.exit(summary.getTestsSucceededCount() > 0 ? 0 : 2);
    }
}
