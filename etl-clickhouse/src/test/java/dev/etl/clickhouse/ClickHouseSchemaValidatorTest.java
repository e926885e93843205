package dev.etl.clickhouse;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.List;
import java.util.Set;
import org.junit.jupiter.api.Test;

class ClickHouseSchemaValidatorTest {
    private static final List<ClickHouseColumn> EXPECTED = List.of(
            new ClickHouseColumn("id", "UInt64"),
            new ClickHouseColumn("amount", "Decimal(18, 2)"),
            new ClickHouseColumn("customer", "String"));

    private static ClickHouseColumn col(String name, String type) {
        return new ClickHouseColumn(name, type);
    }

    @Test
    void typeSpellingsOfTheSameWireTypeMatch() {
        assertThat(ClickHouseSchemaValidator.typesMatch("Decimal(18, 2)", "Decimal64(2)"))
                .isTrue();
        assertThat(ClickHouseSchemaValidator.typesMatch("Decimal(9,2)", "Decimal32( 2 )"))
                .isTrue();
        assertThat(ClickHouseSchemaValidator.typesMatch("Array(Decimal(38, 4))", "Array(Decimal128(4))"))
                .isTrue();
        assertThat(ClickHouseSchemaValidator.typesMatch("DateTime", "DateTime('UTC')"))
                .isTrue();
        assertThat(ClickHouseSchemaValidator.typesMatch("DateTime64(3)", "DateTime64(3, 'Europe/Berlin')"))
                .isTrue();
        assertThat(ClickHouseSchemaValidator.typesMatch("Enum8('a' = 1, 'b' = 2)", "Enum8('b' = 2, 'a' = 1)"))
                .isTrue();
        assertThat(ClickHouseSchemaValidator.typesMatch("Enum8('a b' = 1)", "Enum8('ab' = 1)"))
                .isFalse();
        assertThat(ClickHouseSchemaValidator.typesMatch("Decimal(18, 2)", "Decimal(18, 3)"))
                .isFalse();
        assertThat(ClickHouseSchemaValidator.typesMatch("UInt64", "Int64")).isFalse();
    }

    /** A table without DEFAULT columns. */
    private static ClickHouseTableSchema table(ClickHouseColumn... columns) {
        return ClickHouseTableSchema.of(List.of(columns), Set.of());
    }

    @Test
    void matchingColumnsHaveNoDiff() {
        ClickHouseTableSchema actual =
                table(col("id", "UInt64"), col("amount", "Decimal64(2)"), col("customer", "String"));
        assertThat(ClickHouseSchemaValidator.columnDiff(EXPECTED, actual, ValidationMode.FULL))
                .isNull();
    }

    @Test
    void fullModeShowsTheColumnWithTheWrongType() {
        ClickHouseTableSchema actual = table(col("id", "UInt64"), col("amount", "Float64"), col("customer", "String"));
        String diff = ClickHouseSchemaValidator.columnDiff(EXPECTED, actual, ValidationMode.FULL);
        assertThat(diff)
                .contains("amount")
                .contains("Decimal(18, 2)")
                .contains("Float64")
                .contains("<- type differs");
        assertThat(diff.lines().filter(l -> l.contains("<-")).count()).isEqualTo(1);
        assertThat(ClickHouseSchemaValidator.columnDiff(EXPECTED, actual, ValidationMode.NAMES))
                .isNull();
        assertThat(ClickHouseSchemaValidator.columnDiff(EXPECTED, actual, ValidationMode.OFF))
                .isNull();
    }

    @Test
    void theEncodersOrderNeedNotFollowTheTables() {
        ClickHouseTableSchema swapped =
                table(col("customer", "String"), col("id", "UInt64"), col("amount", "Decimal(18, 2)"));
        assertThat(ClickHouseSchemaValidator.columnDiff(EXPECTED, swapped, ValidationMode.FULL))
                .isNull();
    }

    @Test
    void anEncoderColumnTheTableLacksFailsWithTheClosestUnwrittenColumn() {
        ClickHouseTableSchema actual =
                table(col("id", "UInt64"), col("amount", "Decimal(18, 2)"), col("customer_name", "String"));
        String diff = ClickHouseSchemaValidator.columnDiff(EXPECTED, actual, ValidationMode.NAMES);
        assertThat(diff)
                .contains("<- the table has no such column; did you mean 'customer_name'?")
                .contains("missing in the table: [customer]")
                .contains("<- not written by the encoder, and no DEFAULT");
    }

