package dev.etl.autoconfigure.metrics;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import com.example.probes.ProbesApplication;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.etl.clickhouse.ClickHouseCapabilities;
import dev.etl.clickhouse.ClickHouseColumn;
import dev.etl.clickhouse.ClickHouseInsert;
import dev.etl.clickhouse.ClickHouseShardWriter;
import dev.etl.clickhouse.ClickHouseSinkConfig;
import dev.etl.clickhouse.ClickHouseTransport;
import dev.etl.clickhouse.InsertFormat;
import dev.etl.kafka.KafkaDeadLetterWriter;
import dev.etl.kafka.KafkaSource;
import dev.etl.kafka.KafkaSourceConfig;
import dev.etl.source.PartitionListener;
import dev.etl.source.SourceLane;
import dev.etl.test.memory.MemorySource;
import io.micrometer.core.instrument.MeterRegistry;
import java.io.IOException;
import java.lang.reflect.Constructor;
import java.lang.reflect.Method;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.common.TopicPartition;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.boot.test.context.SpringBootTest.WebEnvironment;
import org.springframework.boot.test.web.server.LocalServerPort;
import org.yaml.snakeyaml.Yaml;

/**
 * Keeps the shipped Grafana dashboard ({@code deploy/grafana/etl-dashboard.json}) and Prometheus alert
 * rules ({@code deploy/prometheus/etl-alerts.yaml}) honest: well-formed, every metric their PromQL
 * references documented in {@code docs/METRICS.md} and exported by a running app's
 * {@code /actuator/prometheus}, every documented metric on the dashboard, and the rules identical to the
 * "Suggested alerts" of METRICS.md (expression and {@code for}).
 *
 * <p>The app is {@link ProbesApplication} (memory source, capture sink). The Kafka and ClickHouse meters
 * are registered by those connectors' own classes into the app's registry: a {@link KafkaSource} lane
 * (a real consumer that never reaches a broker), its per-partition lag gauges (package-private, built
 * reflectively: a gauge appears only on a partition assignment) and a {@link ClickHouseShardWriter}
 * (a transport that is never called). The timers' histograms are enabled the way deploy/README.md says,
 * so the dashboard's {@code histogram_quantile} panels find their {@code _bucket} series.
 */
@SpringBootTest(
        classes = ProbesApplication.class,
        webEnvironment = WebEnvironment.RANDOM_PORT,
        properties = {
            "management.endpoints.web.exposure.include=health,prometheus",
            "etl.pipeline.name=grafana",
            "etl.checkpoint.interval=50ms",
            "etl.pipeline.poll-timeout=20ms",
            "etl.checkpoint.drain-timeout=5s",
            "etl.pipeline.exit-on-failure=false",
            "etl.metrics.tags.env=test",
            "management.metrics.distribution.percentiles-histogram.etl.sink.write.duration=true",
            "management.metrics.distribution.percentiles-histogram.etl.clickhouse.insert.duration=true",
            "management.metrics.distribution.percentiles-histogram.etl.source.poll.duration=true"
        })
class DashboardAndAlertsTest {

    static final Path ROOT = Path.of("..");
    static final Path METRICS_MD = ROOT.resolve("docs/METRICS.md");
    static final Path DASHBOARD = ROOT.resolve("deploy/grafana/etl-dashboard.json");
    static final Path ALERTS = ROOT.resolve("deploy/prometheus/etl-alerts.yaml");

    /** PromQL words that look like identifiers but are not metrics (functions are recognized by their "("). */
    static final Set<String> PROMQL_WORDS = Set.of(
            "sum",
            "min",
            "max",
            "avg",
            "count",
            "stddev",
            "stdvar",
            "topk",
            "bottomk",
            "quantile",
            "count_values",
            "group",
            "limitk",
            "limit_ratio",
            "by",
            "without",
            "on",
            "ignoring",
            "group_left",
            "group_right",
            "and",
            "or",
            "unless",
            "offset",
            "bool",
            "atan2",
            "inf",
            "nan");

    /**
     * Metrics an alert may use that the application does not export, with the labels they carry: {@code up},
     * which Prometheus records for every scrape target, and kube-state-metrics' container restarts. They watch
     * the process from outside (a failed pipeline exits and takes its etl_* series along), so the check that
     * every used metric is exported skips them; {@link #externalMetricsAreDocumentedAndUsedByAlertsOnly} keeps
     * this list exact, named in METRICS.md, and off the dashboard.
     */
    static final Map<String, Set<String>> EXTERNAL_METRICS = Map.of(
            "up", Set.of("instance", "job"),
            "kube_pod_container_status_restarts_total", Set.of("namespace", "pod", "container", "uid"));

