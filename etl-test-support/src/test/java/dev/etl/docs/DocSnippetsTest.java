package dev.etl.docs;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;

/**
 * Keeps the code in {@code docs/} true: every fenced block preceded by
 * {@code <!-- snippet: path/To/File.java#tag -->} must equal the region between {@code // tag::tag[]} and
 * {@code // end::tag[]} of that (compiled and tested) file, dedented. A Java snippet is compilable as
 * shown, by one rule: a region that is a whole top-level type is shown as a compilation unit (the file's
 * {@code package} line, the imports the type uses in the file's order and grouping, then the type), so a
 * reader can copy it into a file of their own; a region of members or statements is shown alone, without
 * a {@code package} or {@code import} line (never a header over bare members). YAML, properties and shell
 * files mark regions with {@code # tag::tag[]} and {@code # end::tag[]} and are shown without a header.
 * Every {@code ```java} block of the docs is such a snippet: there are no hand-written Java fragments.
 * Edit the source, run this test with {@code -Detl.docs.write=true} (or copy what it prints when it fails).
 */
class DocSnippetsTest {
    private static final Pattern MARKER = Pattern.compile("<!-- snippet: (\\S+)#(\\S+) -->");

    /** The opt-out of {@link #everyJavaBlockIsASnippetOfCompiledCode}: the text before its reason. */
    static final String NOT_COMPILABLE = "<!-- not compilable:";

    private static final Pattern NOT_COMPILABLE_MARKER = Pattern.compile(Pattern.quote(NOT_COMPILABLE) + "(.*?)-->");

    @Test
    void everyMarkedSnippetInTheDocsMatchesItsSource() throws IOException {
        Path root = repositoryRoot();
        List<String> problems = new ArrayList<>();
        int checked = 0;
        try (Stream<Path> docs = Files.walk(root.resolve("docs"))) {
            for (Path doc : docs.filter(p -> p.toString().endsWith(".md")).toList()) {
                List<String> lines = new ArrayList<>(Files.readAllLines(doc));
                boolean rewritten = false;
                for (int i = 0; i < lines.size(); i++) {
                    Matcher m = MARKER.matcher(lines.get(i));
                    if (!m.find()) {
                        continue;
                    }
                    checked++;
                    String where = root.relativize(doc) + ":" + (i + 1);
                    String expected = region(root.resolve(m.group(1)), m.group(2), where, problems);
                    String actual = fencedBlockAfter(lines, i + 1);
                    if (expected != null && !expected.equals(actual)) {
                        if (Boolean.getBoolean("etl.docs.write")) {
                            replaceFencedBlockAfter(lines, i + 1, expected);
                            rewritten = true;
                        } else {
                            problems.add(where + ": snippet differs from " + m.group(1) + "#" + m.group(2)
                                    + "; it should read (or rerun with -Detl.docs.write=true):\n" + expected);
                        }
                    }
                }
                if (rewritten) {
                    Files.write(doc, lines);
                }
            }
        }
        assertThat(problems).as("doc snippets out of date").isEmpty();
        assertThat(checked).as("marked snippets found under docs/").isPositive();
    }

    /**
     * Every Java block in the docs is a snippet of compiled code: a {@code ```java} fence preceded by a
     * {@code <!-- snippet: path#tag -->} marker (checked against its source above). The only opt-out is a
     * {@value #NOT_COMPILABLE} marker with a reason ({@code <!-- not compilable: shows the compile error
     * of ... -->}) on the line before the fence, for a block that cannot compile by nature (one that shows
     * a compile error); none needs it today. Fails naming the page and line of each hand-written block.
     */
    @Test
    void everyJavaBlockIsASnippetOfCompiledCode() {
        Path root = repositoryRoot();
        List<String> problems = new ArrayList<>();
        int java = 0;
        for (Path doc : MarkdownPage.markdownUnder(root.resolve("docs"))) {
            List<String> lines = MarkdownPage.read(doc).lines;
            for (int i = 0; i < lines.size(); i++) {
                if (!lines.get(i).startsWith("```java")) {
                    continue;
                }
                java++;
                String where = root.relativize(doc) + ":" + (i + 1);
                String before = i > 0 ? lines.get(i - 1) : "";
                if (MARKER.matcher(before).find()) {
                    continue;
                }
                Matcher optOut = NOT_COMPILABLE_MARKER.matcher(before);
                if (optOut.find()) {
                    if (optOut.group(1).isBlank()) {
                        problems.add(where + ": a '" + NOT_COMPILABLE + "' marker without its reason");
                    }
                    continue;
                }
                problems.add(where + ": a hand-written Java block; put the code in a tagged region of a compiled"
                        + " test of the module whose API it shows, and mark the block with"
                        + " <!-- snippet: path#tag --> (then run this test with -Detl.docs.write=true)");
            }
        }
        assertThat(problems).as("Java blocks in docs/ that are not compiled").isEmpty();
        assertThat(java).as("Java blocks found under docs/").isPositive();
    }

