package dev.etl.deploy;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import dev.etl.autoconfigure.EtlBackpressureProperties;
import dev.etl.autoconfigure.EtlCheckpointProperties;
import dev.etl.autoconfigure.EtlPipelineLifecycle;
import dev.etl.autoconfigure.EtlPipelineProperties;
import dev.etl.autoconfigure.clickhouse.EtlClickHouseProperties;
import dev.etl.autoconfigure.kafka.EtlKafkaProperties;
import dev.etl.autoconfigure.s3.EtlS3Properties;
import dev.etl.kafka.KafkaSourceConfig;
import dev.etl.pipeline.PipelineConfig;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.junit.jupiter.api.Test;
import org.springframework.boot.context.properties.bind.Bindable;
import org.springframework.boot.context.properties.bind.Binder;
import org.springframework.boot.env.YamlPropertySourceLoader;
import org.springframework.boot.kafka.autoconfigure.KafkaProperties;
import org.springframework.core.env.MutablePropertySources;
import org.springframework.core.env.StandardEnvironment;
import org.springframework.core.env.SystemEnvironmentPropertySource;
import org.springframework.core.io.FileSystemResource;
import org.springframework.util.unit.DataSize;
import org.yaml.snakeyaml.DumperOptions;
import org.yaml.snakeyaml.Yaml;

/**
 * The Kubernetes manifests of {@code deploy/kubernetes}, checked without a cluster.
 *
 * <ol>
 *   <li>Every YAML file there is a kustomization, a patch a kustomization applies, a manifest a kustomization
 *       lists, or one of {@link #NOT_MANIFESTS}: nothing lies around unchecked.
 *   <li>Every kustomization renders ({@link Kustomize}; compared with {@code kubectl kustomize} where one is
 *       installed), and every object of every rendering matches its schema strictly ({@link ManifestSchema}:
 *       unknown fields, missing required fields and values of the wrong type fail).
 *   <li>The values agree with the application: the pod's environment is bound, with the sample's
 *       {@code application.yaml} (and the profile's file), by Spring's own binder into the starter's
 *       properties classes, and the port, probes, grace period, memory, static membership, Kafka security,
 *       autoscaler bounds and backfill parallelism are checked against what the application then runs with.
 * </ol>
 *
 * {@link ProbePathsTest} starts an application and requests the probes' and the scrape's paths.
 */
class DeployManifestsTest {

    static final Path ROOT = Path.of("..");
    static final Path KUBERNETES = ROOT.resolve("deploy/kubernetes");
    static final Path SAMPLE_CONFIG = ROOT.resolve("sample-service/src/main/resources");
    static final Path ALERTS = ROOT.resolve("deploy/prometheus/etl-alerts.yaml");
    static final Path PROMETHEUS_RULE = KUBERNETES.resolve("components/prometheus-operator/prometheusrule.yaml");
    static final Path ADAPTER_RULES = KUBERNETES.resolve("components/autoscaling/prometheus-adapter-rules.yaml");
    static final Path EXAMPLE_SECRET = KUBERNETES.resolve("examples/secret.yaml");

    /** YAML files that are not Kubernetes objects: configuration of another program, checked below. */
    static final Set<Path> NOT_MANIFESTS = Set.of(ADAPTER_RULES.normalize());

    /** The annotation on the StatefulSet that says how many partitions its topic has. */
    static final String PARTITIONS_ANNOTATION = "etl/topic-partitions";

    /** Time the JVM needs after Spring's shutdown phase to exit, on top of it in the grace period. */
    static final Duration EXIT_MARGIN = Duration.ofSeconds(5);

    /** Heap the application needs besides the pipeline's encoded data (Spring, clients, caches, metrics). */
    static final DataSize OTHER_HEAP = DataSize.ofMegabytes(256);

    /** Memory the JVM needs outside the heap (metaspace, code cache, thread stacks, GC structures). */
    static final DataSize NON_HEAP = DataSize.ofMegabytes(384);

    static final long MIB = 1L << 20;

    // ------------------------------------------------------------------ files

    /** Directories with a kustomization of kind Kustomization (renderable on their own). */
    static List<Path> kustomizations() throws IOException {
        List<Path> out = new ArrayList<>();
        try (Stream<Path> files = Files.walk(KUBERNETES)) {
            for (Path file : files.filter(f -> f.getFileName().toString().equals("kustomization.yaml"))
                    .sorted()
                    .toList()) {
                Map<String, Object> k = Kustomize.kustomization(file.getParent());
                if ("Kustomization".equals(k.get("kind"))) {
                    out.add(file.getParent().normalize());
                }
            }
        }
        assertThat(out).as("kustomizations under %s", KUBERNETES).hasSizeGreaterThanOrEqualTo(6);
        return out;
    }

    static List<Map<String, Object>> render(String dir) {
        return Kustomize.render(KUBERNETES.resolve(dir).normalize());
    }

