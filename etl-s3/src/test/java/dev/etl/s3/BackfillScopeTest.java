package dev.etl.s3;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.List;
import org.junit.jupiter.api.Test;

class BackfillScopeTest {

    private static WorkItem item(String bucket, String key) {
        return new WorkItem("ndjson", bucket, key, 0, -1, 10, "");
    }

    @Test
    void underAPrefixOnlyKeysOfTheBucketUnderItAreInside() {
        BackfillScope scope = BackfillScope.prefix("orders-archive", "orders/2025/");
        assertThat(scope.outside(item("orders-archive", "orders/2025/01/part-0.ndjson")))
                .isNull();
        assertThat(scope.outside(item("payroll", "orders/2025/01/part-0.ndjson")))
                .contains("s3://payroll/orders/2025/01/part-0.ndjson", "not bucket orders-archive", "not read");
        assertThat(scope.outside(item("orders-archive", "orders/2024/part-0.ndjson")))
                .contains("s3://orders-archive/orders/2024/part-0.ndjson", "not under prefix 'orders/2025/'");
        assertThat(scope.outside(item("orders-archive", "orders/2025/../../secrets/x.ndjson")))
                .contains("'..' segment");
        assertThat(scope.outside(item("orders-archive", "orders/2025/./x.ndjson")))
                .isNotNull();
        assertThat(scope.outside(item("orders-archive", "orders/2025/a..b.ndjson")))
                .as("dots inside a segment are a name")
                .isNull();
    }

    @Test
    void theWholeBucketIsAnEmptyPrefix() {
        BackfillScope scope = BackfillScope.prefix("b", null);
        assertThat(scope.outside(item("b", "anything/x.avro"))).isNull();
        assertThat(scope.outside(item("c", "anything/x.avro"))).isNotNull();
    }

    @Test
    void aManifestAdmitsItsKeysOnly() {
        BackfillScope scope = BackfillScope.keys("b", List.of("a/1.avro", "a/2.avro"));
        assertThat(scope.outside(item("b", "a/2.avro"))).isNull();
        assertThat(scope.outside(item("b", "a/3.avro"))).contains("not one of the 2 key(s) of its manifest");
        assertThat(scope.outside(item("c", "a/1.avro"))).contains("not bucket b");
    }

    @Test
    void theMessageIsBoundedAndPrintable() {
        BackfillScope scope = BackfillScope.prefix("b", "p/");
        String message = scope.outside(item("b", "x\n2026-01-01 INFO forged log line" + "y".repeat(500)));
        assertThat(message).doesNotContain("\n").contains("x?2026").hasSizeLessThan(400);
    }

    @Test
    void theConfigRequiresTheBucket() {
        assertThatThrownBy(() -> ReaderFixtures.config().bucket(null).build())
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("bucket is required");
        assertThat(ReaderFixtures.config().prefix("p/").build().scope()).isEqualTo(BackfillScope.prefix("b", "p/"));
        assertThatThrownBy(() -> BackfillScope.keys("b", List.of())).isInstanceOf(IllegalArgumentException.class);
    }
}