    private static String region(Path source, String tag, String where, List<String> problems) throws IOException {
        if (!Files.exists(source)) {
            problems.add(where + ": no such source file " + source);
            return null;
        }
        List<String> lines = Files.readAllLines(source);
        int start = -1;
        int end = -1;
        for (int i = 0; i < lines.size(); i++) {
            String line = lines.get(i).trim();
            if (line.equals("// tag::" + tag + "[]") || line.equals("# tag::" + tag + "[]")) {
                start = i + 1;
            } else if (line.equals("// end::" + tag + "[]") || line.equals("# end::" + tag + "[]")) {
                end = i;
            }
        }
        if (start < 0 || end < start) {
            problems.add(where + ": no region '" + tag + "' in " + source);
            return null;
        }
        List<String> body = lines.subList(start, end);
        String region = dedent(body);
        if (!source.toString().endsWith(".java")) {
            return region;
        }
        if (isTopLevelType(body)) {
            return header(lines, region) + region;
        }
        if (body.stream().anyMatch(l -> !l.isBlank() && !Character.isWhitespace(l.charAt(0)))) {
            problems.add(where + ": region '" + tag + "' of " + repositoryRoot().relativize(source)
                    + " has code at column 0 but is not whole"
                    + " top-level types (from their Javadoc or annotations to their closing brace); move its"
                    + " tag:: or end:: line so that it is, or so that it holds members only");
            return null;
        }
        return region;
    }

    private static final Pattern TYPE_DECLARATION = Pattern.compile(
            "^(?:(?:public|final|abstract|sealed|non-sealed|strictfp)\\s+)*(?:class|interface|record|enum|@interface)\\s+\\w+.*");

    /**
     * Whether the lines (as they stand in their file, not dedented) are whole top-level types: they start
     * at column 0 (a Javadoc, an annotation or the declaration), declare a type at column 0 and end with
     * its closing brace at column 0. Members and statements are indented in their file.
     */
    static boolean isTopLevelType(List<String> lines) {
        List<String> code = lines.stream().filter(l -> !l.isBlank()).toList();
        return !code.isEmpty()
                && !Character.isWhitespace(code.get(0).charAt(0))
                && code.get(code.size() - 1).equals("}")
                && code.stream().anyMatch(l -> TYPE_DECLARATION.matcher(l).matches());
    }

    /**
     * The snippet rule, on what the docs show: a Java snippet with a {@code package} or {@code import} line
     * is a compilation unit (the header, then one whole top-level type); one without has no such line
     * anywhere. Fails naming the page and line of each snippet that mixes a header with bare members.
     */
    @Test
    void everyJavaSnippetIsAWholeUnitOrMembersWithoutHeader() {
        Path root = repositoryRoot();
        List<String> problems = new ArrayList<>();
        for (Path doc : MarkdownPage.markdownUnder(root.resolve("docs"))) {
            List<String> lines = MarkdownPage.read(doc).lines;
            for (int i = 0; i < lines.size(); i++) {
                Matcher m = MARKER.matcher(lines.get(i));
                if (m.find() && m.group(1).endsWith(".java")) {
                    String where = root.relativize(doc) + ":" + (i + 1) + " (" + m.group(1) + "#" + m.group(2) + ")";
                    snippetRuleProblems(where, fencedBlockAfter(lines, i + 1), problems);
                }
            }
        }
        assertThat(problems)
                .as("Java snippets that are not compilable as shown")
                .isEmpty();
    }