    @SuppressWarnings("unchecked")
    @Test
    void everyYamlFileIsAKustomizationAPatchOrAManifestThatMatchesItsSchema() throws IOException {
        Set<Path> resources = new TreeSet<>();
        Set<Path> patches = new TreeSet<>();
        Set<Path> kustomizationFiles = new TreeSet<>();
        try (Stream<Path> files = Files.walk(KUBERNETES)) {
            for (Path file : files.filter(f -> f.getFileName().toString().equals("kustomization.yaml"))
                    .toList()) {
                Path dir = file.getParent();
                kustomizationFiles.add(file.normalize());
                Map<String, Object> k = Kustomize.kustomization(dir);
                for (Object r : (List<Object>) k.getOrDefault("resources", List.of())) {
                    Path path = dir.resolve(String.valueOf(r)).normalize();
                    if (Files.isRegularFile(path)) {
                        resources.add(path);
                    }
                }
                for (Object p : (List<Object>) k.getOrDefault("patches", List.of())) {
                    Object path = ((Map<String, Object>) p).get("path");
                    if (path != null) {
                        patches.add(dir.resolve(String.valueOf(path)).normalize());
                    }
                }
            }
        }
        List<Path> yaml;
        try (Stream<Path> files = Files.walk(KUBERNETES)) {
            yaml = files.filter(
                            f -> f.toString().endsWith(".yaml") || f.toString().endsWith(".yml"))
                    .map(Path::normalize)
                    .sorted()
                    .toList();
        }
        List<Path> unaccounted = new ArrayList<>();
        int objects = 0;
        for (Path file : yaml) {
            if (resources.contains(file)) {
                for (Object doc : Kustomize.load(file)) {
                    ManifestSchema.validate(
                            (Map<String, Object>) doc,
                            KUBERNETES.relativize(file).toString());
                    objects++;
                }
            } else if (!patches.contains(file) && !kustomizationFiles.contains(file) && !NOT_MANIFESTS.contains(file)) {
                unaccounted.add(file);
            }
        }
        assertThat(unaccounted)
                .as("YAML files under deploy/kubernetes that no kustomization lists as a resource or a patch")
                .isEmpty();
        assertThat(objects).as("manifests checked").isGreaterThanOrEqualTo(10);
    }

    @Test
    void everyKustomizationRendersToObjectsThatMatchTheirSchemas() throws IOException {
        for (Path dir : kustomizations()) {
            List<Map<String, Object>> objects = Kustomize.render(dir);
            assertThat(objects).as("objects of %s", dir).isNotEmpty();
            for (Map<String, Object> object : objects) {
                ManifestSchema.validate(object, KUBERNETES.relativize(dir) + ": " + Kustomize.id(object));
            }
        }
    }

    /**
     * The renderer against the real thing: {@code kubectl kustomize} (Kustomize v4 or later, for components)
     * renders every kustomization to the same objects. Skipped where no such kubectl is on the PATH.
     */
    @Test
    void theRendererAgreesWithKubectlKustomize() throws Exception {
        String kubectl = kubectlWithKustomize();
        assumeTrue(kubectl != null, "no kubectl with Kustomize v4+ on the PATH");
        for (Path dir : kustomizations()) {
            String out = run(kubectl, "kustomize", dir.toString());
            Map<String, Object> theirs = new TreeMap<>();
            for (Object doc : Kustomize.loadAll(out, "kubectl kustomize " + dir)) {
                @SuppressWarnings("unchecked")
                Map<String, Object> object = (Map<String, Object>) doc;
                theirs.put(Kustomize.id(object), object);
            }
            Map<String, Object> ours = new TreeMap<>();
            Kustomize.render(dir).forEach(object -> ours.put(Kustomize.id(object), object));
            assertThat(ours).as("%s rendered here and by %s", dir, kubectl).isEqualTo(theirs);
        }
    }

    static String kubectlWithKustomize() {
        for (String dir : System.getenv().getOrDefault("PATH", "").split(java.io.File.pathSeparator)) {
            Path kubectl = Path.of(dir, "kubectl");
            if (!dir.isEmpty() && Files.isExecutable(kubectl)) {
                try {
                    Matcher m = Pattern.compile("Kustomize Version: v(\\d+)")
                            .matcher(run(kubectl.toString(), "version", "--client"));
                    return m.find() && Integer.parseInt(m.group(1)) >= 4 ? kubectl.toString() : null;
                } catch (Exception | AssertionError e) {
                    return null;
                }
            }
        }
        return null;
    }

    static String run(String... command) throws Exception {
        Process process = new ProcessBuilder(command).redirectErrorStream(true).start();
        byte[] out = process.getInputStream().readAllBytes();
        assertThat(process.waitFor(60, TimeUnit.SECONDS)).isTrue();
        String text = new String(out, StandardCharsets.UTF_8);
        assertThat(process.exitValue())
                .as("%s:%n%s", String.join(" ", command), text)
                .isZero();
        return text;
    }

    // ------------------------------------------------------------------ the pods, bound as the application binds them

    /** The first object of {@code kind} in {@code objects}. */
    @SuppressWarnings("unchecked")
    static Map<String, Object> find(List<Map<String, Object>> objects, String kind) {
        return objects.stream()
                .filter(o -> kind.equals(o.get("kind")))
                .findFirst()
                .orElseThrow(() -> new AssertionError("no " + kind));
    }

    static boolean has(List<Map<String, Object>> objects, String kind) {
        return objects.stream().anyMatch(o -> kind.equals(o.get("kind")));
    }

    @SuppressWarnings("unchecked")
    static <T> T get(Object node, String... path) {
        Object current = node;
        for (String key : path) {
            if (current instanceof List<?> list) {
                current = list.get(Integer.parseInt(key));
            } else {
                current = current == null ? null : ((Map<String, Object>) current).get(key);
            }
        }
        return (T) current;
    }