    static final Path RUNBOOKS = ROOT.resolve("docs/operations");

    /** Suffixes Prometheus adds to a timer's or summary's documented name. */
    static final List<String> DISTRIBUTION_SUFFIXES = List.of("_bucket", "_count", "_sum", "_max");

    private static final Pattern IDENTIFIER = Pattern.compile("(?<![\\w.:])([a-zA-Z_:][\\w:]*)(?![\\w:])(\\s*\\()?");
    private static final Pattern LABEL_TEMPLATE = Pattern.compile("\\$labels\\.(\\w+)");

    @LocalServerPort
    private int port;

    @Autowired
    private MeterRegistry registry;

    @Autowired
    private MemorySource source;

    // ------------------------------------------------------------------ PromQL metric names

    /** The metric names an expression selects: identifiers not followed by "(", not keywords, outside
     *  strings, label matchers, ranges, label lists and Grafana variables. */
    static Set<String> metricNames(String expr) {
        String s = expr.replaceAll("\\$\\{?\\w+}?", " ")
                .replaceAll("\"(?:[^\"\\\\]|\\\\.)*\"|'(?:[^'\\\\]|\\\\.)*'", " ")
                .replaceAll("\\{[^{}]*}", " ")
                .replaceAll("\\[[^\\[\\]]*]", " ")
                .replaceAll("\\b(by|without|on|ignoring|group_left|group_right)\\s*\\([^()]*\\)", " ");
        Set<String> names = new LinkedHashSet<>();
        Matcher m = IDENTIFIER.matcher(s);
        while (m.find()) {
            String name = m.group(1);
            if (m.group(2) == null && !PROMQL_WORDS.contains(name.toLowerCase())) {
                names.add(name);
            }
        }
        return names;
    }

    @Test
    void metricNamesSkipsFunctionsKeywordsLabelsAndVariables() {
        assertThat(metricNames("histogram_quantile(0.99, sum by (le, pipeline) (rate(etl_x_seconds_bucket"
                        + "{pipeline=~\"$pipeline\", outcome=\"success\"}[$__rate_interval])))"))
                .containsExactly("etl_x_seconds_bucket");
        assertThat(metricNames("a < max_over_time(a[1h]) and b == 1 or (c unless c offset 15m) > 1e9"))
                .containsExactly("a", "b", "c");
        assertThat(metricNames("sum without (outcome) (rate(x{o=\"f\"}[5m])) / sum without(outcome)(rate(y[5m]))"))
                .containsExactly("x", "y");
        assertThat(metricNames("etl_errors_total{error_type=~\"a|b\"}")).containsExactly("etl_errors_total");
    }

    // ------------------------------------------------------------------ METRICS.md

    record Documented(String type, Set<String> labels) {}

    /** Every metric of METRICS.md's tables: name → (type, labels). */
    static Map<String, Documented> documentedMetrics() throws IOException {
        Map<String, Documented> out = new TreeMap<>();
        Pattern row = Pattern.compile("^\\| `(etl_\\w+)` \\| (\\w+) \\| ([\\w, ]+) \\|");
        for (String line : Files.readAllLines(METRICS_MD)) {
            Matcher m = row.matcher(line);
            if (m.find()) {
                Set<String> labels = new TreeSet<>(List.of(m.group(3).trim().split("\\s*,\\s*")));
                out.put(m.group(1), new Documented(m.group(2), labels));
            }
        }
        return out;
    }

    record SuggestedAlert(String alert, String expr, String forDuration) {}

    /** The rows of METRICS.md's "Suggested alerts" table, named as in the rule file. */
    static List<SuggestedAlert> suggestedAlerts() throws IOException {
        List<SuggestedAlert> out = new ArrayList<>();
        boolean in = false;
        Pattern exprColumn = Pattern.compile("^`([^`]+)`(?:\\s+for\\s+(\\d+[smh]))?$");
        for (String line : Files.readAllLines(METRICS_MD)) {
            if (line.startsWith("## ")) {
                in = line.equals("## Suggested alerts");
                continue;
            }
            if (!in || !line.startsWith("| ") || line.startsWith("| alert |")) {
                continue;
            }
            String[] cells = line.split("(?<!\\\\)\\|");
            Matcher m = exprColumn.matcher(cells[2].trim());
            assertThat(m.matches())
                    .as("METRICS.md suggested alert expression column: %s", cells[2])
                    .isTrue();
            StringBuilder name = new StringBuilder("Etl");
            for (String word : cells[1].trim().split("\\s+")) {
                name.append(Character.toUpperCase(word.charAt(0))).append(word.substring(1));
            }
            out.add(new SuggestedAlert(
                    name.toString(), m.group(1).replace("\\|", "|"), m.group(2) == null ? "0m" : m.group(2)));
        }
        assertThat(out).as("suggested alerts in METRICS.md").hasSizeGreaterThanOrEqualTo(11);
        return out;
    }

