package dev.etl.docs;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;

/**
 * One Markdown page of the repository as the docs tests read it: its lines, which of them are prose (not
 * inside a fenced block), the inline links of its prose and the anchors GitHub gives its headings.
 */
final class MarkdownPage {

    /** An inline link {@code [text](target)} or {@code [text](target "title")}. */
    private static final Pattern LINK =
            Pattern.compile("\\[(?:[^\\[\\]]|\\[[^\\]]*\\])*\\]\\(([^)\\s]+)(?:\\s+\"[^\"]*\")?\\)");

    private static final Pattern INLINE_CODE = Pattern.compile("`+[^`]*`+");

    private static final Pattern HEADING = Pattern.compile("^(#{1,6})\\s+(.*?)\\s*#*\\s*$");

    private static final Pattern HTML_ANCHOR = Pattern.compile("<a\\s+(?:id|name)=\"([^\"]+)\"");

    /** What GitHub drops from a heading's text to make its anchor: all but letters, digits, space, - and _. */
    private static final Pattern NOT_IN_SLUG = Pattern.compile("[^\\p{L}\\p{N} _-]");

    final Path file;

    final List<String> lines;

    private final boolean[] prose;

    private MarkdownPage(Path file, List<String> lines) {
        this.file = file;
        this.lines = lines;
        this.prose = new boolean[lines.size()];
        String fence = null;
        for (int i = 0; i < lines.size(); i++) {
            String trimmed = lines.get(i).stripLeading();
            if (fence == null && (trimmed.startsWith("```") || trimmed.startsWith("~~~"))) {
                fence = trimmed.substring(0, 3);
            } else if (fence != null && trimmed.startsWith(fence)) {
                fence = null;
            } else {
                prose[i] = fence == null;
            }
        }
    }

    static MarkdownPage read(Path file) {
        try {
            return new MarkdownPage(file, Files.readAllLines(file));
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** Whether line {@code i} (0-based) is prose, not a fence or inside a fenced block. */
    boolean isProse(int i) {
        return prose[i];
    }

    /** Line {@code i} without its inline code spans (a link or a name in backticks is not a link). */
    String proseWithoutCode(int i) {
        return INLINE_CODE.matcher(lines.get(i)).replaceAll("");
    }

    /** The inline link targets of line {@code i} (0-based), none for a line in a fenced block. */
    List<String> linkTargets(int i) {
        List<String> targets = new ArrayList<>();
        if (!prose[i]) {
            return targets;
        }
        Matcher m = LINK.matcher(proseWithoutCode(i));
        while (m.find()) {
            targets.add(m.group(1));
        }
        return targets;
    }

    /** The anchors of the page: GitHub's for every heading (with -1, -2 for repeats), and HTML ids. */
    Set<String> anchors() {
        Set<String> anchors = new LinkedHashSet<>();
        Map<String, Integer> seen = new HashMap<>();
        for (int i = 0; i < lines.size(); i++) {
            if (!prose[i]) {
                continue;
            }
            Matcher html = HTML_ANCHOR.matcher(lines.get(i));
            while (html.find()) {
                anchors.add(html.group(1));
            }
            Matcher heading = HEADING.matcher(lines.get(i));
            if (heading.matches()) {
                String slug = slug(heading.group(2));
                int n = seen.merge(slug, 1, Integer::sum) - 1;
                anchors.add(n == 0 ? slug : slug + "-" + n);
            }
        }
        return anchors;
    }

    /**
     * The text of the section whose heading has that anchor: the heading's line up to the next heading of
     * the same or a higher level; empty when no heading has it.
     */
    String section(String anchor) {
        Map<String, Integer> seen = new HashMap<>();
        int level = 0;
        StringBuilder text = new StringBuilder();
        for (int i = 0; i < lines.size(); i++) {
            Matcher heading = prose[i] ? HEADING.matcher(lines.get(i)) : null;
            if (heading != null && heading.matches()) {
                if (level > 0 && heading.group(1).length() <= level) {
                    break;
                }
                String slug = slug(heading.group(2));
                int n = seen.merge(slug, 1, Integer::sum) - 1;
                if (level == 0 && (n == 0 ? slug : slug + "-" + n).equals(anchor)) {
                    level = heading.group(1).length();
                }
            }
            if (level > 0) {
                text.append(lines.get(i)).append('\n');
            }
        }
        return text.toString();
    }

    /** GitHub's anchor of a heading: its rendered text, lower case, punctuation dropped, spaces as -. */
    static String slug(String heading) {
        String text = heading.replaceAll("\\[([^\\]]*)\\]\\([^)]*\\)", "$1") // a link: its text
                .replace("`", "")
                .replace("**", "")
                .replaceAll("(?<![\\p{L}\\p{N}])_([^_]+)_(?![\\p{L}\\p{N}])", "$1")
                .replace("*", "");
        return NOT_IN_SLUG.matcher(text.toLowerCase(Locale.ROOT)).replaceAll("").replace(' ', '-');
    }

    /** The repository's root: the first directory above the working directory that has {@code docs/}. */
    static Path repositoryRoot() {
        Path dir = Path.of("").toAbsolutePath();
        while (dir != null
                && !(Files.isDirectory(dir.resolve("docs")) && Files.isRegularFile(dir.resolve("pom.xml")))) {
            dir = dir.getParent();
        }
        if (dir == null) {
            throw new IllegalStateException(
                    "no docs/ directory above " + Path.of("").toAbsolutePath());
        }
        return dir;
    }

    /** Every {@code .md} file under {@code dir}, outside build output, sorted. */
    static List<Path> markdownUnder(Path dir) {
        try (Stream<Path> files = Files.walk(dir)) {
            return files.filter(p -> p.toString().endsWith(".md"))
                    .filter(p -> !p.toString().contains("/target/")
                            && !p.toString().contains("/node_modules/")
                            && !p.toString().contains("/.git/"))
                    .sorted()
                    .toList();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }
}