    static Object at(Object node, String... path) {
        return get(node, path);
    }

    static Map<String, Object> podSpec(Map<String, Object> workload) {
        return get(workload, "spec", "template", "spec");
    }

    @SuppressWarnings("unchecked")
    static Map<String, Object> container(Map<String, Object> workload) {
        List<Map<String, Object>> containers = get(podSpec(workload), "containers");
        assertThat(containers).as("containers of %s", Kustomize.id(workload)).hasSize(1);
        return containers.get(0);
    }

    @SuppressWarnings("unchecked")
    static Map<String, String> exampleSecret() {
        Map<String, Object> secret =
                (Map<String, Object>) Kustomize.load(EXAMPLE_SECRET).get(0);
        Map<String, String> values = new LinkedHashMap<>();
        ((Map<String, Object>) secret.getOrDefault("stringData", Map.of()))
                .forEach((k, v) -> values.put(k, String.valueOf(v)));
        ((Map<String, Object>) secret.getOrDefault("data", Map.of())).forEach((k, v) -> values.put(k, ""));
        return values;
    }

    /**
     * The container's environment as the process sees it: values as written, the pod's name for
     * {@code fieldRef: metadata.name}, the example Secret's value for a {@code secretKeyRef} (which must name a
     * key of it).
     */
    @SuppressWarnings("unchecked")
    static Map<String, Object> environment(Map<String, Object> workload, String podName) {
        Map<String, String> secret = exampleSecret();
        Map<String, Object> env = new LinkedHashMap<>();
        for (Map<String, Object> var :
                (List<Map<String, Object>>) container(workload).getOrDefault("env", List.of())) {
            String name = String.valueOf(var.get("name"));
            assertThat(env).as("%s sets %s once", Kustomize.id(workload), name).doesNotContainKey(name);
            if (var.containsKey("value")) {
                env.put(name, String.valueOf(var.get("value")));
                continue;
            }
            String field = get(var, "valueFrom", "fieldRef", "fieldPath");
            Map<String, Object> secretRef = get(var, "valueFrom", "secretKeyRef");
            if ("metadata.name".equals(field)) {
                env.put(name, podName);
            } else if (secretRef != null) {
                assertThat(secretRef.get("name"))
                        .as("%s: Secret of %s", Kustomize.id(workload), name)
                        .isEqualTo("orders-etl");
                assertThat(secret)
                        .as(
                                "%s: %s reads key %s of the Secret, which examples/secret.yaml must have",
                                Kustomize.id(workload), name, secretRef.get("key"))
                        .containsKey(String.valueOf(secretRef.get("key")));
                env.put(name, secret.get(String.valueOf(secretRef.get("key"))));
            } else {
                throw new AssertionError(
                        Kustomize.id(workload) + ": env " + name + " has a source the test does not know");
            }
        }
        return env;
    }

    /**
     * Spring's view of the pod: its environment variables (as operating-system environment, with Spring's
     * relaxed names), over the sample's {@code application-<profile>.yaml} and {@code application.yaml}.
     */
    static Binder springView(Map<String, Object> env) throws IOException {
        StandardEnvironment environment = new StandardEnvironment();
        MutablePropertySources sources = environment.getPropertySources();
        sources.remove(StandardEnvironment.SYSTEM_ENVIRONMENT_PROPERTY_SOURCE_NAME);
        sources.remove(StandardEnvironment.SYSTEM_PROPERTIES_PROPERTY_SOURCE_NAME);
        // under the name of the operating system's environment: Spring maps ETL_THREADS to etl.threads and so on
        // only for a source of that name
        sources.addFirst(
                new SystemEnvironmentPropertySource(StandardEnvironment.SYSTEM_ENVIRONMENT_PROPERTY_SOURCE_NAME, env));
        YamlPropertySourceLoader yaml = new YamlPropertySourceLoader();
        Object profiles = env.get("SPRING_PROFILES_ACTIVE");
        if (profiles != null) {
            for (String profile : String.valueOf(profiles).split(",")) {
                Path file = SAMPLE_CONFIG.resolve("application-" + profile.trim() + ".yaml");
                assertThat(file).as("the profile %s's configuration", profile).exists();
                yaml.load(file.toString(), new FileSystemResource(file)).forEach(sources::addLast);
            }
        }
        Path application = SAMPLE_CONFIG.resolve("application.yaml");
        yaml.load(application.toString(), new FileSystemResource(application)).forEach(sources::addLast);
        return Binder.get(environment);
    }

    record Pod(
            Map<String, Object> workload,
            Map<String, Object> env,
            EtlPipelineProperties pipeline,
            EtlCheckpointProperties checkpoint,
            EtlBackpressureProperties backpressure,
            EtlKafkaProperties kafka,
            EtlClickHouseProperties clickhouse,
            EtlS3Properties s3,
            KafkaProperties springKafka,
            Binder binder) {

        static Pod of(Map<String, Object> workload, String podName) throws IOException {
            Map<String, Object> env = environment(workload, podName);
            Binder binder = springView(env);
            return new Pod(
                    workload,
                    env,
                    binder.bindOrCreate("etl.pipeline", EtlPipelineProperties.class),
                    binder.bindOrCreate("etl.checkpoint", EtlCheckpointProperties.class),
                    binder.bindOrCreate("etl.backpressure", EtlBackpressureProperties.class),
                    binder.bindOrCreate("etl.source.kafka", EtlKafkaProperties.class),
                    binder.bindOrCreate("etl.sink.clickhouse", EtlClickHouseProperties.class),
                    binder.bindOrCreate("etl.source.s3", EtlS3Properties.class),
                    binder.bindOrCreate("spring.kafka", KafkaProperties.class),
                    binder);
        }

        String id() {
            return Kustomize.id(this.workload);
        }

        int lanes() {
            return this.pipeline.getThreads();
        }

        Duration shutdownPhase() {
            return this.binder
                    .bind("spring.lifecycle.timeout-per-shutdown-phase", Duration.class)
                    .orElse(Duration.ofSeconds(30));
        }

        int serverPort() {
            return this.binder.bind("server.port", Integer.class).orElse(8080);
        }
    }