    /** A referenced name (with a timer's or summary's suffix) → its documented name, or null. */
    static String documentedName(String name, Map<String, Documented> documented) {
        if (documented.containsKey(name)) {
            return name;
        }
        for (String suffix : DISTRIBUTION_SUFFIXES) {
            if (name.endsWith(suffix)) {
                Documented base = documented.get(name.substring(0, name.length() - suffix.length()));
                if (base != null && (base.type().equals("timer") || base.type().equals("summary"))) {
                    return name.substring(0, name.length() - suffix.length());
                }
            }
        }
        return null;
    }

    // ------------------------------------------------------------------ the files

    @SuppressWarnings("unchecked")
    static List<Map<String, Object>> alertRules() throws IOException {
        Map<String, Object> file = new Yaml().load(Files.readString(ALERTS));
        List<Map<String, Object>> groups = (List<Map<String, Object>>) file.get("groups");
        assertThat(groups).as("groups").isNotEmpty();
        List<Map<String, Object>> rules = new ArrayList<>();
        for (Map<String, Object> group : groups) {
            assertThat(group.get("name")).as("group name").isInstanceOf(String.class);
            assertThat((List<?>) group.get("rules"))
                    .as("rules of group %s", group.get("name"))
                    .isNotEmpty();
            rules.addAll((List<Map<String, Object>>) group.get("rules"));
        }
        return rules;
    }

    static JsonNode dashboard() throws IOException {
        return new ObjectMapper().readTree(DASHBOARD.toFile());
    }

    /** Every panel, rows' nested panels included. */
    static List<JsonNode> panels(JsonNode dashboard) {
        List<JsonNode> out = new ArrayList<>();
        for (JsonNode panel : dashboard.path("panels")) {
            out.add(panel);
            panel.path("panels").forEach(out::add);
        }
        return out;
    }

    /** expr → where it is (panel title or alert name). */
    static Map<String, String> dashboardExpressions() throws IOException {
        Map<String, String> out = new LinkedHashMap<>();
        for (JsonNode panel : panels(dashboard())) {
            for (JsonNode target : panel.path("targets")) {
                out.put(
                        target.path("expr").asText(),
                        "panel '" + panel.path("title").asText() + "'");
            }
        }
        return out;
    }

    static Map<String, String> alertExpressions() throws IOException {
        Map<String, String> out = new LinkedHashMap<>();
        for (Map<String, Object> rule : alertRules()) {
            out.put(String.valueOf(rule.get("expr")), "alert " + rule.get("alert"));
        }
        return out;
    }

    /** metric name → where it is used. */
    static Map<String, Set<String>> referencedMetrics(Map<String, String> expressions) {
        Map<String, Set<String>> out = new TreeMap<>();
        expressions.forEach((expr, where) -> metricNames(expr)
                .forEach(name -> out.computeIfAbsent(name, k -> new TreeSet<>()).add(where)));
        return out;
    }

    // ------------------------------------------------------------------ structure

