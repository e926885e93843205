package dev.etl.autoconfigure.health;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

class ReactorNettyKeepAliveCheckTest {

    @Test
    void warnsBefore138NamingTheVersionAndTheWayOut() {
        assertThat(ReactorNettyKeepAliveCheck.warning("1.3.6"))
                .contains("Reactor Netty 1.3.6", "kept-alive", "Spring Boot 4.0.9", "1.3.8");
        assertThat(ReactorNettyKeepAliveCheck.warning("1.3.7")).isNotNull();
        assertThat(ReactorNettyKeepAliveCheck.warning("1.2.18")).isNotNull();
        assertThat(ReactorNettyKeepAliveCheck.warning("1.3.0-M1")).isNotNull();
    }

    @Test
    void quietFrom138OnAndForWhatItCannotRead() {
        assertThat(ReactorNettyKeepAliveCheck.warning("1.3.8")).isNull();
        assertThat(ReactorNettyKeepAliveCheck.warning("1.3.10")).isNull();
        assertThat(ReactorNettyKeepAliveCheck.warning("1.4.0-M1")).isNull();
        assertThat(ReactorNettyKeepAliveCheck.warning("2.0.0")).isNull();
        assertThat(ReactorNettyKeepAliveCheck.warning(null)).isNull();
        assertThat(ReactorNettyKeepAliveCheck.warning("1.3")).isNull();
        assertThat(ReactorNettyKeepAliveCheck.warning("main-SNAPSHOT")).isNull();
    }
}
