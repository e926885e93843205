package dev.etl.json;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.catchThrowableOfType;

import dev.etl.error.DeserializationException;
import dev.etl.error.ErrorClass;
import dev.etl.error.FatalPipelineException;
import dev.etl.json.Calls.Order;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Test;
import tools.jackson.core.type.TypeReference;
import tools.jackson.databind.DeserializationFeature;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.PropertyNamingStrategies;
import tools.jackson.databind.exc.MismatchedInputException;
import tools.jackson.databind.json.JsonMapper;
import tools.jackson.databind.node.NullNode;

class JsonDeserializerTest {
    private final Calls calls = new Calls();

    // ---- framings and targets ----------------------------------------------------------------

    @Test
    void aSingleDocumentBindsToTheUserType() throws Exception {
        JsonDeserializer<Order> orders = JsonDeserializer.forType(Order.class).build();

        assertThat(calls.emitted(orders, 5, "{\"id\":1,\"sku\":\"a-1\",\"qty\":2}"))
                .containsExactly(new Order(1, "a-1", 2));
        assertThat(orders.framing()).isEqualTo(JsonFraming.SINGLE);
    }

    @Test
    void aSingleDocumentBecomesATreeAndAnyJsonValueIsAcceptedAsOne() throws Exception {
        JsonDeserializer<JsonNode> trees = JsonDeserializer.tree().build();

        List<JsonNode> object = calls.emitted(trees, 0, "{\"a\":[1,2,{\"b\":null}],\"c\":\"d\"}");
        assertThat(object).singleElement().satisfies(node -> {
            assertThat(node.get("a").get(2).get("b").isNull()).isTrue();
            assertThat(node.get("c").asString()).isEqualTo("d");
        });
        assertThat(calls.emitted(trees, 1, "42"))
                .singleElement()
                .satisfies(n -> assertThat(n.asInt()).isEqualTo(42));
        assertThat(calls.emitted(trees, 2, "null")).containsExactly(NullNode.getInstance());
    }

    @Test
    void whitespaceAroundASingleDocumentIsAccepted() throws Exception {
        JsonDeserializer<Order> orders = JsonDeserializer.forType(Order.class).build();

        assertThat(calls.emitted(orders, 0, " \r\n\t{\"id\":1,\"sku\":\"a\",\"qty\":1}\n\n "))
                .containsExactly(new Order(1, "a", 1));
    }

    @Test
    void ndjsonEmitsOneValuePerLineInOrderSkippingBlankLinesAndToleratingCrLf() throws Exception {
        JsonDeserializer<Order> orders =
                JsonDeserializer.forType(Order.class).ndjson().build();

        String message = "{\"id\":1,\"sku\":\"a\",\"qty\":1}\r\n"
                + "\r\n"
                + "   \t\n"
                + "  {\"id\":2,\"sku\":\"b\",\"qty\":2}  \n"
                + "{\"id\":3,\"sku\":\"c\",\"qty\":3}"; // no final newline
        assertThat(calls.emitted(orders, 0, message))
                .containsExactly(new Order(1, "a", 1), new Order(2, "b", 2), new Order(3, "c", 3));
    }

    @Test
    void ndjsonLinesBecomeTrees() throws Exception {
        JsonDeserializer<JsonNode> trees = JsonDeserializer.tree().ndjson().build();

        assertThat(calls.emitted(trees, 0, "{\"a\":1}\n[1,2]\n\"s\"\nnull\n"))
                .extracting(JsonNode::toString)
                .containsExactly("{\"a\":1}", "[1,2]", "\"s\"", "null");
    }

    @Test
    void anArrayEmitsEachElementInOrder() throws Exception {
        JsonDeserializer<Order> orders =
                JsonDeserializer.forType(Order.class).array().build();

        assertThat(calls.emitted(
                        orders, 0, " [ {\"id\":1,\"sku\":\"a\",\"qty\":1},\n{\"id\":2,\"sku\":\"b\",\"qty\":2} ] "))
                .containsExactly(new Order(1, "a", 1), new Order(2, "b", 2));
        assertThat(calls.emitted(orders, 1, "[]")).isEmpty();
    }