    @Test
    @SuppressWarnings("unchecked")
    void alertRulesAreWellFormed() throws IOException {
        Map<String, Documented> documented = documentedMetrics();
        Set<String> names = new HashSet<>();
        for (Map<String, Object> rule : alertRules()) {
            String alert = (String) rule.get("alert");
            assertThat(alert).as("alert name").isNotBlank().matches("Etl[A-Za-z]+");
            assertThat(names.add(alert)).as("alert %s is unique", alert).isTrue();
            assertThat(rule.get("expr")).as("%s expr", alert).isInstanceOf(String.class);
            assertThat(String.valueOf(rule.get("for"))).as("%s for", alert).matches("\\d+[smhdwy]");
            Map<String, Object> labels = (Map<String, Object>) rule.get("labels");
            assertThat(labels).as("%s labels", alert).isNotNull();
            assertThat(labels.get("severity")).as("%s severity", alert).isIn("critical", "warning", "info");
            Map<String, Object> annotations = (Map<String, Object>) rule.get("annotations");
            assertThat(annotations).as("%s annotations", alert).isNotNull();
            assertThat((String) annotations.get("summary"))
                    .as("%s summary", alert)
                    .isNotBlank();
            assertThat((String) annotations.get("description"))
                    .as("%s description", alert)
                    .isNotBlank();
            assertThat((String) annotations.get("runbook_url"))
                    .as("%s runbook_url", alert)
                    .isNotBlank();

            // {{ $labels.x }} must name a label the alert's series carry.
            String expr = (String) rule.get("expr");
            Set<String> available = new TreeSet<>(Set.of("instance", "job"));
            for (String name : metricNames(expr)) {
                if (EXTERNAL_METRICS.containsKey(name)) {
                    available.addAll(EXTERNAL_METRICS.get(name));
                    continue;
                }
                String documentedAs = documentedName(name, documented);
                Documented doc = documentedAs == null ? null : documented.get(documentedAs);
                if (doc != null) { // undocumented names fail everyMetricOfTheDashboardAndTheAlertsIsDocumented
                    available.addAll(doc.labels());
                }
            }
            Matcher by = Pattern.compile("\\bby\\s*\\(([^)]*)\\)").matcher(expr);
            if (by.find()) {
                available.retainAll(List.of(by.group(1).trim().split("\\s*,\\s*")));
            }
            Matcher without = Pattern.compile("\\bwithout\\s*\\(([^)]*)\\)").matcher(expr);
            while (without.find()) {
                available.removeAll(List.of(without.group(1).trim().split("\\s*,\\s*")));
            }
            for (Object text : annotations.values()) {
                Matcher m = LABEL_TEMPLATE.matcher(String.valueOf(text));
                while (m.find()) {
                    assertThat(available)
                            .as("%s annotation uses $labels.%s", alert, m.group(1))
                            .contains(m.group(1));
                }
            }
        }
    }

    /** GitHub's anchor of a Markdown heading: lower case, punctuation dropped, spaces to hyphens. */
    static String anchor(String heading) {
        return heading.trim().toLowerCase().replaceAll("[^\\w\\- ]", "").replace(' ', '-');
    }

    @Test
    @SuppressWarnings("unchecked")
    void everyAlertLinksARunbookThatExists() throws IOException {
        Pattern url = Pattern.compile("docs/operations/([\\w-]+\\.md)(?:#([\\w-]+))?");
        Set<String> files = new TreeSet<>();
        for (Map<String, Object> rule : alertRules()) {
            String alert = (String) rule.get("alert");
            Object link = ((Map<String, Object>) rule.get("annotations")).get("runbook_url");
            assertThat(link).as("%s runbook_url", alert).isInstanceOf(String.class);
            Matcher m = url.matcher((String) link);
            assertThat(m.matches())
                    .as("%s runbook_url %s is docs/operations/<file>.md[#<heading>]", alert, link)
                    .isTrue();
            Path runbook = RUNBOOKS.resolve(m.group(1));
            assertThat(runbook).as("%s runbook", alert).exists();
            files.add(m.group(1));
            if (m.group(2) != null) {
                assertThat(anchors(runbook))
                        .as("%s: headings of %s", alert, runbook)
                        .contains(m.group(2));
            }
        }
        // the index lists every runbook an alert links
        String index = Files.readString(RUNBOOKS.resolve("README.md"));
        for (String file : files) {
            assertThat(index).as("docs/operations/README.md links %s", file).contains("(" + file);
        }
    }

    /** The anchors of a Markdown file's headings (outside fenced code blocks). */
    static Set<String> anchors(Path markdown) throws IOException {
        Set<String> anchors = new TreeSet<>();
        boolean fenced = false;
        for (String line : Files.readAllLines(markdown)) {
            if (line.startsWith("```")) {
                fenced = !fenced;
            } else if (!fenced && line.startsWith("#")) {
                anchors.add(anchor(line.replaceFirst("^#+", "")));
            }
        }
        return anchors;
    }

    /**
     * Every runbook ends with what not to do, and every relative link of docs/operations leads somewhere: the
     * file exists and, for a Markdown file, so does the heading its anchor names.
     */
    @Test
    void everyRunbookSaysWhatNotToDoAndItsLinksResolve() throws IOException {
        Pattern link = Pattern.compile("\\]\\(([^)\\s]+)\\)");
        List<String> broken = new ArrayList<>();
        List<Path> pages;
        try (var files = Files.list(RUNBOOKS)) {
            pages = files.filter(f -> f.toString().endsWith(".md")).sorted().toList();
        }
        assertThat(pages).hasSizeGreaterThan(5);
        for (Path page : pages) {
            if (!page.getFileName().toString().equals("README.md")) {
                assertThat(anchors(page))
                        .as("%s has a 'What not to do' section", page)
                        .contains("what-not-to-do");
            }
            // link targets may wrap: join the lines
            Matcher m = link.matcher(Files.readString(page).replace("\n", " "));
            while (m.find()) {
                String target = m.group(1);
                if (target.startsWith("http://") || target.startsWith("https://")) {
                    continue;
                }
                int hash = target.indexOf('#');
                String file = hash < 0 ? target : target.substring(0, hash);
                Path resolved =
                        file.isEmpty() ? page : page.resolveSibling(file).normalize();
                if (!Files.exists(resolved)) {
                    broken.add(page.getFileName() + ": " + target + " (no such file)");
                } else if (hash >= 0
                        && resolved.toString().endsWith(".md")
                        && !anchors(resolved).contains(target.substring(hash + 1))) {
                    broken.add(page.getFileName() + ": " + target + " (no such heading)");
                }
            }
        }
        assertThat(broken).as("broken links in docs/operations").isEmpty();
    }

