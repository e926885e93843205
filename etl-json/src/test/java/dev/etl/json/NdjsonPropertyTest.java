package dev.etl.json;

import static org.assertj.core.api.Assertions.assertThat;

import dev.etl.error.DeserializationException;
import dev.etl.json.Calls.Order;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import org.junit.jupiter.api.Test;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;

/**
 * NDJSON parsing against a reference that knows nothing of our code: split the message's text at
 * {@code \n}, drop a trailing {@code \r} and surrounding blanks, skip blank lines, and
 * {@code ObjectMapper.readValue} each line on its own. Over seeded random messages (good documents,
 * blank lines, malformed and truncated lines, documents that do not bind, {@code null}s, CRLF or LF,
 * multibyte text, with or without a final newline) both must emit the same values in the same order,
 * and the deserializer must fail exactly when a line failed, naming the failed lines and their count.
 */
class NdjsonPropertyTest {
    private static final long SEED = 0x5EED_16L;
    private static final int MESSAGES = 600;
    private static final JsonMapper MAPPER = JsonMapper.shared();
    private static final String[] TEXT = {
        "a", "sku-1", "æøå", "中文", "😀", "tab\\tand\\nnewline", "quote\\\"", "\\u00e9", ""
    };

    @Test
    void ndjsonIntoAUserTypeMatchesLineByLineReadValue() throws Exception {
        check(JsonDeserializer.forType(Order.class).ndjson().build(), Order.class);
    }

    @Test
    void ndjsonIntoTreesMatchesLineByLineReadValue() throws Exception {
        check(JsonDeserializer.tree().ndjson().build(), JsonNode.class);
    }

    private <T> void check(JsonDeserializer<T> deserializer, Class<T> type) throws Exception {
        Random random = new Random(SEED);
        Calls calls = new Calls();
        int failing = 0;
        for (int m = 0; m < MESSAGES; m++) {
            String message = message(random);
            Reference<T> expected = reference(message, type);
            List<T> actual = new ArrayList<>();
            DeserializationException thrown = null;
            try {
                calls.emitInto(deserializer, m, message, actual);
            } catch (DeserializationException e) {
                thrown = e;
            }
            String what = "message " + m + " of seed " + SEED + ": "
                    + message.replace("\n", "\\n").replace("\r", "\\r");
            assertThat(actual).as(what).isEqualTo(expected.values);
            if (expected.failedLines.isEmpty()) {
                assertThat(thrown).as(what).isNull();
                continue;
            }
            failing++;
            assertThat(thrown).as(what).isNotNull();
            assertThat(thrown.offset()).as(what).isEqualTo(m);
            assertThat(thrown.reason())
                    .as(what)
                    .startsWith("NDJSON message: " + expected.values.size() + " emitted, " + expected.failedLines.size()
                            + " failed: line " + expected.failedLines.get(0) + ": ");
            for (int i = 0; i < Math.min(ElementFailures.DETAILED, expected.failedLines.size()); i++) {
                assertThat(thrown.reason()).as(what).contains("line " + expected.failedLines.get(i) + ": ");
            }
        }
        // The generator must exercise both outcomes, or the comparison proves little.
        assertThat(failing).isBetween(MESSAGES / 5, MESSAGES * 4 / 5);
    }

    private record Reference<T>(List<T> values, List<Integer> failedLines) {}

    private static <T> Reference<T> reference(String message, Class<T> type) {
        List<T> values = new ArrayList<>();
        List<Integer> failed = new ArrayList<>();
        String[] lines = message.split("\n", -1);
        int count = message.isEmpty() ? 0 : message.endsWith("\n") ? lines.length - 1 : lines.length;
        for (int i = 0; i < count; i++) {
            String line = lines[i].replaceAll("^[ \t\r]+|[ \t\r]+$", "");
            if (line.isEmpty()) {
                continue;
            }
            try {
                T value = MAPPER.readValue(line, type);
                if (value == null) {
                    failed.add(i + 1);
                } else {
                    values.add(value);
                }
            } catch (RuntimeException e) {
                failed.add(i + 1);
            }
        }
        return new Reference<>(values, failed);
    }

    private static String message(Random random) {
        StringBuilder sb = new StringBuilder();
        int lines = random.nextInt(12);
        String eol = random.nextBoolean() ? "\n" : "\r\n";
        for (int i = 0; i < lines; i++) {
            if (i > 0) {
                sb.append(random.nextInt(5) == 0 ? (eol.equals("\n") ? "\r\n" : "\n") : eol);
            }
            sb.append(" ".repeat(random.nextInt(3) == 0 ? random.nextInt(3) : 0));
            sb.append(line(random));
            sb.append(random.nextInt(4) == 0 ? " \t" : "");
        }
        if (lines > 0 && random.nextBoolean()) {
            sb.append(eol);
        }
        return sb.toString();
    }

    private static String line(Random random) {
        int kind = random.nextInt(20);
        String good = "{\"id\":" + random.nextInt(1_000_000) + ",\"sku\":\"" + TEXT[random.nextInt(TEXT.length)]
                + TEXT[random.nextInt(TEXT.length)] + "\",\"qty\":" + random.nextInt(100) + "}";
        if (kind < 12) {
            return good;
        }
        return switch (kind) {
            case 12, 13 -> ""; // blank
            case 14 -> good.substring(0, 1 + random.nextInt(good.length() - 2)); // truncated (at a char boundary)
            case 15 -> good.replace("\"qty\":", "\"qty\":" + "x"); // malformed token
            case 16 -> good.replace("\"qty\":", "\"qty\":\"many\",\"n\":"); // does not bind to Order (a tree is fine)
            case 17 -> "null";
            case 18 -> good + " " + good; // two documents on one line
            default -> "[" + good + "]"; // an array where an object is expected
        };
    }
}
