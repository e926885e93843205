package dev.etl.clickhouse;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

class ClickHouseErrorsTest {
    private static boolean isTransient(int status, String body) {
        return ClickHouseErrors.isTransient(FakeTransport.http(status, body));
    }

    private static boolean isTransient(ClickHouseRequestException.Kind kind) {
        return ClickHouseErrors.isTransient(new ClickHouseRequestException(kind, -1, -1, "x", null));
    }

    @Test
    void clientSideFailuresAreTransient() {
        assertThat(isTransient(ClickHouseRequestException.Kind.CONNECT)).isTrue();
        assertThat(isTransient(ClickHouseRequestException.Kind.TIMEOUT)).isTrue();
        assertThat(isTransient(ClickHouseRequestException.Kind.IO)).isTrue();
    }

    @Test
    void parseTypeAndSchemaErrorsArePermanentWhateverTheStatus() {
        // 18.16 answers 500 for these: the code decides
        assertThat(isTransient(500, "Code: 27, e.displayText() = DB::Exception: Cannot parse input: expected \\t"))
                .isFalse();
        assertThat(isTransient(500, "Code: 33, e.displayText() = DB::Exception: Cannot read all data"))
                .isFalse();
        assertThat(isTransient(500, "Code: 53, e.displayText() = DB::Exception: Type mismatch"))
                .isFalse();
        assertThat(isTransient(404, "Code: 60, e.displayText() = DB::Exception: Table db.t doesn't exist."))
                .isFalse();
        assertThat(isTransient(404, "Code: 81, e.displayText() = DB::Exception: Database nope doesn't exist"))
                .isFalse();
        assertThat(isTransient(400, "Code: 16, e.displayText() = DB::Exception: No such column x"))
                .isFalse();
        assertThat(isTransient(400, "Code: 62, e.displayText() = DB::Exception: Syntax error"))
                .isFalse();
        assertThat(isTransient(404, "Code: 115, e.displayText() = DB::Exception: Unknown setting x"))
                .isFalse();
        assertThat(isTransient(516, "Code: 516. DB::Exception: default: Authentication failed"))
                .isFalse();
        assertThat(isTransient(500, "DB::Exception: Cannot parse something (no code)"))
                .isFalse();
    }

    @Test
    void overloadAndCoordinationErrorsAndBare5xxAreTransient() {
        assertThat(isTransient(500, "Code: 252, e.displayText() = DB::Exception: Too many parts (300)"))
                .isTrue();
        assertThat(isTransient(500, "Code: 242, e.displayText() = DB::Exception: Table is in readonly mode"))
                .isTrue();
        assertThat(isTransient(500, "Code: 225, e.displayText() = DB::Exception: Cannot get ZooKeeper"))
                .isTrue();
        assertThat(isTransient(500, "Code: 241, e.displayText() = DB::Exception: Memory limit exceeded"))
                .isTrue();
        assertThat(isTransient(503, "Service Unavailable")).isTrue();
        assertThat(isTransient(502, "")).isTrue();
        assertThat(isTransient(500, "Code: 1000, e.displayText() = DB::Exception: something new"))
                .isTrue();
    }

    @Test
    void unknownClientErrorsArePermanent() {
        assertThat(isTransient(403, "Forbidden")).isFalse();
        assertThat(isTransient(400, "Bad request")).isFalse();
    }

    @Test
    void exceptionCodeHeaderWinsOverTheBody() {
        assertThat(ClickHouseHttpTransport.serverCode("60", "Code: 27")).isEqualTo(60);
        assertThat(ClickHouseHttpTransport.serverCode(null, "Code: 27, e.displayText()"))
                .isEqualTo(27);
        assertThat(ClickHouseHttpTransport.serverCode(null, "nothing")).isEqualTo(-1);
    }
}