    static Pod pipeline(String overlay) throws IOException {
        Map<String, Object> sts = find(render(overlay), "StatefulSet");
        return Pod.of(sts, Kustomize.name(sts) + "-0");
    }

    static int partitions(Map<String, Object> statefulSet) {
        String value = get(statefulSet, "metadata", "annotations", PARTITIONS_ANNOTATION);
        assertThat(value)
                .as("%s annotation %s", Kustomize.id(statefulSet), PARTITIONS_ANNOTATION)
                .isNotNull();
        return Integer.parseInt(value);
    }

    // ------------------------------------------------------------------ port, probes, shutdown

    @Test
    void theContainerPortIsTheApplicationsPortAndTheProbesUseIt() throws IOException {
        for (String dir : List.of("overlays/dev", "overlays/production", "backfill/run")) {
            List<Map<String, Object>> objects = render(dir);
            Map<String, Object> workload =
                    has(objects, "StatefulSet") ? find(objects, "StatefulSet") : find(objects, "Job");
            Pod pod = Pod.of(workload, "pod-0");
            List<Map<String, Object>> ports = get(container(workload), "ports");
            assertThat(ports).as("%s ports", pod.id()).hasSize(1);
            assertThat(ports.get(0).get("name")).isEqualTo("http");
            assertThat(ports.get(0).get("containerPort"))
                    .as("%s containerPort is server.port as the application binds it", pod.id())
                    .isEqualTo(pod.serverPort());
            for (String probe : List.of("startupProbe", "livenessProbe", "readinessProbe")) {
                Map<String, Object> p = get(container(workload), probe);
                if (p == null) {
                    continue;
                }
                assertThat(at(p, "httpGet", "port"))
                        .as("%s %s port", pod.id(), probe)
                        .isEqualTo("http");
                String expected = probe.equals("readinessProbe") ? ProbePathsTest.READINESS : ProbePathsTest.LIVENESS;
                assertThat(at(p, "httpGet", "path"))
                        .as("%s %s path", pod.id(), probe)
                        .isEqualTo(expected);
            }
            assertThat(at(container(workload), "livenessProbe"))
                    .as("%s has a liveness probe", pod.id())
                    .isNotNull();
        }
        List<Map<String, Object>> production = render("overlays/production");
        assertThat(at(find(production, "Service"), "spec", "ports", "0", "targetPort"))
                .isEqualTo("http");
        Map<String, Object> endpoint = get(find(production, "PodMonitor"), "spec", "podMetricsEndpoints", "0");
        assertThat(endpoint.get("port")).isEqualTo("http");
        assertThat(endpoint.get("path")).isEqualTo(ProbePathsTest.PROMETHEUS);
        // the scrape path exists only where the application exposes the endpoint
        Pod pod = pipeline("overlays/production");
        assertThat(pod.binder()
                        .bind("management.endpoints.web.exposure.include", Bindable.setOf(String.class))
                        .orElse(Set.of()))
                .contains("prometheus", "health");
        assertThat(pod.binder()
                        .bind("management.endpoints.web.base-path", String.class)
                        .orElse("/actuator"))
                .isEqualTo("/actuator");
        assertThat(pod.binder().bind("management.server.port", Integer.class).isBound())
                .as("the scrape and the probes share the container's one port")
                .isFalse();
    }

    @Test
    void theGracePeriodCoversThePreStopTheDrainAndTheExit() throws IOException {
        for (String dir : List.of("overlays/dev", "overlays/production", "backfill/run")) {
            List<Map<String, Object>> objects = render(dir);
            Map<String, Object> workload =
                    has(objects, "StatefulSet") ? find(objects, "StatefulSet") : find(objects, "Job");
            Pod pod = Pod.of(workload, "pod-0");
            Duration drain = pod.checkpoint().getDrainTimeout();
            assertThat(drain)
                    .as("the sample sets the default drain timeout")
                    .isEqualTo(PipelineConfig.DEFAULT_DRAIN_TIMEOUT);
            assertThat(pod.shutdownPhase())
                    .as(
                            "%s: spring.lifecycle.timeout-per-shutdown-phase ≥ drain-timeout + %s (the application warns below it)",
                            pod.id(), EtlPipelineLifecycle.SHUTDOWN_MARGIN)
                    .isGreaterThanOrEqualTo(drain.plus(EtlPipelineLifecycle.SHUTDOWN_MARGIN));
            Integer preStop = get(container(workload), "lifecycle", "preStop", "sleep", "seconds");
            Duration needed = pod.shutdownPhase()
                    .plusSeconds(preStop == null ? 0 : preStop)
                    .plus(EXIT_MARGIN);
            Integer grace = get(podSpec(workload), "terminationGracePeriodSeconds");
            assertThat(grace).as("%s terminationGracePeriodSeconds", pod.id()).isNotNull();
            assertThat(Duration.ofSeconds(grace))
                    .as(
                            "%s: terminationGracePeriodSeconds ≥ preStop (%s s) + shutdown phase (%s) + %s",
                            pod.id(), preStop, pod.shutdownPhase(), EXIT_MARGIN)
                    .isGreaterThanOrEqualTo(needed);
            if (preStop != null) {
                assertThat(preStop)
                        .as("%s: a long preStop delays the drain and holds the partitions", pod.id())
                        .isLessThanOrEqualTo(10);
            }
        }
    }