    @Test
    void anArrayOfMixedValuesBecomesOneTreePerElement() throws Exception {
        JsonDeserializer<JsonNode> trees = JsonDeserializer.tree().array().build();

        assertThat(calls.emitted(trees, 0, "[{\"a\":{\"b\":[1]}}, 2, \"x\", null, [[]]]"))
                .extracting(JsonNode::toString)
                .containsExactly("{\"a\":{\"b\":[1]}}", "2", "\"x\"", "null", "[[]]");
    }

    @Test
    void aGenericTargetIsBoundThroughItsTypeReference() throws Exception {
        JsonDeserializer<Map<String, List<Integer>>> maps = JsonDeserializer.forType(
                        new TypeReference<Map<String, List<Integer>>>() {})
                .ndjson()
                .build();

        assertThat(calls.emitted(maps, 0, "{\"a\":[1,2]}\n{\"b\":[]}"))
                .containsExactly(Map.of("a", List.of(1, 2)), Map.of("b", List.of()));
    }

    @Test
    void oneInstanceReadsMessageAfterMessageIncludingAfterAFailure() throws Exception {
        JsonDeserializer<Order> orders =
                JsonDeserializer.forType(Order.class).ndjson().build();

        for (int i = 0; i < 50; i++) {
            assertThat(calls.emitted(orders, i, "{\"id\":" + i + ",\"sku\":\"s" + i + "\",\"qty\":1}\n"))
                    .containsExactly(new Order(i, "s" + i, 1));
            if (i % 10 == 0) {
                assertThatThrownBy(() -> calls.emitted(orders, 1000, "{\"id\":x}"))
                        .isInstanceOf(DeserializationException.class);
            }
        }
        assertThat(orders.failedDocuments()).isEqualTo(5);
    }

    // ---- the mapper --------------------------------------------------------------------------

    @Test
    void theApplicationsMapperDecidesNamingAndModules() throws Exception {
        JsonMapper snake = JsonMapper.builder()
                .propertyNamingStrategy(PropertyNamingStrategies.SNAKE_CASE)
                .build();
        record Line(long orderId, String skuCode) {}
        JsonDeserializer<Line> lines =
                JsonDeserializer.forType(Line.class).mapper(snake).build();

        assertThat(calls.emitted(lines, 0, "{\"order_id\":7,\"sku_code\":\"x\"}"))
                .containsExactly(new Line(7, "x"));
    }

    @Test
    void unknownPropertiesAreIgnoredAsJackson3DoesUnlessTheBuilderSaysFail() throws Exception {
        String json = "{\"id\":1,\"sku\":\"a\",\"qty\":1,\"extra\":true}";

        assertThat(calls.emitted(JsonDeserializer.forType(Order.class).build(), 0, json))
                .hasSize(1);
        JsonDeserializer<Order> strict = JsonDeserializer.forType(Order.class)
                .failOnUnknownProperties(true)
                .build();
        assertThatThrownBy(() -> calls.emitted(strict, 0, json))
                .isInstanceOf(DeserializationException.class)
                .hasMessageContaining("cannot bind to " + Order.class.getName())
                .hasMessageContaining("\"extra\"");
    }

    @Test
    void trailingTokensCannotBeAllowedBecauseTheFramingDecides() {
        assertThatThrownBy(() -> JsonDeserializer.forType(Order.class)
                        .feature(DeserializationFeature.FAIL_ON_TRAILING_TOKENS, false))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("decided by the framing");
    }

    // ---- single-document errors --------------------------------------------------------------

