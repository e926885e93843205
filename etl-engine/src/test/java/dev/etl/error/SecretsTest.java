package dev.etl.error;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

class SecretsTest {

    @Test
    void secretKeysAreRecognisedByName() {
        assertThat(Secrets.isSecretKey("etl.sink.clickhouse.password")).isTrue();
        assertThat(Secrets.isSecretKey("etl.avro.registry.password")).isTrue();
        assertThat(Secrets.isSecretKey("sasl.jaas.config")).isTrue();
        assertThat(Secrets.isSecretKey("spring.kafka.properties[sasl.jaas.config]"))
                .isTrue();
        assertThat(Secrets.isSecretKey("SPRING_KAFKA_PROPERTIES_SASL_JAAS_CONFIG"))
                .isTrue();
        assertThat(Secrets.isSecretKey("spring.ssl.bundle.jks.infra.truststore.password"))
                .isTrue();
        assertThat(Secrets.isSecretKey("ssl.key.password")).isTrue();
        assertThat(Secrets.isSecretKey("sasl.oauthbearer.token.endpoint.url")).isTrue(); // over-masking is harmless
        assertThat(Secrets.isSecretKey("basic.auth.credentials.source")).isTrue();
        assertThat(Secrets.isSecretKey("schema.registry.api-key")).isTrue();
        assertThat(Secrets.isSecretKey("spring.ssl.bundle.pem.x.keystore.private-key"))
                .isTrue();
        assertThat(Secrets.isSecretKey("etl.sink.clickhouse.username")).isFalse();
        assertThat(Secrets.isSecretKey("etl.sink.clickhouse.table")).isFalse();
        assertThat(Secrets.isSecretKey("spring.kafka.bootstrap-servers")).isFalse();
        assertThat(Secrets.isSecretKey("etl.source.kafka.topics")).isFalse();
        assertThat(Secrets.isSecretKey(null)).isFalse();
    }

    @Test
    void thePasswordOfUrlUserInfoIsMasked() {
        assertThat(Secrets.mask("GET https://etl:s3cret@registry:8081/subjects failed"))
                .isEqualTo("GET https://etl:******@registry:8081/subjects failed");
        assertThat(Secrets.mask("a http://u:p%40ss@h:1 and jdbc:clickhouse://x:y@ch:8123/db"))
                .isEqualTo("a http://u:******@h:1 and jdbc:clickhouse://x:******@ch:8123/db");
        assertThat(Secrets.mask("https://user@host:8443/path")).isEqualTo("https://user@host:8443/path");
        assertThat(Secrets.mask("mail me at a@b.c, see https://host/x"))
                .isEqualTo("mail me at a@b.c, see https://host/x");
    }

    @Test
    void valuesAssignedToSecretNamesAreMasked() {
        assertThat(Secrets.mask("password=hunter2 user=etl")).isEqualTo("password=****** user=etl");
        assertThat(Secrets.mask("ssl.truststore.password = hunter2, ssl.truststore.type = PKCS12"))
                .isEqualTo("ssl.truststore.password = ******, ssl.truststore.type = PKCS12");
        assertThat(Secrets.mask("org.apache.kafka.common.security.scram.ScramLoginModule required username=\"etl\" "
                        + "password=\"hunter2\";"))
                .isEqualTo("org.apache.kafka.common.security.scram.ScramLoginModule required username=\"etl\" "
                        + "password=\"******\";");
        assertThat(Secrets.mask("{\"user\":\"etl\",\"password\":\"hunter2\",\"n\":1}"))
                .isEqualTo("{\"user\":\"etl\",\"password\":\"******\",\"n\":1}");
        assertThat(Secrets.mask("?user=etl&password=hunter2&database=db"))
                .isEqualTo("?user=etl&password=******&database=db");
        assertThat(Secrets.mask("token: abc.def.ghi")).isEqualTo("token: ******");
        assertThat(Secrets.mask("Code: 193, e.displayText() = DB::Exception: Wrong password for user etl"))
                .isEqualTo("Code: 193, e.displayText() = DB::Exception: Wrong password for user etl");
    }

    @Test
    void aRawAtSignSlashOrPercentInAUrlPasswordIsMaskedWhole() {
        // URLs that do not parse, as URI.create's message echoes them: nothing of the password may remain
        assertThat(Secrets.mask("URI https://etl:hun@ter2@registry:8081/apis/ccompat/v7 has no host"))
                .isEqualTo("URI https://etl:******@registry:8081/apis/ccompat/v7 has no host");
        assertThat(Secrets.mask("Malformed escape pair at index 15: https://etl:100%pure@ch-1:8443"))
                .isEqualTo("Malformed escape pair at index 15: https://etl:******@ch-1:8443");
        assertThat(Secrets.mask("got https://etl:pa/ss@ch-1:8443/x")).isEqualTo("got https://etl:******@ch-1:8443/x");
        assertThat(Secrets.mask("{\"url\":\"https://etl:p@ss@h:1\",\"n\":1}"))
                .isEqualTo("{\"url\":\"https://etl:******@h:1\",\"n\":1}");
        // a user name with an @ (an e-mail address) does not hide the password from the mask
        assertThat(Secrets.mask("https://me@corp.example:hunter2@registry/x"))
                .isEqualTo("https://me@corp.example:******@registry/x");
    }

