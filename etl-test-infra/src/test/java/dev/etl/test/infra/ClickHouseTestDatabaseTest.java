package dev.etl.test.infra;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

class ClickHouseTestDatabaseTest {

    @Test
    void namesAreUniqueLowerCaseIdentifiers() {
        String first = ClickHouseTestDatabase.uniqueName("My$Nested.ClassIT");
        String second = ClickHouseTestDatabase.uniqueName("My$Nested.ClassIT");

        assertThat(first).matches("t_my_nested_classit_[0-9a-f]{10}").isNotEqualTo(second);
    }

    @Test
    void longHintsAreCut() {
        assertThat(ClickHouseTestDatabase.uniqueName("x".repeat(100))).hasSize("t_".length() + 40 + 1 + 10);
    }
}