    // ------------------------------------------------------------------ memory

    /** The JVM's maximum heap in this container: -Xmx, else MaxRAMPercentage (default 25) of the memory limit. */
    static long heapBytes(Map<String, Object> env, long limitBytes) {
        String options = String.valueOf(env.getOrDefault("JAVA_TOOL_OPTIONS", ""));
        Matcher xmx = Pattern.compile("-Xmx(\\d+)([kKmMgG]?)").matcher(options);
        if (xmx.find()) {
            long n = Long.parseLong(xmx.group(1));
            return switch (xmx.group(2).toLowerCase()) {
                case "k" -> n << 10;
                case "m" -> n << 20;
                case "g" -> n << 30;
                default -> n;
            };
        }
        Matcher percent = Pattern.compile("-XX:MaxRAMPercentage=([\\d.]+)").matcher(options);
        double p = percent.find() ? Double.parseDouble(percent.group(1)) : 25.0;
        return (long) (limitBytes * p / 100);
    }

    static long quantityBytes(Object quantity) {
        Matcher m = Pattern.compile("(\\d+)(Ki|Mi|Gi|k|M|G)?").matcher(String.valueOf(quantity));
        assertThat(m.matches()).as("memory quantity %s", quantity).isTrue();
        long n = Long.parseLong(m.group(1));
        return n
                * switch (m.group(2) == null ? "" : m.group(2)) {
                    case "Ki" -> 1L << 10;
                    case "Mi" -> 1L << 20;
                    case "Gi" -> 1L << 30;
                    case "k" -> 1_000L;
                    case "M" -> 1_000_000L;
                    case "G" -> 1_000_000_000L;
                    default -> 1L;
                };
    }

    /**
     * The bound of docs/concepts/backpressure.md "How much memory" on the encoded data of one sink, for these
     * settings, with {@code partitions} the most partitions the pod may own, plus the consumers' fetched
     * records (max.partition.fetch.bytes per partition, docs/deployment/kubernetes.md).
     */
    static long pipelineBound(Pod pod, int partitions) {
        long budget = pod.backpressure().getMaxInFlightBytes() == null
                ? -1
                : pod.backpressure().getMaxInFlightBytes().toBytes();
        assertThat(budget)
                .as("%s sets etl.backpressure.max-in-flight-bytes (else it moves with the heap)", pod.id())
                .isPositive();
        int shards = pod.clickhouse().getShards().size();
        long batch = pod.clickhouse().getBatch().getMaxBytes().toBytes();
        int lanes = pod.lanes();
        long bound =
                budget + shards * 2 * batch + Math.max(shards * 4 * MIB, budget / 2) + (long) lanes * shards * 2 * MIB;
        if (pod.clickhouse().isDeterministicBlocks()) {
            // sealed blocks waiting while a sink refuses them: up to about the whole budget, and one partly
            // filled chunk per open block chain
            bound += budget + (long) partitions * shards * 2 * MIB;
        }
        if (pod.clickhouse().getFormat() == EtlClickHouseProperties.InsertFormat.NATIVE) {
            bound += shards * 2 * batch;
        }
        Object fetch = pod.kafka().getProperties().get(ConsumerConfig.MAX_PARTITION_FETCH_BYTES_CONFIG);
        long perPartition = fetch != null
                ? Long.parseLong(String.valueOf(fetch))
                : ((Number) KafkaSourceConfig.THROUGHPUT_DEFAULTS.get(ConsumerConfig.MAX_PARTITION_FETCH_BYTES_CONFIG))
                        .longValue();
        return bound + partitions * perPartition;
    }

    static void assertMemory(Pod pod, long encodedBound) {
        Map<String, Object> resources = get(container(pod.workload()), "resources");
        Object limit = get(resources, "limits", "memory");
        assertThat(limit).as("%s memory limit", pod.id()).isNotNull();
        assertThat(at(resources, "requests", "memory"))
                .as("%s requests the memory it is limited to", pod.id())
                .isEqualTo(limit);
        long limitBytes = quantityBytes(limit);
        long heap = heapBytes(pod.env(), limitBytes);
        assertThat(heap)
                .as(
                        "%s: heap (%s MiB) ≥ the encoded-data bound (%s MiB) + %s MiB for the rest of the application",
                        pod.id(), heap / MIB, encodedBound / MIB, OTHER_HEAP.toMegabytes())
                .isGreaterThanOrEqualTo(encodedBound + OTHER_HEAP.toBytes());
        assertThat(limitBytes - heap)
                .as(
                        "%s: memory limit (%s MiB) − heap (%s MiB) ≥ %s MiB outside the heap",
                        pod.id(), limitBytes / MIB, heap / MIB, NON_HEAP.toMegabytes())
                .isGreaterThanOrEqualTo(NON_HEAP.toBytes());
    }