    @Test
    void anEscapedQuoteDoesNotEndAQuotedSecret() {
        assertThat(Secrets.mask("ScramLoginModule required username=\"etl\" password=\"hun\\\"ter2\";"))
                .isEqualTo("ScramLoginModule required username=\"etl\" password=\"******\";");
        assertThat(Secrets.mask("PlainLoginModule required password='it\\'s-secret' user_name='etl';"))
                .isEqualTo("PlainLoginModule required password='******' user_name='etl';");
        assertThat(Secrets.mask("{\"password\":\"a\\\"b\\\\\",\"n\":1}"))
                .isEqualTo("{\"password\":\"******\",\"n\":1}");
    }

    @Test
    void userInfoSettingsAreSecrets() {
        assertThat(Secrets.isSecretKey("basic.auth.user.info")).isTrue();
        assertThat(Secrets.isSecretKey("schema.registry.basic.auth.user.info")).isTrue();
        assertThat(Secrets.isSecretKey("SCHEMA_REGISTRY_BASIC_AUTH_USER_INFO")).isTrue();
        assertThat(Secrets.isSecretKey("etl.avro.registry.user-info")).isTrue();
        assertThat(Secrets.isSecretKey("userinfo")).isTrue();
        assertThat(Secrets.isSecretKey("Authorization")).isTrue();
        assertThat(Secrets.mask("basic.auth.user.info=etl:hunter2, basic.auth.credentials.source=USER_INFO"))
                .doesNotContain("hunter2")
                .startsWith("basic.auth.user.info=******");
        assertThat(Secrets.mask("{userInfo=etl:hunter2}")).isEqualTo("{userInfo=******}");
    }

    @Test
    void authorizationAndBearerValuesAreMasked() {
        assertThat(Secrets.mask("Authorization: Basic ZXRsOmh1bnRlcjI=")).isEqualTo("Authorization: Basic ******");
        assertThat(Secrets.mask("headers {authorization=[Bearer eyJhbGciOiJIUzI1NiJ9.e30.sig], accept=[*/*]}"))
                .isEqualTo("headers {authorization=[Bearer ******], accept=[*/*]}");
        assertThat(Secrets.mask("{\"Authorization\": \"Basic ZXRsOmh1bnRlcjI=\"}"))
                .doesNotContain("ZXRsOmh1bnRlcjI");
        assertThat(Secrets.mask("refused token: bearer eyJhbGciOiJIUzI1NiJ9.e30.c2ln (expired)"))
                .isEqualTo("refused token: bearer ****** (expired)");
        assertThat(Secrets.mask("401: Bearer eyJhbGciOiJIUzI1NiJ9.e30.c2ln expired"))
                .isEqualTo("401: Bearer ****** expired");
        String prose = "the registry asks for a Bearer token or HTTP Basic authentication";
        assertThat(Secrets.mask(prose)).isSameAs(prose);
    }

    @Test
    void textWithoutSecretsIsReturnedAsIs() {
        String text = "stage 'to-row' failed at orders-3@17: java.lang.NumberFormatException: For input string: \"x\"";
        assertThat(Secrets.mask(text)).isSameAs(text);
        assertThat(Secrets.mask((String) null)).isNull();
        assertThat(Secrets.mask("")).isEmpty();
    }

    @Test
    void aThrowableToLogIsACopyWithMaskedMessagesAndTheSameFrames() {
        IllegalStateException root =
                new IllegalStateException("GET https://etl:hunter2@registry:8081/subjects refused");
        RuntimeException top = new RuntimeException("fetch failed (password=hunter2)", root);

        Throwable masked = Secrets.mask(top);

        assertThat(masked).isNotSameAs(top).hasMessage("java.lang.RuntimeException: fetch failed (password=******)");
        assertThat(masked.getStackTrace()).isEqualTo(top.getStackTrace());
        assertThat(masked.getCause())
                .hasMessage("java.lang.IllegalStateException: GET https://etl:******@registry:8081/subjects refused");
        assertThat(masked.getCause().getStackTrace()).isEqualTo(root.getStackTrace());
        assertThat(masked.getCause().getCause()).isNull();
        IllegalStateException clean = new IllegalStateException("no secret here", new RuntimeException("nor here"));
        assertThat(Secrets.mask(clean)).isSameAs(clean);
        assertThat(Secrets.mask((Throwable) null)).isNull();
    }
}