    @Test
    void anchorsAreGitHubs() {
        assertThat(anchor(" A shard is down")).isEqualTo("a-shard-is-down");
        assertThat(anchor("Crash loop: `kube_pod` restarts")).isEqualTo("crash-loop-kube_pod-restarts");
    }

    @Test
    void externalMetricsAreDocumentedAndUsedByAlertsOnly() throws IOException {
        Set<String> usedByAlerts =
                new TreeSet<>(referencedMetrics(alertExpressions()).keySet());
        usedByAlerts.removeIf(name -> name.startsWith("etl_"));
        assertThat(usedByAlerts)
                .as("metrics of the alerts that are not the application's: EXTERNAL_METRICS, exactly")
                .isEqualTo(EXTERNAL_METRICS.keySet());
        assertThat(referencedMetrics(dashboardExpressions()).keySet())
                .as("the dashboard plots the application's metrics only")
                .allMatch(name -> name.startsWith("etl_"));
        String metricsMd = Files.readString(METRICS_MD);
        for (String name : EXTERNAL_METRICS.keySet()) {
            assertThat(metricsMd)
                    .as("METRICS.md names %s and where it comes from", name)
                    .contains("`" + name + "`");
        }
    }

    @Test
    void dashboardIsWellFormed() throws IOException {
        JsonNode dashboard = dashboard();
        assertThat(dashboard.path("schemaVersion").asInt()).isBetween(36, 41);
        assertThat(dashboard.path("uid").asText()).isNotBlank();
        assertThat(dashboard.path("__inputs").findValuesAsText("name")).contains("DS_PROMETHEUS");
        JsonNode pipeline = null;
        for (JsonNode variable : dashboard.path("templating").path("list")) {
            if (variable.path("name").asText().equals("pipeline")) {
                pipeline = variable;
            }
        }
        assertThat(pipeline).as("templating variable 'pipeline'").isNotNull();
        assertThat(pipeline.path("query").path("query").asText())
                .isEqualTo("label_values(etl_pipeline_state, pipeline)");
        assertThat(pipeline.path("datasource").path("uid").asText()).isEqualTo("${DS_PROMETHEUS}");

        Set<Integer> ids = new HashSet<>();
        int queryPanels = 0;
        Pattern selector = Pattern.compile("(etl_\\w+)(\\{[^}]*})?");
        for (JsonNode panel : panels(dashboard)) {
            String title = panel.path("title").asText();
            assertThat(title).as("panel title").isNotBlank();
            assertThat(panel.has("id")).as("panel '%s' has an id", title).isTrue();
            assertThat(ids.add(panel.path("id").asInt()))
                    .as("panel id %s ('%s') is unique", panel.path("id"), title)
                    .isTrue();
            assertThat(panel.path("gridPos").has("w"))
                    .as("panel '%s' gridPos", title)
                    .isTrue();
            if (panel.path("type").asText().equals("row")) {
                continue;
            }
            queryPanels++;
            assertThat(panel.path("datasource").path("uid").asText())
                    .as("panel '%s' datasource", title)
                    .isEqualTo("${DS_PROMETHEUS}");
            assertThat(panel.path("targets").size())
                    .as("panel '%s' targets", title)
                    .isPositive();
            Set<String> refIds = new HashSet<>();
            for (JsonNode target : panel.path("targets")) {
                String expr = target.path("expr").asText();
                assertThat(expr).as("panel '%s' target expr", title).isNotBlank();
                assertThat(refIds.add(target.path("refId").asText()))
                        .as("panel '%s' refId unique", title)
                        .isTrue();
                assertThat(target.path("datasource").path("uid").asText("${DS_PROMETHEUS}"))
                        .as("panel '%s' target datasource", title)
                        .isEqualTo("${DS_PROMETHEUS}");
                Matcher m = selector.matcher(expr);
                while (m.find()) {
                    assertThat(m.group(2))
                            .as("panel '%s': %s filters on $pipeline", title, m.group(1))
                            .contains("pipeline=~\"$pipeline\"");
                }
            }
        }
        assertThat(queryPanels).isGreaterThan(20);
    }

