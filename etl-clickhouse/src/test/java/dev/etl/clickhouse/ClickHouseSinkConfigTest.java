package dev.etl.clickhouse;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

class ClickHouseSinkConfigTest {

    @ParameterizedTest
    @ValueSource(strings = {"100%pure", "hun@ter2", "pa/ss%zz", "p%40ss@x"})
    void aReplicaUrlWhosePasswordDoesNotParseIsRefusedWithoutShowingIt(String password) {
        String url = "https://etl:" + password + "@ch-1.internal:8443";
        Throwable e = org.assertj.core.api.Assertions.catchThrowable(() -> ClickHouseSinkConfig.builder()
                .table("shop", "orders")
                .shard(url)
                .build());
        assertThat(e).isInstanceOf(IllegalArgumentException.class).hasMessageContaining("ch-1.internal:8443");
        for (Throwable t = e; t != null; t = t.getCause()) {
            assertThat(t.getMessage()).doesNotContain(password.substring(1, 6));
        }
    }

    private static ClickHouseSinkConfig.Builder valid() {
        return ClickHouseSinkConfig.builder().table("db", "t").shard("http://127.0.0.1:18123");
    }

    @ParameterizedTest
    @ValueSource(
            strings = {
                "wait_end_of_query",
                "insert_deduplicate",
                "insert_deduplication_token",
                "async_insert",
                "send_progress_in_http_headers"
            })
    void settingsTheSinkOwnsAreRefusedByName(String key) {
        assertThatThrownBy(() -> valid().setting(key, "0").build())
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("'" + key + "'")
                .hasMessageContaining("set by the sink");
    }

    @Test
    void otherSettingsPassThrough() {
        assertThat(valid().setting("insert_quorum", "2").build().settings()).containsEntry("insert_quorum", "2");
        assertThatThrownBy(() -> valid().setting("a=b&c", "1").build()).hasMessageContaining("not an identifier");
    }

    @Test
    void shardsNeedReplicasWithHttpUris() {
        assertThatThrownBy(() -> ClickHouseSinkConfig.builder().table("db", "t").build())
                .hasMessageContaining("at least one shard");
        assertThatThrownBy(() -> ClickHouseSinkConfig.builder()
                        .table("db", "t")
                        .shard(new String[0])
                        .build())
                .hasMessageContaining("shard 0 has no replica");
        assertThatThrownBy(() -> ClickHouseSinkConfig.builder()
                        .table("db", "t")
                        .shard("tcp://x:9000")
                        .build())
                .hasMessageContaining("http(s)");
        assertThatThrownBy(() -> valid().table("db", " ").build()).hasMessageContaining("table");
    }

    @Test
    void passwordIsNeverPrinted() {
        assertThat(valid().credentials("etl", "hunter2").build().toString())
                .doesNotContain("hunter2")
                .contains("******");
    }

    @Test
    void insertsGoThroughClientV2ByDefaultAndRawHttpOnRequest() {
        ClickHouseSinkConfig defaults = valid().build();
        assertThat(defaults.transport()).isEqualTo(ClickHouseSinkConfig.Transport.CLIENT_V2);
        assertThat(defaults.toString()).contains("transport=CLIENT_V2");
        try (ClickHouseTransport t = ClickHouseSink.transport(defaults)) {
            assertThat(t).isInstanceOf(ClickHouseClientV2Transport.class);
        }
        ClickHouseSinkConfig http =
                valid().transport(ClickHouseSinkConfig.Transport.HTTP).build();
        try (ClickHouseTransport t = ClickHouseSink.transport(http)) {
            assertThat(t).isInstanceOf(ClickHouseHttpTransport.class);
        }
        assertThatThrownBy(() -> valid().transport(null).build())
                .isInstanceOf(NullPointerException.class)
                .hasMessageContaining("transport");
    }

    @Test
    void insertsAreRowBinaryByDefaultAndNativeOnRequest() {
        ClickHouseSinkConfig defaults = valid().build();
        assertThat(defaults.format()).isEqualTo(ClickHouseSinkConfig.DEFAULT_FORMAT);
        assertThat(defaults.toString()).contains("format=" + ClickHouseSinkConfig.DEFAULT_FORMAT);
        assertThat(valid().format(InsertFormat.NATIVE).build().format()).isEqualTo(InsertFormat.NATIVE);
        assertThatThrownBy(() -> valid().format(null).build())
                .isInstanceOf(NullPointerException.class)
                .hasMessageContaining("format");
    }

    @Test
    void extraRejectionCodesAreSortedAndNeverTransient() {
        assertThat(valid().build().rejectionCodes()).isEmpty();
        ClickHouseSinkConfig config = valid().rejectionCodes(1001, 36)
                .rejectionCodes(java.util.List.of(36))
                .build();
        assertThat(config.rejectionCodes()).containsExactly(36, 1001);
        assertThat(config.toString()).contains("rejectionCodes=[36, 1001]");
        assertThatThrownBy(() -> valid().rejectionCodes(252).build())
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("252")
                .hasMessageContaining("transient");
        assertThatThrownBy(() -> valid().rejectionCodes(0).build()).hasMessageContaining("positive");
    }

    @Test
    void toBuilderCopiesEverySettingAndChangesOnlyWhatItIsTold() {
        ClickHouseSinkConfig config = valid().shard("http://ch-2:8123")
                .credentials("etl", "hunter2")
                .transport(ClickHouseSinkConfig.Transport.HTTP)
                .compression(true)
                .setting("insert_quorum", "2")
                .rejectionCodes(1001)
                .deterministicBlocks(false)
                .build();
        assertThat(config.toBuilder().build()).isEqualTo(config).hasSameHashCodeAs(config);

        ClickHouseSinkConfig changed =
                config.toBuilder().setting("max_insert_threads", "4").build();
        assertThat(changed).isNotEqualTo(config);
        assertThat(changed.settings()).containsOnlyKeys("insert_quorum", "max_insert_threads");
        assertThat(changed.password()).isEqualTo("hunter2");
        assertThat(changed.shards()).isEqualTo(config.shards());
        assertThat(changed.rejectionCodes()).containsExactly(1001);
        assertThat(changed.toString()).doesNotContain("hunter2");
        assertThatThrownBy(() -> config.toBuilder().setting("query", "x").build())
                .isInstanceOf(IllegalArgumentException.class);
    }
}
