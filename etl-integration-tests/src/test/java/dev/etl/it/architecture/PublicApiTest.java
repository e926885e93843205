package dev.etl.it.architecture;

import static org.assertj.core.api.Assertions.assertThat;

import com.tngtech.archunit.core.domain.Dependency;
import com.tngtech.archunit.core.domain.JavaClass;
import com.tngtech.archunit.core.domain.JavaClasses;
import com.tngtech.archunit.core.domain.JavaCodeUnit;
import com.tngtech.archunit.core.domain.JavaField;
import com.tngtech.archunit.core.domain.JavaModifier;
import com.tngtech.archunit.core.importer.ClassFileImporter;
import com.tngtech.archunit.core.importer.ImportOption;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * The module graph and the public API, checked on the compiled classes of every published module
 * (the class path of this module has them all). What it enforces is what docs/DESIGN.md lists:
 * <ul>
 *   <li>dependencies flow one way: engine ← connectors ← auto-configuration; connectors never see each
 *       other; the core auto-configuration ({@code dev.etl.autoconfigure}, etl-spring-boot-autoconfigure)
 *       sees no connector, each technology's ({@code dev.etl.autoconfigure.kafka}, etl-spring-boot-kafka,
 *       and so on) the core, its own connector and the modules it builds on; the engine sees none of them; the Avro → RowBinary bridge ({@code dev.etl.avro.clickhouse},
 *       etl-avro-clickhouse) sees the engine, the Avro and the ClickHouse connector only (the Avro
 *       connector's low-level byte layer {@code dev.etl.avro.binary} included); the JSON → RowBinary bridge
 *       ({@code dev.etl.json.clickhouse}, etl-json-clickhouse) the engine and the ClickHouse connector only (it
 *       scans JSON itself: no Jackson, not the JSON connector); the backfill
 *       source ({@code dev.etl.s3}, etl-s3) the engine and the Kafka and Avro connectors it builds on;</li>
 *   <li>{@code dev.etl.internal.*} is the engine's own: no class outside the engine uses it (the
 *       engine's and the Avro connector's module descriptors say the same to the module path; this
 *       test says it on the class path, where Spring Boot applications run);</li>
 *   <li>the engine's API packages hold API only (issue 31): every top-level type in them is public, the
 *       implementation behind them is in {@code dev.etl.internal.*}, and there is no grab-bag package
 *       ({@code dev.etl.util});</li>
 *   <li>a public type of an API package exposes, in its public and protected signatures, only JDK
 *       types, etl API types, Micrometer's {@code MeterRegistry} family, JSpecify's nullness annotations
 *       ({@code org.jspecify.annotations}), and the client types of its own
 *       connector (Kafka's, Avro's, Jackson 3's for JSON, ClickHouse's, Avro's {@code Schema} for datagen; the AWS SDK's, Kafka's and Avro's for the S3 backfill;
 *       Spring's in the Spring modules;
 *       Testcontainers' in etl-spring-boot-testcontainers);</li>
 *   <li>the public configuration types ({@code ClickHouseSinkConfig}, {@code PipelineConfig},
 *       {@code SinkDefinition}, {@code PlacementReport}) are final classes built only by their builders:
 *       no public constructor, a {@code builder(...)} and a {@code toBuilder()};</li>
 *   <li>every API package (every {@code dev.etl} package but the engine's {@code dev.etl.internal.*} and the
 *       unpublished {@code dev.etl.test.infra}) is {@code @NullMarked} in its {@code package-info.java}:
 *       what its signatures do not mark {@code @Nullable} is never null.</li>
 *
 *   <li>etl-clickhouse publishes a fixed list of types; the rest of it is package-private; so does
 *       etl-avro-clickhouse.</li>
 * </ul>
 */
class PublicApiTest {

    private static JavaClasses classes;

    /** Module (by package prefix) → the third-party packages its API may expose. */
    private static final Map<String, List<String>> ALLOWED_THIRD_PARTY = Map.ofEntries(
            Map.entry("dev.etl.kafka", List.of("org.apache.kafka.")),
            Map.entry("dev.etl.avro", List.of("org.apache.avro.")),
            // etl-avro's low-level byte layer (cursor, skipper, framing): Avro's Schema and Utf8.
            Map.entry("dev.etl.avro.binary", List.of("org.apache.avro.")),
            // etl-avro's reader of object container files: Avro's Schema (the header's writer schema).
            Map.entry("dev.etl.avro.container", List.of("org.apache.avro.")),
            Map.entry("dev.etl.json", List.of("tools.jackson.")),
            Map.entry("dev.etl.datagen", List.of("org.apache.avro.")),
            Map.entry("dev.etl.clickhouse", List.of("com.clickhouse.")),
            // The backfill source: its own client's types (the AWS SDK's S3Client), and Kafka's and Avro's,
            // as it builds on etl-kafka (its default work list, KafkaWorkList, is a topic) and etl-avro (rows,
            // writer schemas).
            Map.entry("dev.etl.s3", List.of("software.amazon.awssdk.", "org.apache.kafka.", "org.apache.avro.")),
            // The Avro → RowBinary bridge (etl-avro-clickhouse): Avro's types; ClickHouse's are etl's own.
            Map.entry("dev.etl.avro.clickhouse", List.of("org.apache.avro.")),
            // The JSON → RowBinary bridge (etl-json-clickhouse): no third-party type (not Jackson's, unlike etl-json).
            Map.entry("dev.etl.json.clickhouse", List.of()),
            Map.entry(
                    "dev.etl.autoconfigure",
                    List.of("org.springframework.", "org.apache.kafka.", "org.apache.avro.", "tools.jackson.")),
            Map.entry("dev.etl.test", List.of("org.springframework.", "org.junit.", "org.apache.avro.")),
            Map.entry("dev.etl.testcontainers", List.of("org.springframework.", "org.testcontainers.")),
            // Not published: the repository's own helpers for tests against its local servers.
            Map.entry("dev.etl.test.infra", List.of("org.junit.", "org.apache.kafka.", "software.amazon.awssdk.")));

    private static final List<String> ENGINE_API = List.of(
            "dev.etl.deser",
            "dev.etl.error",
            "dev.etl.http",
            "dev.etl.ops",
            "dev.etl.pipeline",
            "dev.etl.record",
            "dev.etl.sink",
            "dev.etl.source");

    /** JSpecify's {@code @NullMarked}, which every API package carries (issue 31). */
    private static final String NULL_MARKED = "org.jspecify.annotations.NullMarked";

    /** Packages of the repository's own test helpers (etl-test-infra): not published, so not API. */
    private static final String UNPUBLISHED = "dev.etl.test.infra";

    /** The package of etl-avro-clickhouse, which bridges two connectors (so is none of them). */
    private static final String BRIDGE = "dev.etl.avro.clickhouse";

    /** The package of etl-json-clickhouse, the JSON → RowBinary bridge (a bridge too, so no connector). */
    private static final String JSON_BRIDGE = "dev.etl.json.clickhouse";

    /** The package of etl-s3, the backfill source, built on the Kafka source (and Avro's rows). */
    private static final String S3 = "dev.etl.s3";

    private static final List<String> CONNECTORS =
            List.of("dev.etl.kafka", "dev.etl.avro", "dev.etl.json", "dev.etl.clickhouse", "dev.etl.datagen");

    @BeforeAll
    static void importClasses() {
        classes = new ClassFileImporter()
                .withImportOption(ImportOption.Predefined.DO_NOT_INCLUDE_TESTS)
                .importPackages("dev.etl");
    }

    @Test
    void everyModuleIsOnTheClassPath() {
        for (String pkg : List.of(
                "dev.etl.pipeline",
                "dev.etl.internal.sink",
                "dev.etl.kafka",
                "dev.etl.avro",
                "dev.etl.avro.binary",
                "dev.etl.avro.container",
                "dev.etl.json",
                "dev.etl.clickhouse",
                "dev.etl.avro.clickhouse",
                "dev.etl.json.clickhouse",
                "dev.etl.datagen",
                "dev.etl.s3",
                "dev.etl.autoconfigure",
                "dev.etl.autoconfigure.kafka",
                "dev.etl.autoconfigure.avro",
                "dev.etl.autoconfigure.json",
                "dev.etl.autoconfigure.clickhouse",
                "dev.etl.autoconfigure.avro.clickhouse",
                "dev.etl.autoconfigure.json.clickhouse",
                "dev.etl.autoconfigure.datagen",
                "dev.etl.autoconfigure.s3",
                "dev.etl.test.memory",
                "dev.etl.test.source",
                "dev.etl.testcontainers")) {
            assertThat(classes.stream().anyMatch((c) -> c.getPackageName().equals(pkg)))
                    .as("classes of %s imported", pkg)
                    .isTrue();
        }
    }

    @Test
    void theEnginesApiPackagesHoldOnlyPublicTypes() {
        List<String> violations = new ArrayList<>();
        for (JavaClass c : classes) {
            String pkg = c.getPackageName();
            if (!pkg.startsWith("dev.etl.internal")
                    && isEngine(pkg)
                    && c.isTopLevelClass()
                    && !c.getSimpleName().equals("package-info")
                    && !c.getModifiers().contains(JavaModifier.PUBLIC)) {
                violations.add(c.getName() + " is not public: implementation belongs in dev.etl.internal.*");
            }
        }
        assertThat(violations).as("non-API types in the engine's API packages").isEmpty();
        assertThat(classes.stream().noneMatch((c) -> c.getPackageName().equals("dev.etl.util")))
                .as("no dev.etl.util")
                .isTrue();
    }

    @Test
    void theEngineDependsOnNoConnectorAndNoSpringModule() {
        List<String> violations = new ArrayList<>();
        for (JavaClass c : classes) {
            if (!isEngine(c.getPackageName())) {
                continue;
            }
            for (Dependency d : c.getDirectDependenciesFromSelf()) {
                String target = d.getTargetClass().getPackageName();
                if (target.startsWith("dev.etl.") && !isEngine(target)) {
                    violations.add(d.getDescription());
                }
                if (target.startsWith("org.springframework")) {
                    violations.add(d.getDescription());
                }
            }
        }
        assertThat(violations).as("engine → outside the engine").isEmpty();
    }

    @Test
    void connectorsDependOnTheEngineOnlyNeverOnEachOtherOrOnSpring() {
        List<String> violations = new ArrayList<>();
        for (JavaClass c : classes) {
            String own = connectorOf(c.getPackageName());
            if (own == null) {
                continue;
            }
            for (Dependency d : c.getDirectDependenciesFromSelf()) {
                String target = d.getTargetClass().getPackageName();
                String other = connectorOf(target);
                boolean otherEtlModule = target.startsWith("dev.etl.") && !isEngine(target) && !own.equals(other);
                if (otherEtlModule || target.startsWith("org.springframework")) {
                    violations.add(d.getDescription());
                }
            }
        }
        assertThat(violations).as("connector → another module").isEmpty();
    }

    @Test
    void theAvroClickHouseBridgeDependsOnTheEngineAndThoseTwoConnectorsOnly() {
        List<String> violations = new ArrayList<>();
        for (JavaClass c : classes) {
            if (!c.getPackageName().startsWith(BRIDGE)) {
                continue;
            }
            for (Dependency d : c.getDirectDependenciesFromSelf()) {
                String target = d.getTargetClass().getPackageName();
                String connector = connectorOf(target);
                boolean allowed = isEngine(target)
                        || target.startsWith(BRIDGE)
                        || "dev.etl.avro".equals(connector)
                        || "dev.etl.clickhouse".equals(connector);
                if (target.startsWith("dev.etl.") && !allowed || target.startsWith("org.springframework")) {
                    violations.add(d.getDescription());
                }
            }
        }
        assertThat(violations)
                .as("etl-avro-clickhouse → a module other than engine, Avro, ClickHouse")
                .isEmpty();
    }

    @Test
    void theJsonClickHouseBridgeDependsOnTheEngineAndTheClickHouseConnectorOnly() {
        List<String> violations = new ArrayList<>();
        for (JavaClass c : classes) {
            if (!c.getPackageName().startsWith(JSON_BRIDGE)) {
                continue;
            }
            for (Dependency d : c.getDirectDependenciesFromSelf()) {
                String target = d.getTargetClass().getPackageName();
                boolean allowed = isEngine(target)
                        || target.startsWith(JSON_BRIDGE)
                        || "dev.etl.clickhouse".equals(connectorOf(target));
                if (target.startsWith("dev.etl.") && !allowed
                        || target.startsWith("org.springframework")
                        || target.startsWith("tools.jackson")
                        || target.startsWith("com.fasterxml.jackson")) {
                    violations.add(d.getDescription());
                }
            }
        }
        assertThat(violations)
                .as("etl-json-clickhouse → a module other than engine and ClickHouse, or a JSON library")
                .isEmpty();
    }

    @Test
    void theBackfillSourceDependsOnTheEngineKafkaAndAvroOnly() {
        List<String> violations = new ArrayList<>();
        for (JavaClass c : classes) {
            if (!c.getPackageName().startsWith(S3)) {
                continue;
            }
            for (Dependency d : c.getDirectDependenciesFromSelf()) {
                String target = d.getTargetClass().getPackageName();
                String connector = connectorOf(target);
                boolean allowed = isEngine(target)
                        || target.startsWith(S3)
                        || "dev.etl.kafka".equals(connector)
                        || "dev.etl.avro".equals(connector);
                if (target.startsWith("dev.etl.") && !allowed || target.startsWith("org.springframework")) {
                    violations.add(d.getDescription());
                }
            }
        }
        assertThat(violations)
                .as("etl-s3 → a module other than engine, Kafka, Avro")
                .isEmpty();
    }

    /**
     * The Spring modules, by package (Spring Boot 4's layout: a small core and a module per technology):
     * what each may use besides the engine, Spring and the core ({@code dev.etl.autoconfigure},
     * {@code .health}, {@code .metrics}, {@code .actuate}, in etl-spring-boot-autoconfigure). The core sees no
     * connector and no technology's module.
     */
    private static final Map<String, List<String>> SPRING_MODULES = Map.ofEntries(
            Map.entry("dev.etl.autoconfigure.kafka", List.of("dev.etl.kafka")),
            Map.entry("dev.etl.autoconfigure.avro", List.of("dev.etl.avro")),
            Map.entry("dev.etl.autoconfigure.json", List.of("dev.etl.json")),
            Map.entry("dev.etl.autoconfigure.clickhouse", List.of("dev.etl.clickhouse")),
            // Generation from an Avro schema and its registration in the schema registry.
            Map.entry("dev.etl.autoconfigure.datagen", List.of("dev.etl.datagen", "dev.etl.avro")),
            // The backfill's work list is a Kafka topic read with the Kafka source's settings.
            Map.entry(
                    "dev.etl.autoconfigure.s3", List.of("dev.etl.s3", "dev.etl.kafka", "dev.etl.autoconfigure.kafka")),
            // The transcoder over the registry's client, filling the ClickHouse sink's columns.
            Map.entry(
                    "dev.etl.autoconfigure.avro.clickhouse",
                    List.of(
                            "dev.etl.avro.clickhouse",
                            "dev.etl.avro",
                            "dev.etl.clickhouse",
                            "dev.etl.autoconfigure.avro",
                            "dev.etl.autoconfigure.clickhouse")),
            // JSON topics into tables from YAML alone: the JSON rows as a format of the ClickHouse sink's tables.
            Map.entry(
                    "dev.etl.autoconfigure.json.clickhouse",
                    List.of("dev.etl.json.clickhouse", "dev.etl.clickhouse", "dev.etl.autoconfigure.clickhouse")));

    private static final List<String> SPRING_CORE = List.of(
            "dev.etl.autoconfigure",
            "dev.etl.autoconfigure.health",
            "dev.etl.autoconfigure.metrics",
            "dev.etl.autoconfigure.actuate");

    @Test
    void eachTechnologysAutoConfigurationSeesTheCoreAndItsOwnConnectorsOnly() {
        List<String> violations = new ArrayList<>();
        for (JavaClass c : classes) {
            String pkg = c.getPackageName();
            List<String> own;
            if (SPRING_CORE.contains(pkg)) {
                own = List.of();
            } else if (SPRING_MODULES.containsKey(pkg)) {
                own = SPRING_MODULES.get(pkg);
            } else {
                continue;
            }
            for (Dependency d : c.getDirectDependenciesFromSelf()) {
                String target = d.getTargetClass().getPackageName();
                boolean allowed = !target.startsWith("dev.etl.")
                        || isEngine(target)
                        || target.equals(pkg)
                        || SPRING_CORE.contains(target)
                        || own.stream().anyMatch((m) -> target.equals(m) || target.startsWith(m + "."));
                if (!allowed) {
                    violations.add(d.getDescription());
                }
            }
        }
        assertThat(violations)
                .as("a Spring module → a connector or another technology's module it does not build on")
                .isEmpty();
    }

    @Test
    void nothingOutsideTheEngineUsesItsInternals() {
        List<String> violations = new ArrayList<>();
        for (JavaClass c : classes) {
            if (isEngine(c.getPackageName())) {
                continue;
            }
            for (Dependency d : c.getDirectDependenciesFromSelf()) {
                if (d.getTargetClass().getPackageName().startsWith("dev.etl.internal")) {
                    violations.add(d.getDescription());
                }
            }
        }
        assertThat(violations)
                .as("uses of dev.etl.internal.* outside the engine")
                .isEmpty();
    }

    @Test
    void publicSignaturesOfApiPackagesExposeOnlyTheirOwnClientsTypes() {
        Set<String> violations = new TreeSet<>();
        for (JavaClass c : classes) {
            String pkg = c.getPackageName();
            if (pkg.contains(".internal") || !c.getModifiers().contains(JavaModifier.PUBLIC) || !isPublicApi(c)) {
                continue;
            }
            check(c, "extends/implements", superTypes(c), violations);
            for (JavaCodeUnit unit : c.getCodeUnits()) {
                if (exposed(unit.getModifiers()) && !unit.getName().startsWith("lambda$")) {
                    check(c, unit.getFullName(), unit.getAllInvolvedRawTypes(), violations);
                }
            }
            for (JavaField field : c.getFields()) {
                if (exposed(field.getModifiers())) {
                    check(c, field.getFullName(), field.getAllInvolvedRawTypes(), violations);
                }
            }
        }
        assertThat(violations).as("types a public API signature may not expose").isEmpty();
    }

    /**
     * etl-avro's low-level byte layer is a deliberate, small API (issue 31): the cursor, the skipper, the
     * framing checks and the one error for malformed bytes, each a final class. A new public type there is
     * a decision to make here, not a side effect.
     */
    @Test
    void theAvroByteLayerPublishesItsFourTypesOnly() {
        Set<String> published = new TreeSet<>();
        for (JavaClass c : classes) {
            if (c.getPackageName().equals("dev.etl.avro.binary")
                    && c.getModifiers().contains(JavaModifier.PUBLIC)
                    && isPublicApi(c)) {
                published.add(c.getSimpleName());
                assertThat(c.getModifiers()).as(c.getName()).contains(JavaModifier.FINAL);
            }
        }
        assertThat(published)
                .containsExactlyInAnyOrder("AvroCursor", "AvroFraming", "AvroSkipper", "MalformedAvroException");
    }

    /**
     * etl-avro's reader of object container files (issue 31, moved from etl-s3) is as small as its job: the
     * header and the reader, final classes, and the reader's callback for records. Its buffered source and
     * its codecs stay package-private.
     */
    @Test
    void theAvroContainerPackagePublishesItsHeaderReaderAndHandlerOnly() {
        Set<String> published = new TreeSet<>();
        for (JavaClass c : classes) {
            if (c.getPackageName().equals("dev.etl.avro.container")
                    && c.getModifiers().contains(JavaModifier.PUBLIC)
                    && isPublicApi(c)) {
                published.add(c.getName().substring(c.getPackageName().length() + 1));
                if (!c.isInterface()) {
                    assertThat(c.getModifiers()).as(c.getName()).contains(JavaModifier.FINAL);
                }
            }
        }
        assertThat(published)
                .containsExactlyInAnyOrder(
                        "AvroContainerHeader", "AvroContainerReader", "AvroContainerReader$RecordHandler");
    }

    /**
     * The public configuration types are built by their builders only (issue 31): no record (its canonical
     * constructor would be API, and every new setting would break callers or add a constructor), no public
     * constructor, a static {@code builder} and {@code toBuilder()}.
     */
    @Test
    void configurationTypesAreBuiltOnlyByTheirBuilders() {
        List<String> violations = new ArrayList<>();
        for (String name : List.of(
                "dev.etl.clickhouse.ClickHouseSinkConfig",
                "dev.etl.pipeline.PipelineConfig",
                "dev.etl.sink.SinkDefinition",
                "dev.etl.clickhouse.sharding.PlacementReport")) {
            JavaClass c = classes.get(name);
            if (c.isRecord() || !c.getModifiers().contains(JavaModifier.FINAL)) {
                violations.add(name + " is a record or not final");
            }
            c.getConstructors().stream()
                    .filter((k) -> exposed(k.getModifiers()))
                    .forEach((k) -> violations.add(k.getFullName() + " is public"));
            boolean builder = c.getMethods().stream()
                    .anyMatch((m) -> m.getName().equals("builder")
                            && m.getModifiers().contains(JavaModifier.STATIC)
                            && m.getModifiers().contains(JavaModifier.PUBLIC));
            boolean toBuilder = c.getMethods().stream()
                    .anyMatch((m) -> m.getName().equals("toBuilder")
                            && m.getParameters().isEmpty()
                            && m.getModifiers().contains(JavaModifier.PUBLIC));
            if (!builder || !toBuilder) {
                violations.add(name + " lacks a public static builder(...) or toBuilder()");
            }
        }
        assertThat(violations)
                .as("configuration types not built by their builders")
                .isEmpty();
    }

    /**
     * The API is null-marked (issue 31): a package of published API without {@code @NullMarked} in its
     * {@code package-info.java} would leave its types' nullness unspecified to Kotlin, NullAway and IDEs,
     * so a new package cannot forget it.
     */
    @Test
    void everyApiPackageIsNullMarked() {
        Set<String> apiPackages = new TreeSet<>();
        Set<String> unmarked = new TreeSet<>();
        for (JavaClass c : classes) {
            String pkg = c.getPackageName();
            if (!pkg.startsWith("dev.etl.")
                    || pkg.contains(".internal")
                    || pkg.equals(UNPUBLISHED)
                    || pkg.startsWith(UNPUBLISHED + ".")) {
                continue;
            }
            apiPackages.add(pkg);
            if (!c.getPackage().isAnnotatedWith(NULL_MARKED)) {
                unmarked.add(pkg);
            }
        }
        assertThat(apiPackages).as("API packages found").contains("dev.etl.pipeline", "dev.etl.autoconfigure");
        assertThat(unmarked).as("API packages without @NullMarked").isEmpty();
    }

    /**
     * etl-clickhouse's API, type by type (issue 31): the public top-level types of its two packages. Anything
     * else is package-private; a new public type is a decision, made by adding it here (and to the module's
     * documentation).
     */
    @Test
    void theClickHouseConnectorPublishesTheseTypesOnly() {
        Set<String> published = new TreeSet<>();
        for (JavaClass c : classes) {
            String pkg = c.getPackageName();
            if ((pkg.equals("dev.etl.clickhouse") || pkg.equals("dev.etl.clickhouse.sharding"))
                    && c.getEnclosingClass().isEmpty()
                    && c.getModifiers().contains(JavaModifier.PUBLIC)) {
                published.add(c.getName());
            }
        }
        assertThat(published)
                .containsExactlyInAnyOrder(
                        "dev.etl.clickhouse.ClickHouseAlterException",
                        "dev.etl.clickhouse.ClickHouseCapabilities",
                        "dev.etl.clickhouse.ClickHouseColumn",
                        "dev.etl.clickhouse.ClickHouseHttpTransport",
                        "dev.etl.clickhouse.ClickHouseInsert",
                        "dev.etl.clickhouse.ClickHouseRequestException",
                        "dev.etl.clickhouse.ClickHouseSchemaException",
                        "dev.etl.clickhouse.ClickHouseShardWriter",
                        "dev.etl.clickhouse.ClickHouseSink",
                        "dev.etl.clickhouse.ClickHouseSinkConfig",
                        "dev.etl.clickhouse.ClickHouseTableAlter",
                        "dev.etl.clickhouse.ClickHouseTableSchema",
                        "dev.etl.clickhouse.ClickHouseTls",
                        "dev.etl.clickhouse.ClickHouseTransport",
                        "dev.etl.clickhouse.ClickHouseType",
                        "dev.etl.clickhouse.ClickHouseTypes",
                        "dev.etl.clickhouse.ColumnEncodeException",
                        "dev.etl.clickhouse.ColumnLayouts",
                        "dev.etl.clickhouse.ColumnType",
                        "dev.etl.clickhouse.InsertFormat",
                        "dev.etl.clickhouse.RowBinaryEncoder",
                        "dev.etl.clickhouse.UnsupportedNativeTypeException",
                        "dev.etl.clickhouse.ValidationMode",
                        "dev.etl.clickhouse.sharding.DistributedPlacement",
                        "dev.etl.clickhouse.sharding.DistributedPlacementCheck",
                        "dev.etl.clickhouse.sharding.DistributedRouter",
                        "dev.etl.clickhouse.sharding.DistributedTable",
                        "dev.etl.clickhouse.sharding.KeyType",
                        "dev.etl.clickhouse.sharding.PlacementCheck",
                        "dev.etl.clickhouse.sharding.PlacementCheckMode",
                        "dev.etl.clickhouse.sharding.PlacementReport",
                        "dev.etl.clickhouse.sharding.ShardPlacementException",
                        "dev.etl.clickhouse.sharding.ShardWeights",
                        "dev.etl.clickhouse.sharding.ShardingFunction",
                        "dev.etl.clickhouse.sharding.ShardingKey");
    }

    /**
     * etl-avro-clickhouse's API, type by type (issue 33): the mapping written column by column, the mapping
     * derived from a table by column name, the transcoder, their builders and their two errors, auto-evolve's
     * type table and plan (used by the Spring layer), each final; and the record view (issue 34) with its handles.
     * Its compilers, plans and conversions are package-private; a new public type is a decision made here.
     */
    @Test
    void theAvroClickHouseBridgePublishesTheseTypesOnly() {
        Set<String> published = new TreeSet<>();
        for (JavaClass c : classes) {
            if (c.getPackageName().equals(BRIDGE) && c.getModifiers().contains(JavaModifier.PUBLIC) && isPublicApi(c)) {
                published.add(c.getName().substring(BRIDGE.length() + 1));
                // Final, or sealed over final types (AvroView.Field: the handles' common type).
                assertThat(c.getModifiers().contains(JavaModifier.FINAL)
                                || c.reflect().isSealed())
                        .as(c.getName() + " is final or sealed")
                        .isTrue();
            }
        }
        assertThat(published)
                .containsExactlyInAnyOrder(
                        "AvroColumnTypes",
                        "AvroColumnTypes$Server",
                        "AvroColumnTypes$Unmappable",
                        "AvroMappingException",
                        "AvroRowMapping",
                        "AvroRowMapping$Builder",
                        "AvroRowTranscoder",
                        "AvroRowTranscoder$Builder",
                        "AvroTableEvolution",
                        "AvroTableEvolution$Added",
                        "AvroTableEvolution$Reason",
                        "AvroTableEvolution$Refusal",
                        "AvroTableMapping",
                        "AvroTableMapping$Builder",
                        "AvroTableMappingException",
                        // The record view (issue 34): the view, its handles and their factory.
                        "AvroView",
                        "AvroView$Fields",
                        "AvroView$Field",
                        "AvroView$IntField",
                        "AvroView$LongField",
                        "AvroView$DoubleField",
                        "AvroView$BooleanField",
                        "AvroView$StringField",
                        "AvroView$EnumField",
                        "AvroView$ArrayField",
                        "AvroView$Slot");
    }

    private static boolean isPublicApi(JavaClass c) {
        // A public nested class of a package-private class is not reachable.
        JavaClass enclosing = c.getEnclosingClass().orElse(null);
        while (enclosing != null) {
            if (!enclosing.getModifiers().contains(JavaModifier.PUBLIC)) {
                return false;
            }
            enclosing = enclosing.getEnclosingClass().orElse(null);
        }
        return true;
    }

    private static boolean exposed(Set<JavaModifier> modifiers) {
        return modifiers.contains(JavaModifier.PUBLIC) || modifiers.contains(JavaModifier.PROTECTED);
    }

    private static Set<JavaClass> superTypes(JavaClass c) {
        Set<JavaClass> types = new java.util.HashSet<>();
        c.getRawSuperclass().ifPresent(types::add);
        types.addAll(c.getRawInterfaces());
        return types;
    }

    private static void check(JavaClass owner, String where, Set<JavaClass> types, Set<String> violations) {
        for (JavaClass type : types) {
            JavaClass base = type.isArray() ? type.getBaseComponentType() : type;
            if (base.isPrimitive()) {
                continue;
            }
            String name = base.getName();
            if (!allowed(owner.getPackageName(), name)) {
                violations.add(where + " exposes " + name);
            }
        }
    }

    private static boolean allowed(String ownerPackage, String type) {
        if (type.startsWith("java.")
                || type.startsWith("javax.")
                || type.startsWith("io.micrometer.core.instrument.")
                // Nullness annotations (@Nullable in signatures), in every module's API.
                || type.startsWith("org.jspecify.annotations.")) {
            return true;
        }
        if (type.startsWith("dev.etl.")) {
            return !type.startsWith("dev.etl.internal.");
        }
        String module = null; // the longest prefix that names the owner's module
        for (String key : ALLOWED_THIRD_PARTY.keySet()) {
            boolean owns = ownerPackage.equals(key) || ownerPackage.startsWith(key + ".");
            if (owns && (module == null || key.length() > module.length())) {
                module = key;
            }
        }
        return module != null && ALLOWED_THIRD_PARTY.get(module).stream().anyMatch(type::startsWith);
    }

    private static boolean isEngine(String pkg) {
        return pkg.startsWith("dev.etl.internal") || ENGINE_API.stream().anyMatch(pkg::equals);
    }

    private static String connectorOf(String pkg) {
        if (pkg.equals(BRIDGE) || pkg.startsWith(BRIDGE + ".")) {
            return null; // dev.etl.avro.clickhouse bridges two connectors: it is neither (its own test says what it
            // sees)
        }
        if (pkg.equals(JSON_BRIDGE) || pkg.startsWith(JSON_BRIDGE + ".")) {
            return null; // dev.etl.json.clickhouse: the same, for JSON
        }
        return CONNECTORS.stream()
                .filter((c) -> pkg.equals(c) || pkg.startsWith(c + "."))
                .findFirst()
                .orElse(null);
    }
}
