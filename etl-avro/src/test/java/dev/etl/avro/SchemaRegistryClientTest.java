package dev.etl.avro;

import static java.nio.charset.StandardCharsets.UTF_8;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.catchThrowableOfType;

import ch.qos.logback.classic.Level;
import ch.qos.logback.classic.Logger;
import ch.qos.logback.classic.spi.ILoggingEvent;
import ch.qos.logback.core.read.ListAppender;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Base64;
import java.util.Random;
import org.apache.avro.Schema;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import org.slf4j.LoggerFactory;

class SchemaRegistryClientTest {
    private static final Schema POINT =
            TestSchemas.parse("{\"type\":\"record\",\"name\":\"P\",\"fields\":[{\"name\":\"x\",\"type\":\"int\"}]}");

    private final StubRegistry stub = newStub();

    private static StubRegistry newStub() {
        try {
            return new StubRegistry();
        } catch (java.io.IOException e) {
            throw new java.io.UncheckedIOException(e);
        }
    }

    @AfterEach
    void stop() {
        stub.close();
    }

    private SchemaRegistryClient.Builder client() {
        return SchemaRegistryClient.builder(stub.url() + "/").backoff(Duration.ofMillis(10), Duration.ofMillis(20));
    }

    @Test
    void schemaByIdIsFetchedOnceAndCachedForever() {
        stub.put(3, POINT);
        SchemaRegistryClient client = client().build();
        assertThat(client.schemaById(3)).isEqualTo(POINT);
        assertThat(client.schemaById(3)).isSameAs(client.schemaById(3));
        assertThat(stub.requests).hasValue(1);
    }

    @Test
    void unknownIdIsAnsweredFromTheNegativeCacheUntilItsTtlExpires() throws Exception {
        SchemaRegistryClient client =
                client().notFoundTtl(Duration.ofMillis(300)).build();
        SchemaRegistryException first = catchThrowableOfType(SchemaRegistryException.class, () -> client.schemaById(9));
        assertThat(first.notFound()).isTrue();
        assertThat(first.errorCode()).isEqualTo(SchemaRegistryException.SCHEMA_NOT_FOUND);
        assertThatThrownBy(() -> client.schemaById(9))
                .isInstanceOf(SchemaRegistryException.class)
                .hasMessageContaining("cached");
        assertThat(stub.requests).hasValue(1);

        Thread.sleep(350);
        stub.put(9, POINT);
        assertThat(client.schemaById(9)).isEqualTo(POINT);
        assertThat(stub.requests).hasValue(2);
    }

    @Test
    void serverErrorsAreRetriedWithinTheCall() {
        stub.put(1, POINT);
        stub.failuresLeft.set(2);
        assertThat(client().maxAttempts(3).build().schemaById(1)).isEqualTo(POINT);
        assertThat(stub.requests).hasValue(3);
    }

    @Test
    void clientErrorsAreNotRetried() {
        stub.failStatus = 401;
        stub.failuresLeft.set(5);
        SchemaRegistryException e = catchThrowableOfType(
                SchemaRegistryException.class,
                () -> client().maxAttempts(3).build().schemaById(1));
        assertThat(e.httpStatus()).isEqualTo(401);
        assertThat(e.notFound()).isFalse();
        assertThat(stub.requests).hasValue(1);
    }

    @Test
    void aSlowRegistryCostsAtMostTheCallTimeout() {
        stub.put(1, POINT);
        stub.delayMs = 3_000;
        SchemaRegistryClient client = client().requestTimeout(Duration.ofMillis(200))
                .callTimeout(Duration.ofMillis(600))
                .maxAttempts(10)
                .build();
        long start = System.nanoTime();
        SchemaRegistryException e = catchThrowableOfType(SchemaRegistryException.class, () -> client.schemaById(1));
        long elapsedMs = (System.nanoTime() - start) / 1_000_000;
        assertThat(e.notFound()).isFalse();
        assertThat(e.getMessage()).contains("unavailable", "600 ms");
        assertThat(elapsedMs).isLessThan(1_500);
    }