    @Test
    void theMemoryLimitHoldsTheDocumentedBound() throws IOException {
        for (String overlay : List.of("overlays/dev", "overlays/production")) {
            Pod pod = pipeline(overlay);
            // at worst one pod owns every partition (the others down)
            long bound = pipelineBound(pod, partitions(pod.workload()));
            assertThat(bound / MIB)
                    .as("the bound the manifest's comment states")
                    .isEqualTo(824 + 24);
            assertMemory(pod, bound);
        }
        Pod run = Pod.of(find(render("backfill/run"), "Job"), "run-0");
        int workPartitions = run.s3().getWorkTopicPartitions();
        long readers = workPartitions
                * (run.s3().getReadAhead().toBytes() + run.s3().getSegmentSize().toBytes())
                * 9
                / 8;
        assertMemory(run, pipelineBound(run, workPartitions) + readers);
    }

    @Test
    void theHeapFollowsJavaToolOptions() {
        long gib = 1L << 30;
        assertThat(heapBytes(Map.of(), 2 * gib)).isEqualTo(gib / 2);
        assertThat(heapBytes(Map.of("JAVA_TOOL_OPTIONS", "-XX:MaxRAMPercentage=75"), 2 * gib))
                .isEqualTo(3 * gib / 2);
        assertThat(heapBytes(Map.of("JAVA_TOOL_OPTIONS", "-Xms1g -Xmx1280m"), 2 * gib))
                .isEqualTo(1280 * MIB);
        assertThat(quantityBytes("2Gi")).isEqualTo(2 * gib);
        assertThat(quantityBytes("512Mi")).isEqualTo(512 * MIB);
    }

    // ------------------------------------------------------------------ membership, scaling, selectors

    @Test
    void onlyTheStatefulSetsPodsAreStaticMembersNamedAfterThePod() throws IOException {
        for (String overlay : List.of("overlays/dev", "overlays/production")) {
            Pod pod = pipeline(overlay);
            assertThat(pod.kafka().getProperties())
                    .as("%s: group.instance.id is the pod's name (the source appends -lane-<i>)", pod.id())
                    .containsEntry("group.instance.id", Kustomize.name(pod.workload()) + "-0")
                    .containsEntry("session.timeout.ms", "30000");
            assertThat(at(pod.workload(), "spec", "podManagementPolicy")).isEqualTo("Parallel");
        }
        for (String dir : List.of("backfill/plan", "backfill/run")) {
            Pod job = Pod.of(find(render(dir), "Job"), "job-abcde");
            assertThat(job.kafka().getProperties())
                    .as("%s: a Job's pods get new names: no static membership", job.id())
                    .doesNotContainKey("group.instance.id");
        }
    }

    @Test
    void theInstancesNeverOutnumberThePartitions() throws IOException {
        for (String overlay : List.of("overlays/dev", "overlays/production")) {
            List<Map<String, Object>> objects = render(overlay);
            Map<String, Object> sts = find(objects, "StatefulSet");
            Pod pod = Pod.of(sts, "x-0");
            int partitions = partitions(sts);
            Integer replicas = get(sts, "spec", "replicas");
            if (has(objects, "HorizontalPodAutoscaler")) {
                Map<String, Object> hpa = find(objects, "HorizontalPodAutoscaler");
                assertThat(replicas)
                        .as("%s: the HPA owns the replica count", overlay)
                        .isNull();
                assertThat(at(hpa, "spec", "scaleTargetRef", "kind")).isEqualTo("StatefulSet");
                assertThat(at(hpa, "spec", "scaleTargetRef", "name")).isEqualTo(Kustomize.name(sts));
                int max = get(hpa, "spec", "maxReplicas");
                int min = get(hpa, "spec", "minReplicas");
                assertThat(min).isBetween(1, max);
                assertThat((long) max * pod.lanes())
                        .as(
                                "%s: maxReplicas (%s) × lanes (%s) ≤ partitions (%s)",
                                overlay, max, pod.lanes(), partitions)
                        .isLessThanOrEqualTo(partitions);
                // the metric: the lag the pipeline exports, of this pipeline's group
                Map<String, Object> metric = get(hpa, "spec", "metrics", "0", "external", "metric");
                assertThat(metric.get("name")).isEqualTo("etl_source_lag_records");
                String pipeline = pod.binder()
                        .bind("spring.application.name", String.class)
                        .get();
                assertThat(at(metric, "selector", "matchLabels", "pipeline")).isEqualTo(pipeline);
            } else {
                assertThat((long) (replicas == null ? 1 : replicas) * pod.lanes())
                        .as("%s: replicas × lanes ≤ partitions (%s)", overlay, partitions)
                        .isLessThanOrEqualTo(partitions);
            }
        }
        assertThat((long) (int) get(find(render("base"), "StatefulSet"), "spec", "replicas")
                        * pipeline("base").lanes())
                .isLessThanOrEqualTo(partitions(find(render("base"), "StatefulSet")));

        Pod run = Pod.of(find(render("backfill/run"), "Job"), "run-0");
        int parallelism = get(run.workload(), "spec", "parallelism");
        assertThat(at(run.workload(), "spec", "completions"))
                .as("a work-queue Job")
                .isNull();
        assertThat((long) parallelism * run.lanes())
                .as(
                        "backfill run: parallelism × lanes ≤ work-topic-partitions (%s)",
                        run.s3().getWorkTopicPartitions())
                .isLessThanOrEqualTo(run.s3().getWorkTopicPartitions());
    }

