package dev.etl.kafka;

import javax.net.ssl.SSLException;
import org.apache.kafka.common.errors.AuthenticationException;
import org.apache.kafka.common.errors.AuthorizationException;
import org.apache.kafka.common.errors.SaslAuthenticationException;
import org.apache.kafka.common.errors.SslAuthenticationException;

/**
 * Describes a client failure that no retry fixes — TLS (the broker's certificate not trusted, not
 * issued for the host name, no TLS on the port), SASL (wrong user, password or mechanism) or a
 * missing ACL — in the user's terms: which brokers, how the client connects, what went wrong and
 * where to look. Names only non-secret settings ({@code bootstrap.servers}, {@code security.protocol},
 * {@code sasl.mechanism}); never a password or a JAAS configuration.
 */
final class KafkaAccessFailure {
    private KafkaAccessFailure() {}

    /** Whether {@code e} is such a failure (authentication or authorization). */
    static boolean matches(Throwable e) {
        return e instanceof AuthenticationException || e instanceof AuthorizationException;
    }

    /**
     * {@code cannot authenticate to Kafka at bootstrap.servers=… (security.protocol=…, sasl.mechanism=…):
     * <what> (<the client's messages>)}.
     */
    static String describe(Throwable e, KafkaSourceConfig config) {
        Object protocol = config.consumerProperties().getOrDefault("security.protocol", "PLAINTEXT");
        Object mechanism = config.consumerProperties().get("sasl.mechanism");
        String how = "security.protocol=" + protocol + (mechanism == null ? "" : ", sasl.mechanism=" + mechanism);
        String where = "Kafka at bootstrap.servers=" + config.bootstrapServers() + " (" + how + ")";
        String causes = causes(e);
        if (e instanceof AuthorizationException) {
            return "not authorized by " + where + ": " + causes + "; the user needs READ and DESCRIBE on the topics "
                    + config.subscription() + ", READ on the group " + config.groupId()
                    + " (and WRITE on a dead-letter topic)";
        }
        String what;
        if (e instanceof SaslAuthenticationException) {
            what = "the broker refused the SASL login: wrong user name or password in sasl.jaas.config, or a "
                    + "mechanism the broker does not enable for that user";
        } else if (e instanceof SslAuthenticationException || hasCause(e, SSLException.class)) {
            what = tlsProblem(causes);
        } else {
            what = "authentication failed";
        }
        return "cannot authenticate to " + where + ": " + what + " (" + causes + ")";
    }

    private static String tlsProblem(String causes) {
        if (causes.contains("No subject alternative") || causes.contains("No name matching")) {
            return "the broker's certificate is not issued for the host the client connected to (a bootstrap server or "
                    + "an advertised listener): connect with a name its subject alternative names list";
        }
        if (causes.contains("PKIX")
                || causes.contains("certification path")
                || causes.contains("unable to find valid")) {
            return "the broker's certificate is not trusted: give the client a trust store holding the CA that issued "
                    + "it (spring.kafka.ssl.bundle, or spring.kafka.ssl.trust-store-location / ssl.truststore.location)";
        }
        if (causes.contains("Unrecognized SSL message")
                || causes.contains("plaintext connection")
                || causes.contains("Unsupported or unrecognized SSL message")) {
            return "the port does not speak TLS: is it a PLAINTEXT or SASL_PLAINTEXT listener?";
        }
        return "the TLS handshake failed";
    }

    /** The messages of {@code e} and its causes, each once, joined by "; ". */
    private static String causes(Throwable e) {
        StringBuilder sb = new StringBuilder();
        String previous = null;
        for (Throwable t = e; t != null; t = t.getCause() == t ? null : t.getCause()) {
            String message = t.getMessage() == null ? t.getClass().getSimpleName() : t.getMessage();
            if (previous == null || !previous.contains(message)) {
                sb.append(sb.isEmpty() ? "" : "; ").append(message);
            }
            previous = message;
        }
        return sb.toString();
    }

    private static boolean hasCause(Throwable e, Class<? extends Throwable> type) {
        for (Throwable t = e; t != null; t = t.getCause() == t ? null : t.getCause()) {
            if (type.isInstance(t)) {
                return true;
            }
        }
        return false;
    }
}