    @Test
    void aTableColumnLeftOutNeedsADefault() {
        List<ClickHouseColumn> columns = List.of(
                col("id", "UInt64"),
                col("amount", "Decimal(18, 2)"),
                col("customer", "String"),
                col("inserted_at", "DateTime"),
                col("note", "String"),
                col("qty", "UInt32"));
        ClickHouseTableSchema withDefaults = ClickHouseTableSchema.of(columns, Set.of("inserted_at", "note", "qty"));
        assertThat(ClickHouseSchemaValidator.columnDiff(EXPECTED, withDefaults, ValidationMode.FULL))
                .isNull();
        ClickHouseTableSchema oneDefault = ClickHouseTableSchema.of(columns, Set.of("inserted_at"));
        String diff = ClickHouseSchemaValidator.columnDiff(EXPECTED, oneDefault, ValidationMode.NAMES);
        assertThat(diff)
                .contains("the insert would store the type's zero value in [note, qty] (table columns the encoder "
                        + "does not write, without a DEFAULT): map them, or give them a DEFAULT")
                .contains("(not written: the server computes its DEFAULT)");
        assertThat(diff.lines().filter(l -> l.contains("<- not written by the encoder, and no DEFAULT")))
                .hasSize(2);
        assertThat(ClickHouseSchemaValidator.columnDiff(
                        EXPECTED,
                        ClickHouseTableSchema.of(columns, Set.of("inserted_at", "note")),
                        ValidationMode.NAMES))
                .contains("zero value in [qty] (table column the encoder does not write, without a DEFAULT): map it, "
                        + "or give it a DEFAULT");
    }

    @Test
    void aColumnTheEncoderWritesTwiceFails() {
        List<ClickHouseColumn> twice = List.of(col("id", "UInt64"), col("id", "UInt64"));
        assertThat(ClickHouseSchemaValidator.columnDiff(twice, table(col("id", "UInt64")), ValidationMode.NAMES))
                .contains("<- written twice")
                .contains("written twice by the encoder: [id]");
    }

    @Test
    void theDiffListsTheEncodersColumnsThenTheTablesUnwrittenOnes() {
        List<ClickHouseColumn> columns = List.of(col("qty", "UInt32"), col("sku", "String"));
        ClickHouseTableSchema actual = ClickHouseTableSchema.of(
                List.of(col("inserted_at", "DateTime"), col("sku", "String"), col("price", "Int64")),
                Set.of("inserted_at"));
        assertThat(ClickHouseSchemaValidator.columnDiff(columns, actual, ValidationMode.FULL))
                .isEqualTo("""
                          #   encoder            | table
                          1   qty         UInt32 | -                     <- the table has no such column; did you mean 'price'?
                          2   sku         String | sku         String
                          -   -                  | inserted_at DateTime  (not written: the server computes its DEFAULT)
                          -   -                  | price       Int64     <- not written by the encoder, and no DEFAULT
                          missing in the table: [qty]
                          the insert would store the type's zero value in [price] (table column the encoder does not \
                        write, without a DEFAULT): map it, or give it a DEFAULT
                        """);
    }

    /** The example of docs/connectors/clickhouse.md#startup-validation. */
    @Test
    void theDiffShownInTheConnectorDocs() {
        List<ClickHouseColumn> encoder =
                List.of(col("id", "UInt64"), col("amount", "Decimal(18, 2)"), col("custmer", "String"));
        ClickHouseTableSchema table = ClickHouseTableSchema.of(
                List.of(
                        col("id", "UInt64"),
                        col("amount", "Float64"),
                        col("customer", "String"),
                        col("inserted_at", "DateTime")),
                Set.of("inserted_at"));
        String docs;
        try {
            docs = java.nio.file.Files.readString(java.nio.file.Path.of("../docs/connectors/clickhouse.md"));
        } catch (java.io.IOException e) {
            throw new java.io.UncheckedIOException(e);
        }
        String diff = ClickHouseSchemaValidator.columnDiff(encoder, table, ValidationMode.FULL);
        assertThat(diff).contains("<- type differs", "did you mean 'customer'?", "map it, or give it a DEFAULT");
        assertThat(docs).contains("validation):\n" + diff + "```");
    }