    @SuppressWarnings("unchecked")
    @Test
    void thePrometheusAdapterRuleServesTheMetricTheAutoscalerAsksFor() {
        Map<String, Object> config =
                (Map<String, Object>) Kustomize.load(ADAPTER_RULES).get(0);
        List<Map<String, Object>> rules = (List<Map<String, Object>>) config.get("externalRules");
        assertThat(rules).hasSize(1);
        String series = String.valueOf(rules.get(0).get("seriesQuery"));
        assertThat(series).startsWith("etl_source_lag_records{");
        assertThat(String.valueOf(rules.get(0).get("metricsQuery"))).contains("sum by (pipeline)");
        assertThat(rules.get(0)).doesNotContainKey("name");
    }

    @Test
    void selectorsMatchThePods() throws IOException {
        List<Map<String, Object>> objects = render("overlays/production");
        Map<String, Object> sts = find(objects, "StatefulSet");
        Map<String, Object> podLabels = get(sts, "spec", "template", "metadata", "labels");
        Map<String, Object> selector = get(sts, "spec", "selector", "matchLabels");
        assertThat(podLabels).containsAllEntriesOf(selector);
        assertThat(podLabels).containsAllEntriesOf(get(find(objects, "Service"), "spec", "selector"));
        assertThat(podLabels)
                .containsAllEntriesOf(get(find(objects, "PodDisruptionBudget"), "spec", "selector", "matchLabels"));
        assertThat(podLabels).containsAllEntriesOf(get(find(objects, "PodMonitor"), "spec", "selector", "matchLabels"));
        assertThat(at(sts, "spec", "serviceName")).isEqualTo(Kustomize.name(find(objects, "Service")));
        assertThat(at(podSpec(sts), "serviceAccountName")).isEqualTo(Kustomize.name(find(objects, "ServiceAccount")));
        assertThat(at(find(objects, "PodDisruptionBudget"), "spec", "maxUnavailable"))
                .isEqualTo(1);
        for (Map<String, Object> o : objects) {
            assertThat(at(o, "metadata", "namespace"))
                    .as("%s namespace", Kustomize.id(o))
                    .isEqualTo("etl");
        }
    }

    // ------------------------------------------------------------------ Kafka security

    @Test
    void kafkaSaslAndTheTrustStoreComeFromTheSecret() throws IOException {
        Pod pod = pipeline("overlays/production");
        Map<String, Object> consumer = pod.springKafka().buildConsumerProperties();
        Map<String, String> secret = exampleSecret();
        assertThat(consumer)
                .containsEntry("security.protocol", "SASL_SSL")
                .containsEntry("sasl.mechanism", "SCRAM-SHA-512");
        assertThat(String.valueOf(consumer.get("sasl.jaas.config")))
                .isEqualTo("org.apache.kafka.common.security.scram.ScramLoginModule required username=\""
                        + secret.get("kafka-user") + "\" password=\"" + secret.get("kafka-password") + "\";");
        String trustStore = String.valueOf(consumer.get("ssl.truststore.location"));
        assertThat(consumer).containsEntry("ssl.truststore.password", secret.get("truststore-password"));
        // the trust store is the file the Secret's volume puts there
        List<Map<String, Object>> mounts = get(container(pod.workload()), "volumeMounts");
        Map<String, Object> tls = mounts.stream()
                .filter(m -> "tls".equals(m.get("name")))
                .findFirst()
                .orElseThrow();
        List<Map<String, Object>> volumes = get(podSpec(pod.workload()), "volumes");
        Map<String, Object> volume = volumes.stream()
                .filter(v -> "tls".equals(v.get("name")))
                .findFirst()
                .orElseThrow();
        assertThat(at(volume, "secret", "secretName")).isEqualTo("orders-etl");
        String item = get(volume, "secret", "items", "0", "path");
        assertThat(secret).containsKey(String.valueOf(at(volume, "secret", "items", "0", "key")));
        // Boot resolves the file: location to the file's path
        assertThat(Path.of(trustStore.replaceFirst("^file:", "")))
                .isEqualTo(Path.of(String.valueOf(tls.get("mountPath")), item));
        assertThat(tls.get("readOnly")).isEqualTo(true);

        Pod dev = pipeline("overlays/dev");
        assertThat(dev.springKafka().buildConsumerProperties()).doesNotContainKey("sasl.jaas.config");
        assertThat(dev.clickhouse().getPassword()).isEqualTo(secret.get("clickhouse-password"));
    }

    // ------------------------------------------------------------------ backfill

