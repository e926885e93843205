package dev.etl.docs;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;

/**
 * The docs hold together: the docs map ({@code docs/README.md}) links every page under {@code docs/}, and
 * every relative link of every Markdown page of the repository reaches a file, and a heading of it when it
 * names one. A page moved, split or renamed, or a heading reworded, fails here with the page and line of
 * each link it broke.
 */
class DocsMapTest {

    /** Pages under docs/ that are not linked from the map on purpose: none so far (the map itself aside). */
    private static final Set<String> NOT_IN_THE_MAP = Set.of("README.md");

    @Test
    void theDocsMapLinksEveryPageUnderDocs() {
        Path root = MarkdownPage.repositoryRoot();
        Path docs = root.resolve("docs");
        MarkdownPage map = MarkdownPage.read(docs.resolve("README.md"));
        Set<Path> linked = new TreeSet<>();
        for (int i = 0; i < map.lines.size(); i++) {
            for (String target : map.linkTargets(i)) {
                if (!isExternal(target)) {
                    linked.add(docs.resolve(withoutAnchor(target)).normalize());
                }
            }
        }
        List<String> missing = new ArrayList<>();
        for (Path page : MarkdownPage.markdownUnder(docs)) {
            String relative = docs.relativize(page).toString();
            if (!NOT_IN_THE_MAP.contains(relative) && !linked.contains(page.normalize())) {
                missing.add("docs/" + relative + " (\"" + title(page)
                        + "\") is not linked from docs/README.md: add it to" + " the guide map");
            }
        }
        assertThat(missing).as("pages missing from the docs map docs/README.md").isEmpty();
    }

    @Test
    void everyRelativeLinkReachesAFileAndItsHeading() {
        Path root = MarkdownPage.repositoryRoot();
        Map<Path, Set<String>> anchors = new HashMap<>();
        List<String> broken = new ArrayList<>();
        int checked = 0;
        for (Path file : pagesWithLinks(root)) {
            MarkdownPage page = MarkdownPage.read(file);
            for (int i = 0; i < page.lines.size(); i++) {
                for (String target : page.linkTargets(i)) {
                    if (isExternal(target)) {
                        continue;
                    }
                    checked++;
                    String where = root.relativize(file) + ":" + (i + 1) + ": (" + target + ")";
                    String path = withoutAnchor(target);
                    Path resolved = path.isEmpty()
                            ? file
                            : file.getParent().resolve(decode(path)).normalize();
                    if (!resolved.startsWith(root) || !Files.exists(resolved)) {
                        broken.add(where + " reaches no file: " + root.relativize(resolved.normalize())
                                + " does not exist");
                        continue;
                    }
                    int hash = target.indexOf('#');
                    if (hash < 0 || !resolved.toString().endsWith(".md")) {
                        continue;
                    }
                    String anchor = target.substring(hash + 1);
                    Set<String> known = anchors.computeIfAbsent(
                            resolved, (p) -> MarkdownPage.read(p).anchors());
                    if (!known.contains(anchor)) {
                        broken.add(where + ": " + root.relativize(resolved) + " has no heading whose anchor is #"
                                + anchor + closest(anchor, known));
                    }
                }
            }
        }
        assertThat(broken).as("broken links in the repository's Markdown").isEmpty();
        assertThat(checked).as("relative links checked").isGreaterThan(100);
    }

    /** docs/, the root README and every other Markdown file of the repository outside build output. */
    private static List<Path> pagesWithLinks(Path root) {
        List<Path> pages = new ArrayList<>();
        try (Stream<Path> top = Files.list(root)) {
            for (Path entry : top.sorted().toList()) {
                String name = entry.getFileName().toString();
                if (name.startsWith(".")) {
                    continue;
                }
                if (Files.isDirectory(entry)) {
                    pages.addAll(MarkdownPage.markdownUnder(entry));
                } else if (name.endsWith(".md")) {
                    pages.add(entry);
                }
            }
        } catch (java.io.IOException e) {
            throw new java.io.UncheckedIOException(e);
        }
        return pages;
    }

    private static String closest(String anchor, Set<String> known) {
        String best = null;
        int bestDistance = Integer.MAX_VALUE;
        for (String candidate : known) {
            int d = distance(anchor, candidate);
            if (d < bestDistance) {
                best = candidate;
                bestDistance = d;
            }
        }
        return best == null ? "" : " (closest: #" + best + ")";
    }

    private static int distance(String a, String b) {
        int[] previous = new int[b.length() + 1];
        int[] current = new int[b.length() + 1];
        for (int j = 0; j <= b.length(); j++) {
            previous[j] = j;
        }
        for (int i = 1; i <= a.length(); i++) {
            current[0] = i;
            for (int j = 1; j <= b.length(); j++) {
                int cost = a.charAt(i - 1) == b.charAt(j - 1) ? 0 : 1;
                current[j] = Math.min(Math.min(current[j - 1] + 1, previous[j] + 1), previous[j - 1] + cost);
            }
            int[] swap = previous;
            previous = current;
            current = swap;
        }
        return previous[b.length()];
    }

    private static String title(Path page) {
        return MarkdownPage.read(page).lines.stream()
                .filter(l -> l.startsWith("# "))
                .map(l -> l.substring(2))
                .findFirst()
                .orElse("no title");
    }

    static boolean isExternal(String target) {
        return target.contains("://") || target.startsWith("mailto:");
    }

    static String withoutAnchor(String target) {
        int hash = target.indexOf('#');
        return hash < 0 ? target : target.substring(0, hash);
    }

    private static String decode(String path) {
        return path.replace("%20", " ");
    }
}