    @Test
    void afterAnOutageUncachedIdsFailAtOnceDuringTheCooldown() {
        stub.failuresLeft.set(100);
        SchemaRegistryClient client = client().maxAttempts(2)
                .unavailableCooldown(Duration.ofSeconds(30))
                .build();
        assertThatThrownBy(() -> client.schemaById(1)).isInstanceOf(SchemaRegistryException.class);
        int requests = stub.requests.get();
        assertThatThrownBy(() -> client.schemaById(2))
                .isInstanceOf(SchemaRegistryException.class)
                .hasMessageContaining("cooling down");
        assertThat(stub.requests).hasValue(requests);
    }

    @Test
    void basicAuthIsSentAndThePasswordIsNeverShown() {
        stub.put(1, POINT);
        SchemaRegistryClient client = client().userInfo("etl:s3cret").build();
        client.schemaById(1);
        assertThat(stub.authorizations).containsExactly("Basic ZXRsOnMzY3JldA==");
        assertThat(client.toString()).contains("etl").doesNotContain("s3cret");
        assertThat(client().userInfo("etl:s3cret").toString()).doesNotContain("s3cret");
    }

    @Test
    void userInfoInTheUrlIsTheBasicAuthAndIsInNoUrlTheClientNames() {
        stub.put(1, POINT);
        String port = stub.url().substring(stub.url().lastIndexOf(':') + 1);
        SchemaRegistryClient client = SchemaRegistryClient.builder("http://etl:s3cret@127.0.0.1:" + port)
                .build();
        client.schemaById(1);
        assertThat(stub.authorizations).containsExactly("Basic ZXRsOnMzY3JldA==");
        assertThat(client.baseUrl()).isEqualTo("http://127.0.0.1:" + port);
        assertThat(client.toString()).contains("etl").doesNotContain("s3cret");
        assertThat(SchemaRegistryClient.builder("http://etl:s3cret@127.0.0.1:" + port)
                        .toString())
                .doesNotContain("s3cret");
        // an outage: the retries' messages and the cooldown's name the URL without the password
        stub.failuresLeft.set(100);
        assertThatThrownBy(() -> client.schemaById(2))
                .hasMessageNotContaining("s3cret")
                .hasMessageContaining("http://127.0.0.1:" + port);
        assertThatThrownBy(() -> client.schemaById(3)).hasMessageNotContaining("s3cret");
    }

    @Test
    void aProducerWritingRandomIdsCostsABoundedNumberOfRegistryCalls() {
        // the defaults: 10 lookups a second of ids the registry does not know
        SchemaRegistryClient client = client().build();
        Random random = new Random(42);
        long start = System.nanoTime();
        int refused = 0;
        for (int i = 0; i < 2_000; i++) {
            SchemaRegistryException e = catchThrowableOfType(
                    SchemaRegistryException.class, () -> client.schemaById(1_000 + random.nextInt(1 << 30)));
            assertThat(e.notFound())
                    .as("an unknown id is bad data, asked or not")
                    .isTrue();
            refused += e.getMessage().contains("not looked up") ? 1 : 0;
        }
        double seconds = (System.nanoTime() - start) / 1e9;
        assertThat(stub.requests.get()).isLessThanOrEqualTo(10 + (int) Math.ceil(seconds * 10));
        assertThat(refused).isGreaterThanOrEqualTo(2_000 - stub.requests.get());
    }

    @Test
    void theNegativeCacheHoldsABoundedNumberOfIds() {
        SchemaRegistryClient client =
                client().unknownIdLookupsPerSecond(1_000_000).maxUnknownIds(40).build();
        for (int id = 1; id <= 120; id++) {
            int unknown = id;
            assertThatThrownBy(() -> client.schemaById(unknown)).isInstanceOf(SchemaRegistryException.class);
            assertThat(client.unknownIdsCached()).isLessThanOrEqualTo(40);
        }
        assertThat(stub.requests).hasValue(120);
        assertThat(client.unknownIdLookupsRefused()).isZero();
    }