    @Test
    void dedupVerdictPerEngineAndServer() {
        ClickHouseCapabilities old = ClickHouseCapabilities.legacy("18.16.1");
        ClickHouseCapabilities modern = new ClickHouseCapabilities("24.8", true, true, true);
        assertThat(ClickHouseSchemaValidator.dedupProblem("ReplicatedMergeTree", "", old))
                .isNull();
        assertThat(ClickHouseSchemaValidator.dedupProblem("ReplicatedReplacingMergeTree", "", old))
                .isNull();
        assertThat(ClickHouseSchemaValidator.dedupProblem("MergeTree", "MergeTree ORDER BY id", old))
                .contains("no non_replicated_deduplication_window");
        assertThat(ClickHouseSchemaValidator.dedupProblem(
                        "MergeTree", "MergeTree ORDER BY id SETTINGS index_granularity = 8192", modern))
                .contains("= 0");
        assertThat(ClickHouseSchemaValidator.dedupProblem(
                        "ReplacingMergeTree",
                        "ReplacingMergeTree ORDER BY id SETTINGS non_replicated_deduplication_window = 100",
                        modern))
                .isNull();
        assertThat(ClickHouseSchemaValidator.dedupProblem("Log", "Log", modern)).contains("Log");
    }

    private static FakeTransport server(String engine, String columnsTsv) {
        FakeTransport t = new FakeTransport();
        t.queries = sql -> {
            if (sql.contains("version()")) {
                return "18.16.1\n";
            }
            if (sql.equals("SELECT name FROM system.settings FORMAT TabSeparated")) {
                return "insert_quorum\ninsert_quorum_timeout\nmax_insert_block_size\n";
            }
            if (sql.contains("system.settings") || sql.contains("merge_tree_settings")) {
                return "";
            }
            if (sql.contains("system.tables")) {
                return engine.isEmpty() ? "" : engine + "\t" + engine + " ORDER BY id\n";
            }
            return columnsTsv;
        };
        return t;
    }

    private static ClickHouseSinkConfig.Builder config() {
        return ClickHouseSinkConfig.builder()
                .table("db", "t")
                .shard("http://127.0.0.1:18123", "http://127.0.0.1:18124");
    }

    @Test
    void validatesEveryReplicaAndNamesTheOneThatDiffers() {
        FakeTransport t = server("ReplicatedMergeTree", "id\tUInt64\t\namount\tFloat64\t\ncustomer\tString\t\n");
        assertThatThrownBy(() -> new ClickHouseSchemaValidator(config().build(), t).validateShard(0, EXPECTED))
                .isInstanceOf(ClickHouseSchemaException.class)
                .hasMessageContaining("db.t")
                .hasMessageContaining("replica http://127.0.0.1:18123")
                .hasMessageContaining("amount");
    }

    @Test
    void materializedColumnsAreIgnoredAndCapabilitiesReturned() {
        FakeTransport t = server(
                "ReplicatedMergeTree",
                "id\tUInt64\t\namount\tDecimal(18, 2)\t\ncustomer\tString\t\nday\tDate\tMATERIALIZED\n");
        ClickHouseCapabilities caps = new ClickHouseSchemaValidator(config().build(), t).validateShard(0, EXPECTED);
        assertThat(caps.version()).isEqualTo("18.16.1");
        assertThat(caps.dedupToken()).isFalse();
        assertThat(caps.asyncInsert()).isFalse();
    }

    @Test
    void nonReplicatedTableWarnsOrIsRefusedWhenDedupIsRequired() {
        FakeTransport t = server("MergeTree", "id\tUInt64\t\namount\tDecimal(18, 2)\t\ncustomer\tString\t\n");
        new ClickHouseSchemaValidator(config().build(), t).validateShard(0, EXPECTED);
        assertThatThrownBy(() -> new ClickHouseSchemaValidator(
                                config().requireDedup(true).build(), t)
                        .validateShard(0, EXPECTED))
                .isInstanceOf(ClickHouseSchemaException.class)
                .hasMessageContaining("does not deduplicate")
                .hasMessageContaining("requireDedup");
    }

    @Test
    void distributedAndMissingTablesAreRefused() {
        assertThatThrownBy(() -> new ClickHouseSchemaValidator(config().build(), server("Distributed", ""))
                        .validateShard(0, EXPECTED))
                .hasMessageContaining("Distributed")
                .hasMessageContaining("shard-local");
        assertThatThrownBy(() ->
                        new ClickHouseSchemaValidator(config().build(), server("", "")).validateShard(0, EXPECTED))
                .hasMessageContaining("does not exist");
    }

    @Test
    void anInsertSettingTheServerDoesNotKnowIsRefusedWithTheClosestName() {
        FakeTransport t = server("ReplicatedMergeTree", "id\tUInt64\t\namount\tDecimal(18, 2)\t\ncustomer\tString\t\n");
        new ClickHouseSchemaValidator(config().setting("insert_quorum", "2").build(), t).validateShard(0, EXPECTED);
        assertThatThrownBy(() -> new ClickHouseSchemaValidator(
                                config().setting("insert_qorum", "2").build(), t)
                        .validateShard(0, EXPECTED))
                .isInstanceOf(ClickHouseSchemaException.class)
                .hasMessageContaining("insert setting 'insert_qorum'")
                .hasMessageContaining(
                        "is not a setting of ClickHouse 18.16.1 on shard 0 replica http://127.0.0.1:18123")
                .hasMessageContaining("did you mean 'insert_quorum'?");
    }