    @Test
    void theBackfillJobsPlanThenRunTheSameBackfill() throws IOException {
        Pod plan = Pod.of(find(render("backfill/plan"), "Job"), "plan-abcde");
        Pod run = Pod.of(find(render("backfill/run"), "Job"), "run-abcde");
        assertThat(plan.s3().getMode()).isEqualTo(EtlS3Properties.Mode.PLAN);
        assertThat(run.s3().getMode()).isEqualTo(EtlS3Properties.Mode.RUN);
        for (String property : List.of("bucket", "prefix", "work-topic", "endpoint", "access-key", "secret-key")) {
            assertThat(run.binder()
                            .bind("etl.source.s3." + property, String.class)
                            .get())
                    .as("plan and run read the same %s", property)
                    .isEqualTo(plan.binder()
                            .bind("etl.source.s3." + property, String.class)
                            .get());
        }
        assertThat(plan.springKafka().getBootstrapServers())
                .isEqualTo(run.springKafka().getBootstrapServers());
        assertThat(container(plan.workload()).get("image"))
                .isEqualTo(container(run.workload()).get("image"));
        assertThat(container(run.workload()).get("image"))
                .isEqualTo(container(find(render("base"), "StatefulSet")).get("image"));
        for (Pod job : List.of(plan, run)) {
            assertThat(at(podSpec(job.workload()), "restartPolicy")).isEqualTo("Never");
            assertThat((Integer) get(job.workload(), "spec", "backoffLimit")).isPositive();
            Map<String, Object> resources = get(container(job.workload()), "resources");
            assertThat(at(resources, "requests", "memory")).isEqualTo(get(resources, "limits", "memory"));
        }
    }

    // ------------------------------------------------------------------ the PrometheusRule

    /** The PrometheusRule: deploy/prometheus/etl-alerts.yaml's groups as its spec. */
    @SuppressWarnings("unchecked")
    static String prometheusRule() throws IOException {
        Map<String, Object> alerts =
                (Map<String, Object>) Kustomize.load(ALERTS).get(0);
        Map<String, Object> rule = new LinkedHashMap<>();
        rule.put("apiVersion", "monitoring.coreos.com/v1");
        rule.put("kind", "PrometheusRule");
        Map<String, Object> metadata = new LinkedHashMap<>();
        metadata.put("name", "orders-etl");
        metadata.put("labels", Map.of("app.kubernetes.io/name", "orders-etl"));
        rule.put("metadata", metadata);
        rule.put("spec", Map.of("groups", alerts.get("groups")));
        DumperOptions options = new DumperOptions();
        options.setDefaultFlowStyle(DumperOptions.FlowStyle.BLOCK);
        options.setWidth(120);
        options.setSplitLines(true);
        return """
                # GENERATED from deploy/prometheus/etl-alerts.yaml: do not edit. DeployManifestsTest fails when the two
                # differ; `./mvnw -pl etl-deploy-tests -am verify -Detl.deploy.write=true` rewrites this file.
                # Your Prometheus selects PrometheusRules by label (its ruleSelector): add that label here.
                """ + new Yaml(options).dump(rule);
    }

    /**
     * The rules that watch the process from outside (crash loop, target down, no instance up) select the
     * scrape job by name ({@code up{job="etl"}}); the Prometheus Operator would name the PodMonitor's job
     * {@code <namespace>/<name>}, so the PodMonitor's relabeling must set exactly that name, or those
     * alerts never fire (EtlNoInstanceUp would fire for ever instead).
     */
    @SuppressWarnings("unchecked")
    @Test
    void thePodMonitorNamesTheScrapeJobTheAlertsSelect() throws IOException {
        Set<String> selected = new TreeSet<>();
        Pattern job = Pattern.compile("\\bjob\\s*=\\s*\"([^\"]*)\"");
        for (Object group : (List<Object>) at(Kustomize.load(ALERTS).get(0), "groups")) {
            for (Object rule : (List<Object>) at(group, "rules")) {
                Matcher m = job.matcher((String) at(rule, "expr"));
                while (m.find()) {
                    selected.add(m.group(1));
                }
            }
        }
        assertThat(selected).as("the scrape job the alert rules select").containsExactly("etl");
        Map<String, Object> endpoint =
                get(find(render("overlays/production"), "PodMonitor"), "spec", "podMetricsEndpoints", "0");
        List<Map<String, Object>> relabelings = get(endpoint, "relabelings");
        assertThat(relabelings)
                .as("the PodMonitor's relabelings that set the job label")
                .filteredOn(r -> "job".equals(r.get("targetLabel")))
                .singleElement()
                .satisfies(r -> {
                    assertThat(r.get("replacement")).isEqualTo("etl");
                    assertThat(r.get("sourceLabels"))
                            .as("a constant: no source labels")
                            .isNull();
                    assertThat(r.getOrDefault("action", "replace")).isEqualTo("replace");
                });
    }

    @SuppressWarnings("unchecked")
    @Test
    void thePrometheusRuleHoldsTheAlertFilesRules() throws IOException {
        String expected = prometheusRule();
        if (Boolean.getBoolean("etl.deploy.write")) {
            Files.writeString(PROMETHEUS_RULE, expected);
        }
        Map<String, Object> rule =
                (Map<String, Object>) Kustomize.load(PROMETHEUS_RULE).get(0);
        Map<String, Object> alerts =
                (Map<String, Object>) Kustomize.load(ALERTS).get(0);
        assertThat(at(rule, "spec", "groups"))
                .as("%s's groups are %s's (rewrite with -Detl.deploy.write=true)", PROMETHEUS_RULE, ALERTS)
                .isEqualTo(alerts.get("groups"));
        assertThat(Files.readString(PROMETHEUS_RULE))
                .as("%s is as generated (rewrite with -Detl.deploy.write=true)", PROMETHEUS_RULE)
                .isEqualTo(expected);
    }
}