    @Test
    void lookupsThatFindTheirSchemaAreNotLimitedAndANewIdIsFoundOnceTheFloodLeavesAPermit() throws Exception {
        SchemaRegistryClient client = client().unknownIdLookupsPerSecond(2).build();
        for (int id = 1; id <= 20; id++) {
            stub.put(id, POINT);
            assertThat(client.schemaById(id)).isEqualTo(POINT); // a deployment's new schemas: never refused
        }
        int before = stub.requests.get();
        for (int id = 5_000; id < 5_050; id++) {
            int unknown = id;
            assertThatThrownBy(() -> client.schemaById(unknown)).isInstanceOf(SchemaRegistryException.class);
        }
        assertThat(stub.requests.get() - before)
                .as("registry calls for 50 unknown ids")
                .isLessThanOrEqualTo(3);
        stub.put(21, POINT);
        SchemaRegistryException refused =
                catchThrowableOfType(SchemaRegistryException.class, () -> client.schemaById(21));
        assertThat(refused.lookupRefused()).isTrue();
        assertThat(refused.notFound()).isTrue();
        assertThat(refused.httpStatus()).isEqualTo(-1);
        assertThat(refused.getMessage()).contains("schema id 21", "not looked up", "2 lookup(s) per second");
        Thread.sleep(600); // a permit comes back every 500 ms
        assertThat(client.schemaById(21)).isEqualTo(POINT);
        assertThat(client.unknownIdLookupsRefused()).isGreaterThanOrEqualTo(48);
    }

    @Test
    void anAnswerLongerThanTheLimitFailsTheCallWithoutRetryNorReadingIt() {
        stub.hugeAnswerBytes = 9 << 20; // over the default 8 MiB
        SchemaRegistryException declared = catchThrowableOfType(
                SchemaRegistryException.class, () -> client().build().schemaById(1));
        assertThat(declared).hasMessageContaining("longer than " + (8 << 20) + " bytes");
        assertThat(declared.notFound()).isFalse();
        assertThat(declared.invalidAnswer())
                .as("the registry is unusable, not the data")
                .isFalse();
        assertThat(stub.requests).hasValue(1);

        stub.chunked = true; // no Content-Length: cut when the bytes pass the limit
        SchemaRegistryException streamed = catchThrowableOfType(
                SchemaRegistryException.class,
                () -> client().maxResponseBytes(64 << 10).build().schemaById(2));
        assertThat(streamed).hasMessageContaining("longer than 65536 bytes");
        assertThat(stub.requests).hasValue(2);
    }

    @Test
    void anAnswerTrickledSlowerThanTheTimeoutsCostsAtMostTheCallTimeout() {
        stub.put(1, POINT);
        stub.trickleMs = 50; // ~70 bytes: headers at once, the body over 3.5 s
        SchemaRegistryClient client = client().requestTimeout(Duration.ofMillis(200))
                .callTimeout(Duration.ofMillis(600))
                .build();
        long start = System.nanoTime();
        SchemaRegistryException e = catchThrowableOfType(SchemaRegistryException.class, () -> client.schemaById(1));
        long elapsedMs = (System.nanoTime() - start) / 1_000_000;
        assertThat(e.getMessage()).contains("unavailable", "600 ms");
        assertThat(elapsedMs).isLessThan(1_500);
    }

    @Test
    void basicAuthOverPlainHttpIsWarnedOnceWithoutThePassword() {
        ListAppender<ILoggingEvent> logs = new ListAppender<>();
        Logger logger = (Logger) LoggerFactory.getLogger(SchemaRegistryClient.class);
        logs.start();
        logger.addAppender(logs);
        try {
            client().basicAuth("etl", "s3cret").build();
            SchemaRegistryClient.builder("https://registry.internal:8443")
                    .basicAuth("etl", "s3cret")
                    .build();
            client().build();
        } finally {
            logger.detachAppender(logs);
        }
        assertThat(logs.list).hasSize(1);
        ILoggingEvent warning = logs.list.get(0);
        assertThat(warning.getLevel()).isEqualTo(Level.WARN);
        assertThat(warning.getFormattedMessage())
                .contains(stub.url(), "user 'etl'", "plain http://", "https://")
                .doesNotContain("s3cret");
    }

    @ParameterizedTest
    @ValueSource(strings = {"p%zz", "p@ss", "p/ss", "100%"})
    void aUrlWhosePasswordDoesNotParseFailsWithoutShowingThePassword(String password) {
        String url = "https://etl:" + password + "@registry.internal:8443/apis/ccompat/v7";
        IllegalArgumentException e =
                catchThrowableOfType(IllegalArgumentException.class, () -> SchemaRegistryClient.builder(url));
        assertThat(e).hasMessageContaining("schema registry URL https://").hasMessageContaining("percent-encode");
        for (Throwable t = e; t != null; t = t.getCause()) {
            assertThat(t.getMessage()).doesNotContain(password.substring(1));
        }
    }