    @Test
    void theReplayWindowIsReadFromTheTableSettingsOrTheServerDefault() {
        assertThat(ClickHouseSchemaValidator.settingOf(
                        "ReplicatedMergeTree('/t', 'r') ORDER BY id SETTINGS "
                                + "replicated_deduplication_window = 1000, index_granularity = 8192",
                        "replicated_deduplication_window"))
                .isEqualTo(1000);
        assertThat(ClickHouseSchemaValidator.settingOf(
                        "MergeTree ORDER BY id SETTINGS " + "non_replicated_deduplication_window = 5",
                        "replicated_deduplication_window"))
                .isEqualTo(-1);
        assertThat(ClickHouseSchemaValidator.settingOf(
                        "ReplicatedMergeTree('/t', 'r') ORDER BY id", "replicated_deduplication_window"))
                .isEqualTo(-1);
    }

    @Test
    void aSmallReplayWindowIsWarnedAboutWithTheNumbers() {
        ch.qos.logback.classic.Logger logger =
                (ch.qos.logback.classic.Logger) org.slf4j.LoggerFactory.getLogger(ClickHouseSchemaValidator.class);
        ch.qos.logback.core.read.ListAppender<ch.qos.logback.classic.spi.ILoggingEvent> logs =
                new ch.qos.logback.core.read.ListAppender<>();
        logs.start();
        logger.addAppender(logs);
        try {
            FakeTransport t =
                    server("ReplicatedMergeTree", "id\tUInt64\t\namount\tDecimal(18, 2)\t\ncustomer\tString\t\n");
            java.util.function.Function<String, String> base = t.queries;
            t.queries = sql -> sql.contains("merge_tree_settings WHERE name = 'replicated_deduplication_window'")
                    ? "100\n"
                    : base.apply(sql);
            new ClickHouseSchemaValidator(config().build(), t).validateShard(0, EXPECTED);
            assertThat(logs.list)
                    .extracting(ch.qos.logback.classic.spi.ILoggingEvent::getFormattedMessage)
                    .anySatisfy(m -> assertThat(m)
                            .contains("keeps the hashes of its last 100 inserted blocks")
                            .contains("replicated_deduplication_window = 1000"));
            logs.list.clear();
            new ClickHouseSchemaValidator(config().deterministicBlocks(false).build(), t).validateShard(0, EXPECTED);
            assertThat(logs.list)
                    .extracting(ch.qos.logback.classic.spi.ILoggingEvent::getFormattedMessage)
                    .noneSatisfy(m -> assertThat(m).contains("inserted blocks"));
        } finally {
            logger.detachAppender(logs);
        }
    }

    @Test
    void aDefaultComputedPerInsertIsWarnedAboutWhereTheServerHasNoDedupTokens() {
        ch.qos.logback.classic.Logger logger =
                (ch.qos.logback.classic.Logger) org.slf4j.LoggerFactory.getLogger(ClickHouseSchemaValidator.class);
        ch.qos.logback.core.read.ListAppender<ch.qos.logback.classic.spi.ILoggingEvent> logs =
                new ch.qos.logback.core.read.ListAppender<>();
        logs.start();
        logger.addAppender(logs);
        try {
            FakeTransport t = server(
                    "ReplicatedMergeTree",
                    "id\tUInt64\t\t\namount\tDecimal(18, 2)\t\t\ncustomer\tString\t\t\n"
                            + "inserted_at\tDateTime\tDEFAULT\tnow()\ntotal\tInt64\tDEFAULT\tid * 2\n");
            new ClickHouseSchemaValidator(config().build(), t).validateShard(0, EXPECTED);
            assertThat(logs.list)
                    .extracting(ch.qos.logback.classic.spi.ILoggingEvent::getFormattedMessage)
                    .filteredOn(m -> m.contains("per insert"))
                    .hasSize(2) // once per replica, as the other warnings of the check
                    .allSatisfy(m -> assertThat(m)
                            .contains("computes [inserted_at DEFAULT now()] per insert")
                            .doesNotContain("total"));
        } finally {
            logger.detachAppender(logs);
        }
    }

