package dev.etl.json;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.charset.StandardCharsets;
import org.junit.jupiter.api.Test;

class InputExcerptTest {

    private static String around(String text, int errorAtChar) {
        byte[] bytes = text.getBytes(StandardCharsets.UTF_8);
        int at = text.substring(0, errorAtChar).getBytes(StandardCharsets.UTF_8).length;
        return InputExcerpt.around(bytes, 0, bytes.length, at);
    }

    @Test
    void shortInputIsShownWholeWithTheMarkAtTheError() {
        assertThat(around("{\"a\":x}", 5)).isEqualTo("{\"a\":>>>x}");
        assertThat(around("{\"a\":", 5)).isEqualTo("{\"a\":>>>");
        assertThat(around("x", 0)).isEqualTo(">>>x");
    }

    @Test
    void longInputIsCutToThirtyTwoCharactersOnEachSide() {
        String text = "a".repeat(100) + "X" + "b".repeat(100);

        assertThat(around(text, 100)).isEqualTo("..." + "a".repeat(32) + ">>>X" + "b".repeat(31) + "...");
    }

    @Test
    void multibyteCharactersCountAsOneAndAreNeverSplit() {
        String text = "ø".repeat(50) + "😀" + "中".repeat(50);

        String excerpt = around(text, 50);

        assertThat(excerpt).isEqualTo("..." + "ø".repeat(32) + ">>>😀" + "中".repeat(31) + "...");
    }

    @Test
    void aPositionInsideAMultibyteCharacterMovesToItsStart() {
        byte[] bytes = "ab中cd".getBytes(StandardCharsets.UTF_8);

        assertThat(InputExcerpt.around(bytes, 0, bytes.length, 3)).isEqualTo("ab>>>中cd");
    }

    @Test
    void onlyTheGivenRangeIsShown() {
        byte[] bytes = "line one\nline two\nline three".getBytes(StandardCharsets.UTF_8);

        assertThat(InputExcerpt.around(bytes, 9, 17, 14)).isEqualTo("line >>>two");
    }

    @Test
    void controlCharactersAndLineSeparatorsAreEscapedAndInvalidUtf8IsReplaced() {
        byte[] bytes = {'a', '\n', 'b', '\r', 0, 0x7F, (byte) 0xE2, (byte) 0x80, (byte) 0xA8, (byte) 0xFF, 'c'};

        assertThat(InputExcerpt.around(bytes, 0, bytes.length, 10))
                .isEqualTo("a\\nb\\r\\u0000\\u007F\\u2028\uFFFD>>>c");
    }

    @Test
    void printableCutsLongTextAndEscapesIt() {
        assertThat(InputExcerpt.printable("x\ny", 10)).isEqualTo("x\\ny");
        assertThat(InputExcerpt.printable("abcdefghijkl", 5)).isEqualTo("abcde...");
    }
}