    private static void snippetRuleProblems(String where, String snippet, List<String> problems) {
        List<String> block = List.of(snippet.split("\n"));
        int bodyStart = 0;
        boolean header = false;
        while (bodyStart < block.size()
                && (block.get(bodyStart).isBlank()
                        || block.get(bodyStart).startsWith("package ")
                        || block.get(bodyStart).startsWith("import "))) {
            header |= !block.get(bodyStart).isBlank();
            bodyStart++;
        }
        List<String> body = block.subList(bodyStart, block.size());
        if (header && !isTopLevelType(body)) {
            problems.add(where + ": a package/import header over members or statements; show a whole"
                    + " top-level type under a header, or the members without one");
        }
        for (String line : body) {
            if (line.startsWith("package ") || line.startsWith("import ")) {
                problems.add(where + ": '" + line + "' after the snippet's first code line");
            }
        }
    }

    /** The package line and the imports whose simple name (or static member) the region mentions. */
    static String header(List<String> file, String region) {
        StringBuilder sb = new StringBuilder();
        List<String> imports = new ArrayList<>();
        boolean pendingBlank = false;
        for (String line : file) {
            String trimmed = line.trim();
            if (trimmed.startsWith("package ")) {
                sb.append(trimmed).append("\n\n");
            } else if (trimmed.startsWith("import ")) {
                String name = trimmed.substring(0, trimmed.length() - 1)
                        .replace("import static ", "")
                        .replace("import ", "");
                String simple = name.substring(name.lastIndexOf('.') + 1);
                if (simple.equals("*")
                        || Pattern.compile("\\b" + Pattern.quote(simple) + "\\b")
                                .matcher(region)
                                .find()) {
                    if (pendingBlank && !imports.isEmpty()) {
                        imports.add("");
                    }
                    imports.add(trimmed);
                    pendingBlank = false;
                }
            } else if (trimmed.isEmpty()) {
                pendingBlank = true;
            } else if (!trimmed.startsWith("//") && !trimmed.startsWith("/*") && !trimmed.startsWith("*")) {
                break;
            }
        }
        for (String line : imports) {
            sb.append(line).append('\n');
        }
        if (!imports.isEmpty()) {
            sb.append('\n');
        }
        return sb.toString();
    }

    private static String dedent(List<String> body) {
        int indent = body.stream()
                .filter(l -> !l.isBlank())
                .mapToInt(l -> l.length() - l.stripLeading().length())
                .min()
                .orElse(0);
        StringBuilder sb = new StringBuilder();
        for (String line : body) {
            sb.append(line.isBlank() ? "" : line.substring(indent)).append('\n');
        }
        return sb.toString();
    }

    private static void replaceFencedBlockAfter(List<String> lines, int from, String content) {
        int open = from;
        while (open < lines.size() && !lines.get(open).startsWith("```")) {
            open++;
        }
        int close = open + 1;
        while (close < lines.size() && !lines.get(close).startsWith("```")) {
            close++;
        }
        lines.subList(open + 1, close).clear();
        lines.addAll(open + 1, List.of(content.split("\n", -1)).subList(0, content.split("\n", -1).length - 1));
    }

    private static String fencedBlockAfter(List<String> lines, int from) {
        int open = from;
        while (open < lines.size() && !lines.get(open).startsWith("```")) {
            open++;
        }
        StringBuilder sb = new StringBuilder();
        for (int i = open + 1; i < lines.size() && !lines.get(i).startsWith("```"); i++) {
            sb.append(lines.get(i)).append('\n');
        }
        return sb.toString();
    }

    private static Path repositoryRoot() {
        Path dir = Path.of("").toAbsolutePath();
        while (dir != null && !Files.isDirectory(dir.resolve("docs"))) {
            dir = dir.getParent();
        }
        if (dir == null) {
            throw new IllegalStateException(
                    "no docs/ directory above " + Path.of("").toAbsolutePath());
        }
        return dir;
    }
}