    @Test
    void aMalformedDocumentNamesTheOffsetTheBytePositionAndAnExcerpt() throws Exception {
        JsonDeserializer<Order> orders = JsonDeserializer.forType(Order.class).build();

        DeserializationException e = catchThrowableOfType(
                DeserializationException.class, () -> calls.emitted(orders, 42, "{\"id\":1,\"sku\":\"a\",\"qty\":x}"));

        assertThat(e.offset()).isEqualTo(42);
        assertThat(e.errorClass()).isEqualTo(ErrorClass.DESERIALIZATION);
        assertThat(e.stage()).isEqualTo("deserialize");
        assertThat(e.reason())
                .startsWith("malformed JSON: Unrecognized token 'x'")
                .endsWith(" at byte 24 near '{\"id\":1,\"sku\":\"a\",\"qty\":>>>x}'");
        assertThat(e).hasMessageContaining("@42").hasCauseInstanceOf(tools.jackson.core.JacksonException.class);
    }

    @Test
    void aDocumentThatDoesNotBindNamesTheTypeThePropertyAndThePosition() throws Exception {
        JsonDeserializer<Order> orders = JsonDeserializer.forType(Order.class).build();

        DeserializationException e = catchThrowableOfType(
                DeserializationException.class,
                () -> calls.emitted(orders, 3, "{\"id\":1,\"sku\":\"a\",\"qty\":\"many\"}"));

        assertThat(e.reason())
                .startsWith("cannot bind to " + Order.class.getName() + ": ")
                .contains("from String \"many\"")
                .contains("[\"qty\"])")
                .endsWith("at byte 24 near '{\"id\":1,\"sku\":\"a\",\"qty\":>>>\"many\"}'");
        assertThat(e).hasCauseInstanceOf(tools.jackson.databind.exc.InvalidFormatException.class);
    }

    @Test
    void anEmptyOrBlankMessageIsAnErrorForSingleAndArrayAndNothingForNdjson() throws Exception {
        for (String blank : List.of("", "  \r\n\t ")) {
            assertThatThrownBy(() ->
                            calls.emitted(JsonDeserializer.forType(Order.class).build(), 0, blank))
                    .isInstanceOf(DeserializationException.class)
                    .hasMessageContaining("empty message: no JSON document")
                    .hasCauseInstanceOf(MismatchedInputException.class);
            assertThatThrownBy(
                            () -> calls.emitted(JsonDeserializer.tree().array().build(), 0, blank))
                    .isInstanceOf(DeserializationException.class)
                    .hasMessageContaining("empty message: no JSON array");
            assertThat(calls.emitted(
                            JsonDeserializer.forType(Order.class).ndjson().build(), 0, blank))
                    .isEmpty();
        }
    }

    @Test
    void contentAfterASingleDocumentFailsIt() throws Exception {
        JsonDeserializer<JsonNode> trees = JsonDeserializer.tree().build();

        assertThatThrownBy(() -> calls.emitted(trees, 0, "{\"a\":1} {\"a\":2}"))
                .isInstanceOf(DeserializationException.class)
                .hasMessageContaining("Trailing token")
                .hasMessageContaining(" at byte 8 near '{\"a\":1} >>>{\"a\":2}'");
    }

    @Test
    void aJsonNullIsAnErrorForAUserType() throws Exception {
        assertThatThrownBy(() ->
                        calls.emitted(JsonDeserializer.forType(Order.class).build(), 9, "  null"))
                .isInstanceOf(DeserializationException.class)
                .hasMessageContaining(
                        "JSON null where " + Order.class.getName() + " was expected at byte 2 near '  >>>null'");
    }

    @Test
    void aTopLevelValueThatIsNotAnArrayFailsTheArrayFraming() throws Exception {
        assertThatThrownBy(() -> calls.emitted(
                        JsonDeserializer.forType(Order.class).array().build(), 0, "{\"id\":1}"))
                .isInstanceOf(DeserializationException.class)
                .hasMessageContaining("not a JSON array: it starts with START_OBJECT at byte 0");
        assertThatThrownBy(() -> calls.emitted(
                        JsonDeserializer.forType(Order.class).array().build(), 0, "nope"))
                .isInstanceOf(DeserializationException.class)
                .hasMessageContaining("not a JSON array: malformed JSON: Unrecognized token 'nope'");
    }

