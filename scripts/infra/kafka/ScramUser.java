import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;

import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.admin.ScramCredentialInfo;
import org.apache.kafka.clients.admin.ScramMechanism;
import org.apache.kafka.clients.admin.UserScramCredentialUpsertion;

/**
 * Creates or updates a SCRAM user through a running broker (AlterUserScramCredentials), for storage
 * that was formatted before scripts/infra.sh created the user with {@code --add-scram}. The password
 * comes from the environment variable ETL_SCRAM_PASSWORD, so it is on no command line and in no log.
 *
 * <pre>java -cp "$(cat .infra/kafka/classpath.txt)" scripts/infra/kafka/ScramUser.java 127.0.0.1:19092 etl SCRAM-SHA-512</pre>
 */
public final class ScramUser {

    public static void main(String[] args) throws Exception {
        if (args.length != 3) {
            System.err.println("usage: ScramUser <bootstrap> <user> <mechanism>  (password in ETL_SCRAM_PASSWORD)");
            System.exit(2);
        }
        String password = System.getenv("ETL_SCRAM_PASSWORD");
        if (password == null || password.isEmpty()) {
            System.err.println("ETL_SCRAM_PASSWORD is not set");
            System.exit(2);
        }
        ScramMechanism mechanism = ScramMechanism.fromMechanismName(args[2]);
        if (mechanism == ScramMechanism.UNKNOWN) {
            System.err.println("unknown SCRAM mechanism " + args[2]);
            System.exit(2);
        }
        try (Admin admin = Admin.create(Map.of(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, args[0],
                AdminClientConfig.REQUEST_TIMEOUT_MS_CONFIG, 20_000, AdminClientConfig.DEFAULT_API_TIMEOUT_MS_CONFIG, 30_000))) {
            admin.alterUserScramCredentials(List.of(new UserScramCredentialUpsertion(args[1],
                    new ScramCredentialInfo(mechanism, 8192), password))).all().get(30, TimeUnit.SECONDS);
        }
        System.err.println("SCRAM credentials of " + args[1] + " (" + args[2] + ") stored");
    }

}
