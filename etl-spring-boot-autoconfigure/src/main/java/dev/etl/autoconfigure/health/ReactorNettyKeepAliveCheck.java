package dev.etl.autoconfigure.health;

import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Warns at startup when the web server is a Reactor Netty older than 1.3.8, whose HTTP/1.1 server leaves a
 * request on a kept-alive connection unanswered now and then (reactor-netty issues 4188 and 4361): measured
 * with 1.3.6 and 1.3.7 (Spring Boot 4.0.7 and 4.0.8), about one {@code /actuator/health}, {@code /readyz} or
 * {@code /healthz} request in 40 on a reused connection got no answer, so a Prometheus scrape or a monitor
 * that keeps its connections alive times out. Kubernetes' own probes open a connection per probe and are not
 * affected. Spring Boot 4.0.9 brings 1.3.8.
 */
final class ReactorNettyKeepAliveCheck {

    private static final Logger logger = LoggerFactory.getLogger(ReactorNettyKeepAliveCheck.class);

    private static final String SERVER_CLASS = "reactor.netty.http.server.HttpServer";

    private ReactorNettyKeepAliveCheck() {}

    /** Logs the warning once if the class path's Reactor Netty is affected; quiet when there is none. */
    static void warnIfAffected(@Nullable ClassLoader classLoader) {
        String warning = warning(version(classLoader));
        if (warning != null) {
            logger.warn(warning);
        }
    }

    /** The warning for a Reactor Netty version, or null when it is not affected or not known. */
    static @Nullable String warning(@Nullable String version) {
        if (version == null || !isBefore138(version)) {
            return null;
        }
        return "Reactor Netty " + version + " serves the probes (/readyz, /healthz) and /actuator: before 1.3.8 it"
                + " sometimes leaves a request on a kept-alive connection unanswered (reactor-netty issues 4188, 4361),"
                + " so a Prometheus scrape or a monitor that reuses connections can time out. Use Spring Boot 4.0.9 or"
                + " later (it brings Reactor Netty 1.3.8), or manage io.projectreactor.netty:reactor-netty-http and"
                + " reactor-netty-core at 1.3.8 or later.";
    }

    private static boolean isBefore138(String version) {
        String[] parts = version.split("[.-]");
        if (parts.length < 3) {
            return false;
        }
        try {
            int major = Integer.parseInt(parts[0]);
            int minor = Integer.parseInt(parts[1]);
            int patch = Integer.parseInt(parts[2]);
            return major < 1 || (major == 1 && (minor < 3 || (minor == 3 && patch < 8)));
        } catch (NumberFormatException ex) {
            return false; // a snapshot or another scheme: not ours to judge
        }
    }

    private static @Nullable String version(@Nullable ClassLoader classLoader) {
        try {
            Class<?> server = Class.forName(SERVER_CLASS, false, classLoader);
            Package pkg = server.getPackage();
            return (pkg != null) ? pkg.getImplementationVersion() : null;
        } catch (ClassNotFoundException | LinkageError ex) {
            return null;
        }
    }
}