    /** Found by fuzzing (etl-fuzz JsonFramingFuzzTest): the array framing let Jackson's encoding failure out raw. */
    @Test
    void bytesJacksonCannotTakeForAnyEncodingFailTheArrayFramingAsADeserializationError() throws Exception {
        byte[] ucs4 = {0, 0, 0x7f, 0};
        for (JsonDeserializer<?> deserializer : List.of(
                JsonDeserializer.tree().array().build(),
                JsonDeserializer.forType(Order.class).array().build())) {
            assertThatThrownBy(() -> calls.emitted(deserializer, 4, ucs4))
                    .isInstanceOf(DeserializationException.class)
                    .hasMessageContaining("not a JSON array: malformed JSON: ")
                    .hasMessageContaining("UCS-4")
                    .hasCauseInstanceOf(tools.jackson.core.JacksonException.class);
            assertThat(((JsonDeserializer<?>) deserializer).failedDocuments()).isEqualTo(1);
        }
        assertThatThrownBy(() -> calls.emitted(JsonDeserializer.tree().build(), 4, ucs4))
                .as("the single framing already said so")
                .isInstanceOf(DeserializationException.class)
                .hasMessageContaining("UCS-4");
    }

    // ---- excerpts ----------------------------------------------------------------------------

    @Test
    void multibyteCharactersAreDecodedAndNeverCutInAnExcerpt() throws Exception {
        JsonDeserializer<Order> orders = JsonDeserializer.forType(Order.class).build();
        String sku = "æøå-ü-中文-😀".repeat(4);

        assertThat(calls.emitted(orders, 0, "{\"id\":1,\"sku\":\"" + sku + "\",\"qty\":1}"))
                .containsExactly(new Order(1, sku, 1));
        DeserializationException e = catchThrowableOfType(
                DeserializationException.class,
                () -> calls.emitted(orders, 0, "{\"id\":1,\"sku\":\"" + sku + "\",\"qty\":?}"));
        String excerpt = e.reason()
                .substring(e.reason().indexOf(" near '") + 7, e.reason().length() - 1);
        assertThat(excerpt).startsWith("...").endsWith(">>>?}").doesNotContain("\uFFFD");
        String before = excerpt.substring(3, excerpt.indexOf(">>>"));
        assertThat(before.codePointCount(0, before.length())).isEqualTo(InputExcerpt.CONTEXT_CHARS);
        assertThat(("\"sku\":\"" + sku + "\",\"qty\":")).endsWith(before);
    }

    @Test
    void controlCharactersInTheInputAreEscapedInTheExcerpt() throws Exception {
        JsonDeserializer<JsonNode> trees = JsonDeserializer.tree().build();

        DeserializationException e = catchThrowableOfType(
                DeserializationException.class, () -> calls.emitted(trees, 0, "{\"a\":\t\"x\u0001y\u2028\"\r\n  ,,}"));

        // A raw control character inside a string is itself malformed JSON: the error is at it.
        assertThat(e.reason())
                .startsWith("malformed JSON: Illegal unquoted character ((CTRL-CHAR, code 1))")
                .endsWith("at byte 8 near '{\"a\":\\t\"x>>>\\u0001y\\u2028\"\\r\\n  ,,}'")
                .doesNotContain("\n")
                .doesNotContain("\r")
                .doesNotContain("\u0001");
    }

    @Test
    void aHugeLineGivesABoundedExcerptAndMessage() throws Exception {
        JsonDeserializer<JsonNode> trees = JsonDeserializer.tree().ndjson().build();
        StringBuilder huge = new StringBuilder("{\"a\":\"");
        huge.append("x".repeat(1 << 20))
                .append("\",\"b\":")
                .append("y".repeat(100_000))
                .append("}");

        DeserializationException e = catchThrowableOfType(
                DeserializationException.class, () -> calls.emitted(trees, 0, "{}\n" + huge + "\n{}"));

        assertThat(e.reason())
                .startsWith("NDJSON message: 2 emitted, 1 failed: line 2: malformed JSON: ")
                .contains(" at byte " + ((1 << 20) + 12) + " near '..." + "x".repeat(26) + "\",\"b\":>>>"
                        + "y".repeat(32) + "...'")
                .hasSizeLessThan(600);
    }

