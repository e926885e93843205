package dev.etl.json.clickhouse;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.charset.StandardCharsets;
import java.util.Random;
import org.junit.jupiter.api.Test;

/** Doubles and floats read from their text are the JDK parser's, bit for bit, over random and edge values. */
class JsonNumbersTest {

    private static void same(String text) {
        byte[] b = text.getBytes(StandardCharsets.US_ASCII);
        assertThat(Double.doubleToRawLongBits(JsonNumbers.toDouble(b, 0, b.length)))
                .as(text)
                .isEqualTo(Double.doubleToRawLongBits(Double.parseDouble(text)));
        assertThat(Float.floatToRawIntBits(JsonNumbers.toFloat(b, 0, b.length)))
                .as(text)
                .isEqualTo(Float.floatToRawIntBits(Float.parseFloat(text)));
    }

    @Test
    void doublesAndFloatsAreCorrectlyRounded() {
        for (String text : new String[] {
            "0",
            "-0",
            "1",
            "0.1",
            "2.2250738585072011e-308",
            "2.2250738585072014e-308",
            "4.9e-324",
            "2.4e-324",
            "2.5e-324",
            "1.7976931348623157e308",
            "1.7976931348623158e308",
            "1.7976931348623159e308",
            "1e309",
            "1e-400",
            "9007199254740993",
            "9007199254740992.5",
            "123456789012345678",
            "0.30000000000000004",
            "1.00000017881393432617187499",
            "3.4028235e38",
            "1.4e-45",
            "7.0e-46",
            "1e23",
            "8.41e21",
            "5e-324",
            "1448997445238699",
            "-1.5e-300",
            "0.000001",
            "123.456e-7",
            "1e22",
            "1e-22"
        }) {
            same(text);
        }
        Random random = new Random(33);
        for (int i = 0; i < 200_000; i++) {
            double d = Double.longBitsToDouble(random.nextLong());
            if (Double.isFinite(d)) {
                same(Double.toString(d));
            }
            same(Double.toString(random.nextDouble() * Math.pow(10, random.nextInt(40) - 20)));
            StringBuilder digits = new StringBuilder();
            int n = 1 + random.nextInt(19);
            for (int k = 0; k < n; k++) {
                digits.append((char) ('0' + random.nextInt(10)));
            }
            String s = digits.toString().replaceFirst("^0+(?=.)", "");
            int point = random.nextInt(s.length() + 1);
            String text = (point == s.length() ? s : s.substring(0, point) + "." + s.substring(point)) + "e"
                    + (random.nextInt(700) - 350);
            if (text.startsWith(".")) {
                text = "0" + text;
            }
            same(text);
        }
    }
}