    // ------------------------------------------------------------------ against METRICS.md

    @Test
    void alertRulesAreTheSuggestedAlertsOfMetricsMd() throws IOException {
        Map<String, Map<String, Object>> rules = new LinkedHashMap<>();
        alertRules().forEach(rule -> rules.put((String) rule.get("alert"), rule));
        List<SuggestedAlert> suggested = suggestedAlerts();
        assertThat(rules.keySet())
                .as("one rule per row of METRICS.md's suggested alerts")
                .containsExactlyInAnyOrderElementsOf(
                        suggested.stream().map(SuggestedAlert::alert).toList());
        for (SuggestedAlert row : suggested) {
            Map<String, Object> rule = rules.get(row.alert());
            String expr = normalize(String.valueOf(rule.get("expr")));
            // METRICS.md's "<records your SLA allows>" placeholders are any number in the rule file.
            StringBuilder regex = new StringBuilder();
            Matcher placeholder = Pattern.compile("<[a-zA-Z][^<>]*>").matcher(normalize(row.expr()));
            int last = 0;
            while (placeholder.find()) {
                regex.append(Pattern.quote(normalize(row.expr()).substring(last, placeholder.start())))
                        .append("[0-9.eE+]+");
                last = placeholder.end();
            }
            regex.append(Pattern.quote(normalize(row.expr()).substring(last)));
            assertThat(expr)
                    .as("%s expr is METRICS.md's `%s`", row.alert(), row.expr())
                    .matches(regex.toString());
            assertThat(String.valueOf(rule.get("for")))
                    .as("%s for", row.alert())
                    .isEqualTo(row.forDuration());
        }
    }

    private static String normalize(String expr) {
        return expr.trim().replaceAll("\\s+", " ");
    }

    @Test
    void everyMetricOfTheDashboardAndTheAlertsIsDocumented() throws IOException {
        Map<String, Documented> documented = documentedMetrics();
        assertThat(documented).as("metrics parsed from METRICS.md").hasSizeGreaterThan(25);
        Map<String, Set<String>> used = referencedMetrics(dashboardExpressions());
        used.putAll(referencedMetrics(alertExpressions()));
        assertThat(used)
                .as("metrics referenced by the dashboard and the alerts")
                .hasSizeGreaterThan(25);
        Map<String, Set<String>> undocumented = new TreeMap<>();
        used.forEach((name, where) -> {
            if (!EXTERNAL_METRICS.containsKey(name) && documentedName(name, documented) == null) {
                undocumented.put(name, where);
            }
        });
        assertThat(undocumented)
                .as("metrics used but not in docs/METRICS.md (name → where)")
                .isEmpty();

        Set<String> onDashboard = new TreeSet<>();
        referencedMetrics(dashboardExpressions()).keySet().forEach(n -> onDashboard.add(documentedName(n, documented)));
        assertThat(onDashboard)
                .as("documented metrics on the dashboard")
                .containsExactlyInAnyOrderElementsOf(documented.keySet());
    }

    // ------------------------------------------------------------------ promtool, where installed

    /**
     * With Prometheus's {@code promtool}: the rule file and every dashboard expression parse, and
     * {@code etl-alerts.test.yaml}'s rule unit tests pass. {@code promtool} is the file named by the
     * {@code ETL_PROMTOOL} environment variable (or {@code etl.promtool} system property), which must then be
     * executable: {@code .ci/run} sets it, so CI never skips this; otherwise the first {@code promtool} on the
     * PATH (Debian: {@code apt-get download prometheus} and take {@code usr/bin/promtool}), and skipped without.
     */
    @Test
    void promtoolChecksTheRulesTheirUnitTestsAndTheDashboardQueries(@TempDir Path tmp) throws Exception {
        Path promtool = promtool();
        assumeTrue(promtool != null, "promtool is not on the PATH and ETL_PROMTOOL is not set");
        run(promtool.toString(), "check", "rules", ALERTS.toString());
        run(
                promtool.toString(),
                "test",
                "rules",
                ALERTS.resolveSibling("etl-alerts.test.yaml").toString());

        List<Map<String, Object>> rules = new ArrayList<>();
        int i = 0;
        for (String expr : dashboardExpressions().keySet()) {
            String promql = expr.replace("$__rate_interval", "1m")
                    .replace("$__range", "1h")
                    .replace("$pipeline", ".*");
            rules.add(Map.of("record", "etl:dashboard:" + i++, "expr", promql));
        }
        Path file = tmp.resolve("dashboard-rules.yaml");
        Files.writeString(
                file, new Yaml().dump(Map.of("groups", List.of(Map.of("name", "dashboard", "rules", rules)))));
        run(promtool.toString(), "check", "rules", file.toString());
    }