    // ---- NDJSON and arrays that are partly bad -----------------------------------------------

    @Test
    void aPartlyBadNdjsonMessageEmitsEveryGoodLineThenThrowsOnceNamingTheBadLines() throws Exception {
        JsonDeserializer<Order> orders =
                JsonDeserializer.forType(Order.class).ndjson().build();
        List<Order> out = new ArrayList<>();

        DeserializationException e = catchThrowableOfType(
                DeserializationException.class,
                () -> calls.emitInto(
                        orders,
                        17,
                        "{\"id\":1,\"sku\":\"a\",\"qty\":1}\n{\"id\":2,\"sku\":\"b\",\n{\"id\":3,\"sku\":\"c\",\"qty\":3}\n"
                                + "null\n{\"id\":5,\"sku\":\"e\",\"qty\":\"five\"}\n{\"id\":6,\"sku\":\"f\",\"qty\":6}",
                        out));

        assertThat(out).extracting(Order::id).containsExactly(1L, 3L, 6L);
        assertThat(e.offset()).isEqualTo(17);
        assertThat(e.reason())
                .startsWith("NDJSON message: 3 emitted, 3 failed: line 2: malformed JSON: ")
                .contains(
                        "; line 4: JSON null where " + Order.class.getName() + " was expected at byte 0 near '>>>null'")
                .contains("; line 5: cannot bind to " + Order.class.getName())
                .doesNotContain("more");
        assertThat(orders.failedDocuments()).isEqualTo(3);
    }

    @Test
    void beyondThreeFailuresTheRestAreCounted() throws Exception {
        JsonDeserializer<JsonNode> trees = JsonDeserializer.tree().ndjson().build();

        assertThatThrownBy(() -> calls.emitted(trees, 0, "x\n{}\nx\nx\nx\nx"))
                .isInstanceOf(DeserializationException.class)
                .hasMessageContaining("NDJSON message: 1 emitted, 5 failed: line 1: ")
                .hasMessageContaining("; line 4: ")
                .hasMessageEndingWith("; and 2 more");
    }

    @Test
    void anArrayElementThatDoesNotBindIsSkippedAndTheFollowingOnesAreStillEmitted() throws Exception {
        JsonDeserializer<Order> orders =
                JsonDeserializer.forType(Order.class).array().build();
        List<Order> out = new ArrayList<>();

        DeserializationException e = catchThrowableOfType(
                DeserializationException.class,
                () -> calls.emitInto(
                        orders,
                        8,
                        "[{\"id\":1,\"sku\":\"a\",\"qty\":1}, {\"id\":2,\"sku\":{\"deep\":[1,{\"x\":2}]},\"qty\":2}, \"text\","
                                + " null, [1,2], {\"id\":6,\"sku\":\"f\",\"qty\":6}]",
                        out));

        assertThat(out).extracting(Order::id).containsExactly(1L, 6L);
        assertThat(e.reason())
                .startsWith("JSON array: 2 emitted, 4 failed: element 1: cannot bind to ")
                .contains("; element 2: cannot bind to ")
                .contains("; element 3: JSON null where ")
                .endsWith("; and 1 more")
                .doesNotContain("not read");
    }

    @Test
    void aNumberOutOfTheFieldsRangeIsABindingFailureAndTheArrayGoesOn() throws Exception {
        // found by fuzzing: Jackson's InputCoercionException is a tokenizer exception type, but the number was
        // read whole; it used to end the array as malformed JSON, and the elements after it were not read
        JsonDeserializer<Order> orders =
                JsonDeserializer.forType(Order.class).array().build();
        List<Order> out = new ArrayList<>();

        DeserializationException e = catchThrowableOfType(
                DeserializationException.class,
                () -> calls.emitInto(
                        orders,
                        8,
                        "[{\"id\":1,\"sku\":\"a\",\"qty\":99999999999999999999}, {\"id\":2,\"sku\":\"b\",\"qty\":2}]",
                        out));

        assertThat(out).extracting(Order::id).containsExactly(2L);
        assertThat(e.reason())
                .startsWith("JSON array: 1 emitted, 1 failed: element 0: cannot bind to ")
                .doesNotContain("not read");
    }