    @Test
    void unreachableReplicaIsSkippedButAShardWithNoneFails() {
        FakeTransport t = server("ReplicatedMergeTree", "id\tUInt64\t\namount\tDecimal(18, 2)\t\ncustomer\tString\t\n");
        t.down("http://127.0.0.1:18123");
        new ClickHouseSchemaValidator(config().build(), t).validateShard(0, EXPECTED);
        t.down("http://127.0.0.1:18124");
        assertThatThrownBy(() -> new ClickHouseSchemaValidator(config().build(), t).validateShard(0, EXPECTED))
                .hasMessageContaining("no replica of ClickHouse shard 0 is reachable");
    }

    @Test
    void tabSeparatedEscapesAreUndone() {
        assertThat(ClickHouseSchemaValidator.unescapeTsv("Enum8(\\'a\\' = 1)")).isEqualTo("Enum8('a' = 1)");
    }

    @Test
    void anInterruptedValidationIsReportedAsAnInterruptionNotAsAnUnreachableReplica() {
        java.util.List<String> asked = new java.util.ArrayList<>();
        ClickHouseTransport interrupted = new ClickHouseTransport() {
            @Override
            public long insert(java.net.URI replica, ClickHouseInsert insert, byte[] body, int length) {
                throw new AssertionError("no insert at validation");
            }

            @Override
            public String query(java.net.URI replica, String sql) throws ClickHouseRequestException {
                asked.add(ClickHouseShardWriter.describe(replica));
                // What the transports do when the waiting thread is interrupted.
                Thread.currentThread().interrupt();
                throw new ClickHouseRequestException(
                        ClickHouseRequestException.Kind.IO, -1, -1, "interrupted", new InterruptedException());
            }

            @Override
            public void close() {}
        };
        try {
            assertThatThrownBy(() ->
                            new ClickHouseSchemaValidator(config().build(), interrupted).validateShard(0, EXPECTED))
                    .isInstanceOf(ClickHouseSchemaException.class)
                    .hasMessageContaining("interrupted while validating db.t on ClickHouse shard 0 replica")
                    .hasMessageContaining("the application is stopping")
                    .hasMessageNotContaining("no replica");
            assertThat(asked).as("stops at the interruption").hasSize(1);
            assertThat(Thread.currentThread().isInterrupted())
                    .as("interrupt status kept")
                    .isTrue();
        } finally {
            Thread.interrupted();
        }
    }

    @Test
    void aReadOnlyUserFailsStartupNamingTheUserAndTheReplica() {
        FakeTransport t = server("ReplicatedMergeTree", "id\tUInt64\t\namount\tDecimal(18, 2)\t\ncustomer\tString\t\n");
        java.util.function.Function<String, String> base = t.queries;
        t.queries = sql -> sql.contains("name = 'readonly'") ? "1\n" : base.apply(sql);
        ClickHouseSinkConfig config = config().credentials("reader", "s3cret").build();
        assertThatThrownBy(() -> new ClickHouseSchemaValidator(config, t).validateShard(0, EXPECTED))
                .isInstanceOf(ClickHouseSchemaException.class)
                .hasMessageContaining("ClickHouse user 'reader' on shard 0 replica http://127.0.0.1:18123 is read-only")
                .hasMessageContaining("readonly=1")
                .hasMessageContaining("readonly=0")
                .satisfies(e -> assertThat(e.getMessage()).doesNotContain("s3cret"));
        t.queries = base;
        assertThat(new ClickHouseSchemaValidator(config, t).validateShard(0, EXPECTED))
                .isNotNull();
    }

    @Test
    void aServerRefusingAReadOnlyUsersSettingsIsReportedAsReadOnly() {
        ClickHouseTransport failing = new ClickHouseTransport() {
            @Override
            public long insert(java.net.URI replica, ClickHouseInsert insert, byte[] body, int length) {
                throw new AssertionError("no insert at validation");
            }

            @Override
            public String query(java.net.URI replica, String sql) throws ClickHouseRequestException {
                throw new ClickHouseRequestException(
                        ClickHouseRequestException.Kind.HTTP,
                        500,
                        164,
                        "Code: 164, e.displayText() = DB::Exception: Cannot modify 'wait_end_of_query' setting in "
                                + "readonly mode",
                        null);
            }
        };
        assertThatThrownBy(() -> new ClickHouseSchemaValidator(
                                config().credentials("reader", null).build(), failing)
                        .validateShard(0, EXPECTED))
                .isInstanceOf(ClickHouseSchemaException.class)
                .hasMessageContaining("ClickHouse user 'reader' on shard 0 replica http://127.0.0.1:18123 is read-only")
                .hasMessageContaining("readonly mode");
    }
}
