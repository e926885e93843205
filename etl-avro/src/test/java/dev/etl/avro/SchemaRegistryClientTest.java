package dev.etl.avro;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.catchThrowableOfType;

import java.nio.file.Path;
import java.time.Duration;
import org.apache.avro.Schema;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

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