    @Test
    void malformedJsonInsideAnArrayEndsItThereAndSaysTheRestWasNotRead() throws Exception {
        JsonDeserializer<Order> orders =
                JsonDeserializer.forType(Order.class).array().build();
        List<Order> out = new ArrayList<>();

        DeserializationException e = catchThrowableOfType(
                DeserializationException.class,
                () -> calls.emitInto(
                        orders,
                        8,
                        "[{\"id\":1,\"sku\":\"a\",\"qty\":1},{\"id\":2,\"sku\":\"b,\"qty\":2},{\"id\":3,\"sku\":\"c\",\"qty\":3}]",
                        out));

        assertThat(out).extracting(Order::id).containsExactly(1L);
        assertThat(e.reason())
                .startsWith("JSON array: 1 emitted, 1 failed, the rest of the array was not read: "
                        + "element 1: malformed JSON: ");
    }

    @Test
    void contentAfterACompleteArrayIsReportedAfterItsElementsWereEmitted() throws Exception {
        JsonDeserializer<JsonNode> trees = JsonDeserializer.tree().array().build();
        List<JsonNode> out = new ArrayList<>();

        DeserializationException e =
                catchThrowableOfType(DeserializationException.class, () -> calls.emitInto(trees, 0, "[1,2] [3]", out));

        assertThat(out).extracting(JsonNode::asInt).containsExactly(1, 2);
        assertThat(e.reason())
                .isEqualTo("JSON array: 2 emitted, 1 failed: after the array: content after the array: "
                        + "START_ARRAY at byte 6 near '[1,2] >>>[3]'");
    }

    @Test
    void aFailureDownstreamPropagatesAndLeavesNothingBehindForTheNextMessage() throws Exception {
        JsonDeserializer<Order> orders =
                JsonDeserializer.forType(Order.class).ndjson().build();
        List<Order> out = new ArrayList<>();
        FatalPipelineException downstream = new FatalPipelineException(ErrorClass.OPERATOR, "stage 'x' failed", null);

        assertThatThrownBy(() -> calls.emitInto(orders, 0, "x\n{\"id\":1,\"sku\":\"a\",\"qty\":1}", new ArrayList<>() {
                    @Override
                    public boolean add(Order order) {
                        throw downstream;
                    }
                }))
                .isSameAs(downstream);
        calls.emitInto(orders, 1, "{\"id\":2,\"sku\":\"b\",\"qty\":2}", out);

        assertThat(out).extracting(Order::id).containsExactly(2L);
    }

    // ---- tombstones and threads --------------------------------------------------------------

    @Test
    void tombstonesEmitNothingAndAreCounted() throws Exception {
        JsonDeserializer<Order> orders =
                JsonDeserializer.forType(Order.class).ndjson().build();

        assertThat(calls.tombstone(orders)).isEmpty();
        assertThat(calls.tombstone(orders)).isEmpty();
        assertThat(orders.tombstones()).isEqualTo(2);
    }

    @Test
    void aSecondLaneThreadFailsThePipelineNamingBothThreads() throws Exception {
        JsonDeserializer<Order> orders = JsonDeserializer.forType(Order.class).build();
        calls.emitted(orders, 0, "{\"id\":1,\"sku\":\"a\",\"qty\":1}");
        AtomicReference<Throwable> seen = new AtomicReference<>();

        Thread other = new Thread(
                () -> {
                    try {
                        new Calls().emitted(orders, 1, "{\"id\":2,\"sku\":\"b\",\"qty\":2}");
                    } catch (Throwable t) {
                        seen.set(t);
                    }
                },
                "etl-lane-test-1");
        other.start();
        other.join();

        assertThat(seen.get())
                .isInstanceOf(FatalPipelineException.class)
                .hasMessageContaining("'" + Thread.currentThread().getName() + "' and 'etl-lane-test-1'")
                .hasMessageContaining("build() inside the ChainFactory lambda");
    }
}
