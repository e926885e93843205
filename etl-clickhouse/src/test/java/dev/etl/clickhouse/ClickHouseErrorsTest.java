package dev.etl.clickhouse;

import static org.assertj.core.api.Assertions.assertThat;

import dev.etl.clickhouse.ClickHouseErrors.Category;
import java.util.HashSet;
import java.util.Set;
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

    private static Category classify(int status, String body) {
        return ClickHouseErrors.classify(FakeTransport.http(status, body));
    }

    @Test
    void rowsRefusedForTheirContentAreDataRejectionsNotTransient() {
        // 18.16, reproduced: a MATERIALIZED throwIf / intDiv / toDate over the rows' values (HTTP 500, whole insert
        // refused)
        assertThat(classify(
                        500,
                        "Code: 395, e.displayText() = DB::Exception: Value passed to 'throwIf' function is non zero, "
                                + "e.what() = DB::Exception"))
                .isEqualTo(Category.DATA);
        assertThat(classify(500, "Code: 153, e.displayText() = DB::Exception: Division by zero"))
                .isEqualTo(Category.DATA);
        assertThat(classify(
                        500,
                        "Code: 38, e.displayText() = DB::Exception: Cannot parse date: value is too short: Cannot "
                                + "parse Date from String"))
                .isEqualTo(Category.DATA);
        // newer servers: constraints, enums, ranges (HTTP 400 or 500: the code decides)
        assertThat(classify(
                        400,
                        "Code: 469. DB::Exception: Constraint `positive` for table db.t (…) is violated at row 3. "
                                + "(VIOLATED_CONSTRAINT)"))
                .isEqualTo(Category.DATA);
        assertThat(classify(400, "Code: 691. DB::Exception: Unknown element 'x' for enum. (UNKNOWN_ELEMENT_OF_ENUM)"))
                .isEqualTo(Category.DATA);
        assertThat(classify(
                        500,
                        "Code: 190, e.displayText() = DB::Exception: Elements to be inserted to Nested "
                                + "have different sizes"))
                .isEqualTo(Category.DATA);
        assertThat(classify(500, "Code: 128, e.displayText() = DB::Exception: Too large array size"))
                .isEqualTo(Category.DATA);
        assertThat(classify(500, "Code: 27, e.displayText() = DB::Exception: Cannot parse input: expected \\t"))
                .isEqualTo(Category.DATA);
        assertThat(classify(500, "Code: 53, e.displayText() = DB::Exception: Type mismatch"))
                .isEqualTo(Category.DATA);
        // the text rule, for a code no list knows
        assertThat(classify(500, "Code: 1234, e.displayText() = DB::Exception: Cannot parse something new"))
                .isEqualTo(Category.DATA);
        assertThat(classify(500, "DB::Exception: Type mismatch somewhere (no code)"))
                .isEqualTo(Category.DATA);
        for (int code : new int[] {395, 153, 469, 691, 190, 128}) {
            assertThat(isTransient(500, "Code: " + code + ", e.displayText() = DB::Exception: x"))
                    .as("code %d", code)
                    .isFalse();
        }
    }

    @Test
    void whatEveryRowWouldFailIsConfiguration() {
        assertThat(classify(500, "Code: 33, e.displayText() = DB::Exception: Cannot read all data"))
                .isEqualTo(Category.CONFIGURATION);
        assertThat(classify(404, "Code: 60, e.displayText() = DB::Exception: Table db.t doesn't exist."))
                .isEqualTo(Category.CONFIGURATION);
        assertThat(classify(500, "Code: 368, e.displayText() = DB::Exception: Bad cast from type A to B"))
                .isEqualTo(Category.CONFIGURATION);
        assertThat(classify(516, "Code: 516. DB::Exception: default: Authentication failed"))
                .isEqualTo(Category.CONFIGURATION);
        assertThat(classify(500, "Code: 164, e.displayText() = DB::Exception: Cannot parse: readonly mode"))
                .as("the code wins over the text rule")
                .isEqualTo(Category.CONFIGURATION);
        for (int code : new int[] {50, 291, 452, 471, 472}) {
            assertThat(classify(500, "Code: " + code + ", e.displayText() = DB::Exception: x"))
                    .as("code %d", code)
                    .isEqualTo(Category.CONFIGURATION);
        }
        assertThat(classify(403, "Forbidden")).isEqualTo(Category.CONFIGURATION);
    }

    @Test
    void unknownCodesStayTransientUnlessTheSinkDeclaresThemRejections() {
        ClickHouseRequestException unknown = FakeTransport.http(500, "Code: 1234, e.displayText() = DB::Exception: x");
        assertThat(ClickHouseErrors.classify(unknown)).isEqualTo(Category.TRANSIENT);
        assertThat(ClickHouseErrors.classify(unknown, Set.of(1234))).isEqualTo(Category.DATA);
        // a declared code also wins over the configuration list (e.g. 36 BAD_ARGUMENTS from a function of the rows)
        ClickHouseRequestException badArguments = FakeTransport.http(
                500, "Code: 36, e.displayText() = DB::Exception: Unknown element 'x' for type Enum8");
        assertThat(ClickHouseErrors.classify(badArguments)).isEqualTo(Category.CONFIGURATION);
        assertThat(ClickHouseErrors.classify(badArguments, Set.of(36))).isEqualTo(Category.DATA);
        // client-side failures are transient whatever is declared
        assertThat(ClickHouseErrors.classify(FakeTransport.connectRefused(), Set.of(-1)))
                .isEqualTo(Category.TRANSIENT);
    }

    @Test
    void theListsAreDisjointAndPermanentIsTheirUnion() {
        Set<Integer> overlap = new HashSet<>(ClickHouseErrors.REJECTION_CODES);
        overlap.retainAll(ClickHouseErrors.CONFIGURATION_CODES);
        assertThat(overlap).isEmpty();
        overlap = new HashSet<>(ClickHouseErrors.TRANSIENT_CODES);
        overlap.retainAll(ClickHouseErrors.PERMANENT_CODES);
        assertThat(overlap).isEmpty();
        Set<Integer> union = new HashSet<>(ClickHouseErrors.REJECTION_CODES);
        union.addAll(ClickHouseErrors.CONFIGURATION_CODES);
        assertThat(ClickHouseErrors.PERMANENT_CODES).isEqualTo(union);
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