    /** The promtool named by ETL_PROMTOOL / etl.promtool (required to exist when named), else on the PATH, else null. */
    static Path promtool() {
        String named = System.getProperty("etl.promtool", System.getenv("ETL_PROMTOOL"));
        if (named != null && !named.isBlank()) {
            Path path = Path.of(named);
            assertThat(Files.isExecutable(path))
                    .as("ETL_PROMTOOL / etl.promtool names %s, which is not an executable file", path)
                    .isTrue();
            return path;
        }
        for (String dir : System.getenv().getOrDefault("PATH", "").split(java.io.File.pathSeparator)) {
            if (!dir.isEmpty() && Files.isExecutable(Path.of(dir, "promtool"))) {
                return Path.of(dir, "promtool");
            }
        }
        return null;
    }

    private static void run(String... command) throws Exception {
        Process process = new ProcessBuilder(command).redirectErrorStream(true).start();
        java.util.concurrent.CompletableFuture<byte[]> output =
                java.util.concurrent.CompletableFuture.supplyAsync(() -> {
                    try {
                        return process.getInputStream().readAllBytes();
                    } catch (IOException e) {
                        throw new java.io.UncheckedIOException(e);
                    }
                });
        if (!process.waitFor(60, java.util.concurrent.TimeUnit.SECONDS)) {
            process.destroyForcibly();
            throw new AssertionError(String.join(" ", command) + " did not finish within 60 s");
        }
        String text = new String(output.get(10, java.util.concurrent.TimeUnit.SECONDS));
        assertThat(process.exitValue())
                .as("%s:%n%s", String.join(" ", command), text)
                .isZero();
    }

    // ------------------------------------------------------------------ against the running app

    @Test
    void everyMetricOfTheDashboardAndTheAlertsIsExported() throws Exception {
        this.source.handle().assign(0, 0);
        long offset = this.source.handle().push(0, "k".getBytes(), "v".getBytes());
        assertThat(this.source.handle().awaitCommitted(0, offset + 1, Duration.ofSeconds(20)))
                .isTrue();

        try (ConnectorMeters connectors = new ConnectorMeters(this.registry, "grafana")) {
            Set<String> exported = exportedNames(scrape());

            Map<String, Set<String>> used = referencedMetrics(dashboardExpressions());
            referencedMetrics(alertExpressions())
                    .forEach((k, v) -> used.merge(k, v, (a, b) -> {
                        a.addAll(b);
                        return a;
                    }));
            Map<String, Set<String>> missing = new TreeMap<>();
            used.forEach((name, where) -> {
                if (!EXTERNAL_METRICS.containsKey(name) && !exported.contains(name)) {
                    missing.put(name, where);
                }
            });
            assertThat(missing)
                    .as("metrics used but not in /actuator/prometheus (name → where)")
                    .isEmpty();

            Set<String> notExported = new TreeSet<>();
            documentedMetrics().forEach((name, doc) -> {
                String sample = doc.type().equals("timer") || doc.type().equals("summary") ? name + "_count" : name;
                if (!exported.contains(sample)) {
                    notExported.add(name);
                }
            });
            assertThat(notExported)
                    .as("metrics documented in METRICS.md but not exported")
                    .isEmpty();
        }
    }

    /** Sample names of a Prometheus text exposition. */
    static Set<String> exportedNames(String exposition) {
        Set<String> names = new TreeSet<>();
        for (String line : exposition.split("\n")) {
            if (!line.isBlank() && !line.startsWith("#")) {
                int end = line.indexOf('{');
                names.add(line.substring(0, end >= 0 ? end : line.indexOf(' ')));
            }
        }
        return names;
    }

    private String scrape() throws Exception {
        HttpClient http =
                HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();
        HttpRequest request = HttpRequest.newBuilder(
                        URI.create("http://127.0.0.1:" + this.port + "/actuator/prometheus"))
                .timeout(Duration.ofSeconds(10))
                .build();
        HttpResponse<String> response = http.send(request, HttpResponse.BodyHandlers.ofString());
        assertThat(response.statusCode()).isEqualTo(200);
        return response.body();
    }