    @Test
    void aPlusInUrlUserInfoIsAPlus() {
        stub.put(1, POINT);
        String port = stub.url().substring(stub.url().lastIndexOf(':') + 1);
        SchemaRegistryClient.builder("http://etl:a+b%40c@127.0.0.1:" + port)
                .build()
                .schemaById(1);
        assertThat(stub.authorizations)
                .containsExactly("Basic " + Base64.getEncoder().encodeToString("etl:a+b@c".getBytes(UTF_8)));
    }

    @Test
    void theRegistrysErrorTextIsMasked() {
        stub.failStatus = 401;
        stub.failMessage = "rejected Authorization: Basic ZXRsOnMzY3JldA== for etl";
        stub.failuresLeft.set(1);
        assertThatThrownBy(() -> client().build().schemaById(1))
                .hasMessageContaining("401")
                .hasMessageContaining("rejected Authorization: Basic ******")
                .hasMessageNotContaining("ZXRsOnMzY3JldA");
    }

    @Test
    void anUnreadableTrustStoreNamesThePathButNotThePassword() {
        assertThatThrownBy(
                        () -> client().trustStore(Path.of("/nonexistent/trust.p12"), "hunter2".toCharArray(), "PKCS12"))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("/nonexistent/trust.p12")
                .hasMessageNotContaining("hunter2");
    }

    @Test
    void theApiCheckPassesOnTheApiBase() {
        client().build().checkApi();
    }

    @Test
    void theApiCheckFailsFastOnAWrongBasePathNamingTheUrlWithoutItsPassword() {
        String port = stub.url().substring(stub.url().lastIndexOf(':') + 1);
        SchemaRegistryClient wrong = SchemaRegistryClient.builder("http://etl:s3cret@127.0.0.1:" + port + "/apis")
                .maxAttempts(1)
                .build();
        assertThatThrownBy(wrong::checkApi)
                .isInstanceOf(SchemaRegistryException.class)
                .hasMessageContaining("schema registry http://127.0.0.1:" + port + "/apis does not answer the "
                        + "Confluent Schema Registry API")
                .hasMessageContaining("HTTP 404")
                .hasMessageContaining("wrong base path")
                .hasMessageContaining("/apis/ccompat/v7")
                .hasMessageNotContaining("s3cret");
        assertThat(stub.requests).as("a 404 is not retried").hasValue(1);
        assertThat(wrong.toString()).doesNotContain("s3cret");
    }

    @Test
    void theApiCheckRejectsAWebPage() {
        SchemaRegistryClient page =
                SchemaRegistryClient.builder(stub.url() + "/ui").maxAttempts(1).build();
        assertThatThrownBy(page::checkApi)
                .isInstanceOf(SchemaRegistryException.class)
                .hasMessageContaining("schema registry " + stub.url() + "/ui does not answer")
                .hasMessageContaining("did not answer JSON");
    }

    @Test
    void theApiCheckFailsWhenTheRegistryCannotBeReached() {
        stub.failuresLeft.set(100);
        SchemaRegistryClient down = client().maxAttempts(2).build();
        assertThatThrownBy(down::checkApi)
                .isInstanceOf(SchemaRegistryException.class)
                .hasMessageContaining("schema registry " + stub.url() + " does not answer")
                .hasMessageContaining("could not be asked")
                .hasMessageContaining("answered 500");
    }

    @Test
    void anInterruptedApiCheckSaysTheApplicationIsStoppingNotThatTheRegistryIsWrong() {
        stub.failuresLeft.set(100);
        SchemaRegistryClient client = client().maxAttempts(5).build();
        Thread.currentThread().interrupt();
        try {
            assertThatThrownBy(client::checkApi)
                    .isInstanceOf(SchemaRegistryException.class)
                    .hasMessageContaining("interrupted while checking schema registry " + stub.url())
                    .hasMessageContaining("the application is stopping")
                    .hasMessageNotContaining("does not answer");
            assertThat(Thread.currentThread().isInterrupted())
                    .as("the interrupt flag is kept")
                    .isTrue();
        } finally {
            Thread.interrupted();
        }
    }
}