    /**
     * The Kafka and ClickHouse connectors' meters, registered by their own classes into {@code registry}:
     * one Kafka lane (its consumer is created and subscribed but never polls), one partition's lag gauge,
     * and one ClickHouse shard writer with one replica (its transport is never called).
     */
    static final class ConnectorMeters implements AutoCloseable {
        private final SourceLane lane;
        private final Object lagGauges;
        private final ClickHouseShardWriter writer;
        private final KafkaDeadLetterWriter deadLetter;
        private final dev.etl.s3.S3BackfillSource backfill;

        ConnectorMeters(MeterRegistry registry, String pipeline) throws Exception {
            KafkaSourceConfig kafka = KafkaSourceConfig.builder()
                    .pipeline(pipeline)
                    .meterRegistry(registry)
                    .topics("orders")
                    .property(ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, "127.0.0.1:9")
                    .property(ConsumerConfig.GROUP_ID_CONFIG, pipeline)
                    .build();
            this.lane = new KafkaSource(kafka).openLane(0, new PartitionListener() {
                @Override
                public void onAssigned(int[] partitions) {}

                @Override
                public void onRevoked(int[] partitions) {}

                @Override
                public void onLost(int[] partitions) {}
            });
            // etl_source_lag_records exists while a lane owns the partition; without a broker no lane
            // is assigned one, so claim it the way KafkaSourceLane does on assignment.
            Class<?> gauges = Class.forName("dev.etl.kafka.PartitionLagGauges");
            Constructor<?> constructor = gauges.getDeclaredConstructor(MeterRegistry.class, String.class);
            constructor.setAccessible(true);
            this.lagGauges = constructor.newInstance(registry, pipeline);
            Method claim = gauges.getDeclaredMethod("claim", int.class, TopicPartition.class, int.class);
            claim.setAccessible(true);
            claim.invoke(this.lagGauges, 0, new TopicPartition("orders", 0), 0);

            // Native, so that the format's own meters are registered too (the replica meters do not depend on it).
            ClickHouseSinkConfig clickhouse = ClickHouseSinkConfig.builder()
                    .table("default", "orders")
                    .shard("http://127.0.0.1:9")
                    .format(InsertFormat.NATIVE)
                    .build();
            this.writer = new ClickHouseShardWriter(
                    clickhouse,
                    List.of(new ClickHouseColumn("id", "UInt64")),
                    0,
                    "orders",
                    pipeline,
                    ClickHouseCapabilities.legacy("23.8"),
                    new ClickHouseTransport() {
                        @Override
                        public long insert(URI replica, ClickHouseInsert insert, byte[] body, int length) {
                            throw new UnsupportedOperationException();
                        }

                        @Override
                        public String query(URI replica, String sql) {
                            throw new UnsupportedOperationException();
                        }
                    },
                    registry,
                    System::nanoTime,
                    () -> {});
            // The dead-letter writer's meters (no producer is created until a write).
            this.deadLetter = new KafkaDeadLetterWriter(
                    Map.of("bootstrap.servers", "127.0.0.1:9"),
                    "orders-dlq",
                    Duration.ofSeconds(1),
                    new KafkaDeadLetterWriter.Options(
                            KafkaDeadLetterWriter.DEFAULT_MAX_RECORD_BYTES, false, registry, pipeline));
            // A DedupPerKey stage's meter, registered by the operator itself when it opens.
            dev.etl.ops.DedupPerKey.<Object, Object>by(v -> v).build().open(new dev.etl.ops.OperatorContext() {
                @Override
                public String stageName() {
                    return "dedup";
                }

                @Override
                public String pipelineName() {
                    return pipeline;
                }

                @Override
                public int laneIndex() {
                    return 0;
                }

                @Override
                public dev.etl.record.RecordMeta meta() {
                    return null;
                }

                @Override
                public MeterRegistry meterRegistry() {
                    return registry;
                }

                @Override
                public String describePartition(int partition) {
                    return "orders-" + partition;
                }

                @Override
                public dev.etl.ops.OperatorTimer timer() {
                    return null;
                }
            });
            // The backfill source's meters (registered when it is built; nothing connects before a lane opens).
            this.backfill = new dev.etl.s3.S3BackfillSource(dev.etl.s3.S3BackfillConfig.builder()
                    .workTopic(kafka)
                    .store(dev.etl.s3.S3ObjectStore.builder()
                            .endpoint("http://127.0.0.1:9")
                            .credentials("a", "b")
                            .build())
                    .bucket("b")
                    .meterRegistry(registry)
                    .pipeline(pipeline)
                    .build());
        }

        @Override
        public void close() throws Exception {
            this.writer.close();
            this.deadLetter.close();
            this.backfill.close();
            Method close = this.lagGauges.getClass().getDeclaredMethod("close");
            close.setAccessible(true);
            close.invoke(this.lagGauges);
            this.lane.close();
        }
    }
}
