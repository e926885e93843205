package dev.etl.clickhouse;

import java.net.URI;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Objects;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import javax.net.ssl.SSLException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Startup checks of a ClickHouse sink's table on every replica of a shard, over raw HTTP reads
 * ({@code FORMAT TabSeparated}, uncompressed: what works on 18.16):
 * <ol>
 * <li>{@code SELECT version()} and the {@link ClickHouseCapabilities capabilities};</li>
 * <li>the sink's user may write: its {@code readonly} setting is 0 (a read-only user fails startup
 * naming the user and the replica, instead of the first insert);</li>
 * <li>{@code system.tables}: the table exists and is not {@code Distributed} (writes go to shard-local
 * tables); whether its engine deduplicates retried inserts: {@code Replicated*} does; a plain
 * {@code *MergeTree} only with {@code non_replicated_deduplication_window > 0} on a server that has
 * that setting (18.16 does not); anything else does not. No dedup: a WARN, or a refusal when
 * {@link ClickHouseSinkConfig#requireDedup()};</li>
 * <li>{@code system.columns} ({@link ClickHouseTableSchema}: without MATERIALIZED and ALIAS columns,
 * which inserts do not carry) against the encoder's columns by name, per {@link ValidationMode}: each
 * encoder column must be in the table, each table column the encoder leaves out must have a
 * {@code DEFAULT}; a column-by-column diff on mismatch.</li>
 * </ol>
 * A replica that cannot be reached is logged and skipped (it is checked by nobody until restart, and
 * the breaker handles it at runtime); a shard with no reachable replica fails validation. A failed TLS
 * handshake is a configuration error, not an outage: it fails validation at once, naming the replica and
 * what the handshake says (certificate not trusted, issued for another host, a port without TLS).
 *
 * <p>Thread-safe; blocking (call at startup).
 */
final class ClickHouseSchemaValidator {
    private static final Logger log = LoggerFactory.getLogger(ClickHouseSchemaValidator.class);
    private static final Pattern WINDOW = Pattern.compile("non_replicated_deduplication_window\\s*=\\s*(\\d+)");

    private final ClickHouseSinkConfig config;
    private final ClickHouseTransport transport;

    public ClickHouseSchemaValidator(ClickHouseSinkConfig config, ClickHouseTransport transport) {
        this.config = Objects.requireNonNull(config, "config");
        this.transport = Objects.requireNonNull(transport, "transport");
    }

    /**
     * Validates every replica of {@code shard} and returns the capabilities every reachable replica
     * has.
     *
     * @throws ClickHouseSchemaException on a mismatch, a missing or Distributed table, a table without
     *                                   insert deduplication when required, or no reachable replica
     */
    public ClickHouseCapabilities validateShard(int shard, List<ClickHouseColumn> expected) {
        List<ClickHouseCapabilities> reachable = new ArrayList<>();
        List<String> unreachable = new ArrayList<>();
        for (URI uri : config.shards().get(shard)) {
            try {
                reachable.add(validateReplica(shard, uri, expected));
            } catch (ClickHouseRequestException e) {
                unreachable.add(unreachable(shard, uri, e, Task.VALIDATE));
            }
        }
        if (reachable.isEmpty()) {
            throw new ClickHouseSchemaException(
                    null,
                    config.qualifiedTable(),
                    "no replica of ClickHouse shard " + shard + " is reachable to validate " + config.qualifiedTable()
                            + ": " + unreachable,
                    null);
        }
        return ClickHouseCapabilities.common(reachable);
    }

    /**
     * The table's columns ({@link ClickHouseTableSchema#read}) as the first reachable replica describes
     * them, shards and replicas in configuration order; an unreachable replica is logged and the next one
     * asked, every other failure is handled as in {@link #validateShard}.
     *
     * @throws ClickHouseSchemaException when the table does not exist on the replica that answered, the
     *                                   replica refuses the read (read-only user, TLS, an error answer), or
     *                                   no replica of any shard is reachable
     */
    ClickHouseTableSchema readTable() {
        List<String> unreachable = new ArrayList<>();
        for (int shard = 0; shard < config.shards().size(); shard++) {
            for (URI uri : config.shards().get(shard)) {
                try {
                    ClickHouseTableSchema schema =
                            ClickHouseTableSchema.fetch(transport, uri, config.database(), config.table());
                    if (schema == null) {
                        String replica = ClickHouseShardWriter.describe(uri);
                        throw new ClickHouseSchemaException(
                                replica,
                                config.qualifiedTable(),
                                "table " + config.qualifiedTable() + " does not exist on shard " + shard + " replica "
                                        + replica + " (system.columns lists no column of it)",
                                null);
                    }
                    return schema;
                } catch (ClickHouseRequestException e) {
                    unreachable.add(unreachable(shard, uri, e, Task.READ_COLUMNS));
                }
            }
        }
        throw new ClickHouseSchemaException(
                null,
                config.qualifiedTable(),
                "no replica of any ClickHouse shard is reachable to read the columns of " + config.qualifiedTable()
                        + ": " + unreachable,
                null);
    }

    /** What a startup read of a replica was for, in the words of its messages. */
    private enum Task {
        VALIDATE("validate", "validating", "not validated"),
        READ_COLUMNS("read the columns of", "reading the columns of", "asking the next one for the columns");

        final String verb;
        final String during;
        final String skipped;

        Task(String verb, String during, String skipped) {
            this.verb = verb;
            this.during = during;
            this.skipped = skipped;
        }
    }

    /**
     * Handles a failed startup read of a replica: throws a {@link ClickHouseSchemaException} for what is
     * no outage (a read-only user, TLS, an error answer, an interruption); returns the replica and the
     * failure for the "no replica reachable" message when the replica is unreachable (logged; the caller
     * goes on with the next).
     */
    private String unreachable(int shard, URI uri, ClickHouseRequestException e, Task task) {
        String replica = ClickHouseShardWriter.describe(uri);
        if (e.kind() == ClickHouseRequestException.Kind.HTTP && e.serverCode() == READONLY) {
            throw readOnly(shard, replica, "the server refused a read with its own settings: " + e.serverText(), e);
        }
        SSLException tls = sslCause(e);
        if (tls != null) {
            throw new ClickHouseSchemaException(
                    replica,
                    config.qualifiedTable(),
                    "TLS with ClickHouse shard " + shard + " replica " + replica + " failed: " + tlsProblem(tls, uri)
                            + " (" + tls + ")",
                    e);
        }
        if (e.kind() == ClickHouseRequestException.Kind.HTTP) {
            throw new ClickHouseSchemaException(
                    replica,
                    config.qualifiedTable(),
                    "cannot " + task.verb + " table " + config.qualifiedTable() + " on shard " + shard + " replica "
                            + replica + ": " + e.serverText(),
                    e);
        }
        if (e.getCause() instanceof InterruptedException
                || Thread.currentThread().isInterrupted()) {
            // The application is stopping (e.g. SIGTERM during startup): not a replica problem.
            Thread.currentThread().interrupt();
            log.info(
                    "{} {} on ClickHouse shard {} replica {} interrupted (the application is stopping)",
                    task.during,
                    config.qualifiedTable(),
                    shard,
                    replica);
            throw new ClickHouseSchemaException(
                    replica,
                    config.qualifiedTable(),
                    "interrupted while " + task.during + " " + config.qualifiedTable() + " on ClickHouse shard "
                            + shard + " replica " + replica
                            + " (the application is stopping; the replica was not found unreachable)",
                    e);
        }
        log.warn(
                "ClickHouse shard {} replica {} unreachable at startup, {}: {}",
                shard,
                replica,
                task.skipped,
                e.serverText());
        return replica + " (" + e.serverText() + ")";
    }

    private ClickHouseCapabilities validateReplica(int shard, URI uri, List<ClickHouseColumn> expected)
            throws ClickHouseRequestException {
        String replica = ClickHouseShardWriter.describe(uri);
        String table = config.qualifiedTable();
        ClickHouseCapabilities caps = ClickHouseCapabilities.detect(transport, uri);
        checkWritable(shard, uri, replica);
        checkSettings(shard, uri, replica, caps);
        String where = "database = " + literal(config.database()) + " AND ";
        String engineRow = transport
                .query(
                        uri,
                        "SELECT engine, engine_full FROM system.tables WHERE " + where + "name = "
                                + literal(config.table()) + " FORMAT TabSeparated")
                .strip();
        if (engineRow.isEmpty()) {
            throw new ClickHouseSchemaException(
                    replica,
                    table,
                    "table " + table + " does not exist on shard " + shard + " replica " + replica + " (ClickHouse "
                            + caps.version() + ")",
                    null);
        }
        String[] parts = engineRow.split("\t", 2);
        String engine = unescapeTsv(parts[0]);
        String engineFull = parts.length > 1 ? unescapeTsv(parts[1]) : "";
        if (engine.equals("Distributed")) {
            throw new ClickHouseSchemaException(
                    replica,
                    table,
                    "table " + table + " on replica " + replica
                            + " is Distributed; point the sink at the shard-local table (an insert into a Distributed table"
                            + " returns before the rows are durable on the shards)",
                    null);
        }
        if (config.deterministicBlocks()) {
            checkReplayWindow(uri, replica, shard, engine, engineFull, caps);
        }
        String dedupProblem = dedupProblem(engine, engineFull, caps);
        if (dedupProblem != null) {
            String message = "table " + table + " on shard " + shard + " replica " + replica + " (ClickHouse "
                    + caps.version() + ") does not deduplicate retried inserts: " + dedupProblem
                    + "; a retry after an insert that committed but timed out will duplicate rows";
            if (config.requireDedup()) {
                throw new ClickHouseSchemaException(replica, table, message + " (requireDedup is set)", null);
            }
            log.warn("{}", message);
        }
        if (config.validation() != ValidationMode.OFF) {
            ClickHouseTableSchema schema =
                    ClickHouseTableSchema.fetch(transport, uri, config.database(), config.table());
            String diff = columnDiff(
                    expected,
                    schema == null ? ClickHouseTableSchema.of(List.of(), Set.of()) : schema,
                    config.validation());
            if (diff != null) {
                throw new ClickHouseSchemaException(
                        replica,
                        table,
                        "table " + table + " on shard " + shard + " replica " + replica
                                + " does not match the encoder (" + config.validation() + " validation):\n" + diff,
                        null);
            }
            if (!caps.dedupToken() && schema != null) {
                warnOfDefaultsPerInsert(shard, replica, expected, schema);
            }
        }
        log.info(
                "ClickHouse shard {} replica {}: {} engine {} validated ({}), token={}, async_insert={}",
                shard,
                replica,
                table,
                engine,
                config.validation(),
                caps.dedupToken(),
                caps.asyncInsert());
        return caps;
    }

    /** A function whose value differs from one insert to the next. */
    private static final Pattern PER_INSERT = Pattern.compile(
            "\\b(now|now64|nowInBlock|today|yesterday|rand|rand32|rand64|randConstant|generateUUIDv4|"
                    + "currentTimestamp|hostName|uptime|rowNumberInAllBlocks|blockNumber)\\s*\\(",
            Pattern.CASE_INSENSITIVE);

    /**
     * Without {@code insert_deduplication_token} a Replicated table drops a retried block only when the part
     * it writes is the same, after the server filled in the defaults: a {@code DEFAULT now()} the insert leaves
     * to the server makes a retry in another second a new block (verified on 18.16). Warns naming such columns.
     */
    private void warnOfDefaultsPerInsert(
            int shard, String replica, List<ClickHouseColumn> expected, ClickHouseTableSchema schema) {
        Set<String> written = new HashSet<>();
        expected.forEach(c -> written.add(c.name()));
        List<String> perInsert = new ArrayList<>();
        for (ClickHouseColumn c : schema.insertable()) {
            String expression = schema.defaultExpression(c.name());
            if (!written.contains(c.name()) && PER_INSERT.matcher(expression).find()) {
                perInsert.add(c.name() + " DEFAULT " + expression);
            }
        }
        if (!perInsert.isEmpty()) {
            log.warn(
                    "ClickHouse shard {} replica {}: table {} computes {} per insert and the server has no "
                            + "insert_deduplication_token: a retried or replayed batch is a different block once that value "
                            + "changed (DEFAULT now(): in another second) and is stored again; write the column from the "
                            + "record instead",
                    shard,
                    replica,
                    config.qualifiedTable(),
                    perInsert);
        }
    }

    /** ClickHouse's READONLY error: a write, or a setting change, by a user whose profile has readonly != 0. */
    static final int READONLY = 164;

    /**
     * The sink's user must be allowed to write: a profile with {@code readonly} other than 0 (1: reads
     * only; 2: reads and settings) refuses every insert, which would otherwise fail the first batch long
     * after startup. 18.16 has no GRANT, so {@code readonly} is the only right it can take away; on servers
     * with SQL access control a missing INSERT grant shows at the first insert (ACCESS_DENIED, permanent).
     */
    private void checkWritable(int shard, URI uri, String replica) throws ClickHouseRequestException {
        String readonly = transport
                .query(uri, "SELECT value FROM system.settings WHERE name = 'readonly' " + "FORMAT TabSeparated")
                .strip();
        if (!readonly.isEmpty() && !readonly.equals("0")) {
            throw readOnly(shard, replica, "its profile sets readonly=" + readonly, null);
        }
    }

    private ClickHouseSchemaException readOnly(int shard, String replica, String why, Throwable cause) {
        String user = config.user() == null ? "default" : config.user();
        return new ClickHouseSchemaException(
                replica,
                config.qualifiedTable(),
                "ClickHouse user '" + user + "' on shard "
                        + shard + " replica " + replica + " is read-only (" + why + "), so the sink cannot insert into "
                        + config.qualifiedTable()
                        + ": use a user whose profile has readonly=0 (on servers with GRANT, one "
                        + "granted INSERT and SELECT on the table)",
                cause);
    }

    /** The TLS failure behind a request failure, or null. */
    static SSLException sslCause(Throwable e) {
        for (Throwable t = e; t != null; t = t.getCause() == t ? null : t.getCause()) {
            if (t instanceof SSLException ssl) {
                return ssl;
            }
        }
        return null;
    }

    /** What a failed handshake most likely means, in the user's terms. */
    static String tlsProblem(SSLException e, URI uri) {
        StringBuilder text = new StringBuilder();
        for (Throwable t = e; t != null; t = t.getCause() == t ? null : t.getCause()) {
            text.append(' ').append(t.getMessage());
        }
        String all = text.toString();
        if (all.contains("No subject alternative") || all.contains("No name matching")) {
            return "the server's certificate is not issued for '" + uri.getHost() + "', the host in the replica URL; "
                    + "use a host name the certificate lists in its subject alternative names";
        }
        if (all.contains("PKIX") || all.contains("certification path") || all.contains("unable to find valid")) {
            return "the server's certificate is not trusted; trust the CA that issued it (an SSL bundle in "
                    + "etl.sink.clickhouse.ssl.bundle, or ClickHouseSinkConfig.Builder.tls)";
        }
        if (all.contains("Unsupported or unrecognized SSL message") || all.contains("plaintext connection")) {
            return "the port does not speak TLS; is it the server's http_port rather than its https_port?";
        }
        return "the TLS handshake failed";
    }

    /**
     * Every configured insert setting must be one the server knows: an unknown name (a typo) would
     * otherwise fail every insert, and on servers that ignore unknown settings would silently change
     * nothing. Fails naming the setting and the closest known one.
     */
    private void checkSettings(int shard, URI uri, String replica, ClickHouseCapabilities caps)
            throws ClickHouseRequestException {
        if (config.settings().isEmpty()) {
            return;
        }
        Set<String> known = new HashSet<>();
        for (String line : transport
                .query(uri, "SELECT name FROM system.settings FORMAT TabSeparated")
                .split("\n")) {
            if (!line.isBlank()) {
                known.add(unescapeTsv(line.strip()));
            }
        }
        if (known.isEmpty()) {
            return; // a server (or proxy) that lists no settings: nothing to compare against
        }
        for (String name : config.settings().keySet()) {
            if (!known.contains(name)) {
                String closest = dev.etl.error.Suggestion.closest(name, known);
                throw new ClickHouseSchemaException(
                        replica,
                        config.qualifiedTable(),
                        "insert setting '" + name
                                + "' (etl.sink.clickhouse.settings / ClickHouseSinkConfig.Builder.setting) is not a setting of "
                                + "ClickHouse " + caps.version() + " on shard " + shard + " replica " + replica
                                + (closest == null ? "" : "; did you mean '" + closest + "'?"),
                        null);
            }
        }
    }

    /**
     * With deterministic blocks, a replay is dropped only if each replayed block is still among the last
     * {@code replicated_deduplication_window} blocks inserted into this shard's table when it is inserted
     * again. Warns, with the numbers, when the window is small for a crash replay (every partition writing
     * to the shard seals a block per {@code linger}; the window must cover the restart and the replay), and
     * when the table cannot deduplicate at all.
     */
    private void checkReplayWindow(
            URI uri, String replica, int shard, String engine, String engineFull, ClickHouseCapabilities caps)
            throws ClickHouseRequestException {
        String table = config.qualifiedTable();
        if (!engine.startsWith("Replicated")) {
            if (!caps.dedupToken() || dedupProblem(engine, engineFull, caps) != null) {
                log.warn(
                        "ClickHouse shard {} replica {}: table {} ({}) cannot drop replayed blocks: deterministic "
                                + "blocks make a replay after a crash rebuild the same inserts, but only a Replicated*MergeTree "
                                + "table (or, on servers with insert_deduplication_token, a MergeTree with "
                                + "non_replicated_deduplication_window > 0) drops them; replays will duplicate rows",
                        shard,
                        replica,
                        table,
                        engine);
            }
            return;
        }
        long window = settingOf(engineFull, "replicated_deduplication_window");
        if (window < 0) {
            String body = transport
                    .query(
                            uri,
                            "SELECT value FROM system.merge_tree_settings WHERE name = "
                                    + "'replicated_deduplication_window' FORMAT TabSeparated")
                    .strip();
            window = body.isEmpty() ? 100 : Long.parseLong(body);
        }
        long lingerMs = Math.max(1, config.batch().linger().toMillis());
        if (window < RECOMMENDED_REPLAY_WINDOW) {
            log.warn(
                    "ClickHouse shard {} replica {}: table {} keeps the hashes of its last {} inserted blocks "
                            + "(replicated_deduplication_window). A replayed block is dropped only while fewer blocks than that "
                            + "were inserted into the shard's table after its first write: with P partitions sealing a block "
                            + "per shard every {} ms that is {} × {} ms / P of restart and replay (P = 8: {} s). For crash "
                            + "replays without duplicates create the table with SETTINGS replicated_deduplication_window = {} "
                            + "or more ({} s at P = 8)",
                    shard,
                    replica,
                    table,
                    window,
                    lingerMs,
                    window,
                    lingerMs,
                    window * lingerMs / 8 / 1000,
                    RECOMMENDED_REPLAY_WINDOW,
                    RECOMMENDED_REPLAY_WINDOW * lingerMs / 8 / 1000);
        } else {
            log.info(
                    "ClickHouse shard {} replica {}: table {} deduplicates replayed blocks over its last {} blocks "
                            + "(about {} s of replay at 8 partitions and a {} ms linger)",
                    shard,
                    replica,
                    table,
                    window,
                    window * lingerMs / 8 / 1000,
                    lingerMs);
        }
    }

    /** The replay window the startup check recommends (the server default is 100). */
    static final long RECOMMENDED_REPLAY_WINDOW = 1_000;

    /** A numeric MergeTree setting from a table's {@code engine_full}, or -1 when it does not set it. */
    static long settingOf(String engineFull, String name) {
        Matcher m = Pattern.compile("\\b" + name + "\\s*=\\s*(\\d+)").matcher(engineFull);
        return m.find() ? Long.parseLong(m.group(1)) : -1;
    }

    /** Why the engine does not dedup inserts, or null when it does. */
    static String dedupProblem(String engine, String engineFull, ClickHouseCapabilities caps) {
        if (engine.startsWith("Replicated")) {
            return null;
        }
        if (!engine.endsWith("MergeTree")) {
            return "engine " + engine + " has no insert deduplication";
        }
        if (!caps.nonReplicatedDeduplicationWindow()) {
            return "engine " + engine + " is not Replicated and the server has no non_replicated_deduplication_window";
        }
        Matcher m = WINDOW.matcher(engineFull);
        if (m.find() && Long.parseLong(m.group(1)) > 0) {
            return null;
        }
        return "engine " + engine + " with non_replicated_deduplication_window = 0 (the default): deduplication"
                + " silently does nothing";
    }

    /**
     * A column-by-column diff, or null when the encoder's columns fit the table under {@code mode}. The
     * insert names its columns ({@link ClickHouseInsert}), so columns are matched by name and their order
     * does not matter: every encoder column must be a column of the table (under {@code FULL} of the same
     * type, compared after their {@link ColumnType#canonical()} spelling), none twice; every insertable table
     * column the encoder does not write must have a {@code DEFAULT} (else the insert would store its type's
     * zero value). The diff lists the encoder's columns in its order next to the table's column of the same
     * name, then the table's columns the encoder does not write, in table order.
     */
    static String columnDiff(List<ClickHouseColumn> expected, ClickHouseTableSchema table, ValidationMode mode) {
        if (mode == ValidationMode.OFF) {
            return null;
        }
        Set<String> written = new HashSet<>();
        List<String> twice = new ArrayList<>();
        List<String> missing = new ArrayList<>();
        boolean typeDiffers = false;
        for (ClickHouseColumn e : expected) {
            if (!written.add(e.name())) {
                twice.add(e.name());
            }
            ClickHouseColumn a = table.column(e.name());
            if (a == null) {
                missing.add(e.name());
            } else if (mode == ValidationMode.FULL && !typesMatch(e.type(), a.type())) {
                typeDiffers = true;
            }
        }
        List<ClickHouseColumn> unwritten = new ArrayList<>();
        List<String> zeroed = new ArrayList<>();
        for (ClickHouseColumn a : table.insertable()) {
            if (!written.contains(a.name())) {
                unwritten.add(a);
                if (!table.hasDefault(a.name())) {
                    zeroed.add(a.name());
                }
            }
        }
        if (twice.isEmpty() && missing.isEmpty() && !typeDiffers && zeroed.isEmpty()) {
            return null;
        }
        int nameWidth = "encoder".length();
        int typeWidth = 0;
        int tableTypeWidth = 0;
        for (ClickHouseColumn c : expected) {
            nameWidth = Math.max(nameWidth, c.name().length());
            typeWidth = Math.max(typeWidth, c.type().length());
        }
        for (ClickHouseColumn c : table.insertable()) {
            nameWidth = Math.max(nameWidth, c.name().length());
            tableTypeWidth = Math.max(tableTypeWidth, c.type().length());
        }
        String format = "  %-3s %-" + nameWidth + "s %-" + Math.max(1, typeWidth) + "s | %-" + nameWidth + "s %-"
                + Math.max(1, tableTypeWidth) + "s  %s";
        StringBuilder sb = new StringBuilder();
        line(sb, format, "#", "encoder", "", "table", "", "");
        List<String> candidates = unwritten.stream().map(ClickHouseColumn::name).toList();
        Set<String> seen = new HashSet<>();
        for (int i = 0; i < expected.size(); i++) {
            ClickHouseColumn e = expected.get(i);
            ClickHouseColumn a = table.column(e.name());
            String note;
            if (a == null) {
                String closest = dev.etl.error.Suggestion.closest(e.name(), candidates);
                note = "<- the table has no such column" + (closest == null ? "" : "; did you mean '" + closest + "'?");
            } else if (!seen.add(e.name())) {
                note = "<- written twice";
            } else if (mode == ValidationMode.FULL && !typesMatch(e.type(), a.type())) {
                note = "<- type differs";
            } else {
                note = "";
            }
            line(
                    sb,
                    format,
                    String.valueOf(i + 1),
                    e.name(),
                    e.type(),
                    a == null ? "-" : a.name(),
                    a == null ? "" : a.type(),
                    note);
        }
        for (ClickHouseColumn a : unwritten) {
            String note = table.hasDefault(a.name())
                    ? "(not written: the server computes its DEFAULT)"
                    : "<- not written by the encoder, and no DEFAULT";
            line(sb, format, "-", "-", "", a.name(), a.type(), note);
        }
        if (!missing.isEmpty()) {
            sb.append("  missing in the table: ").append(missing).append('\n');
        }
        if (!twice.isEmpty()) {
            sb.append("  written twice by the encoder: ").append(twice).append('\n');
        }
        if (!zeroed.isEmpty()) {
            boolean one = zeroed.size() == 1;
            sb.append("  the insert would store the type's zero value in ")
                    .append(zeroed)
                    .append(" (table column")
                    .append(one ? "" : "s")
                    .append(" the encoder does not write, without a DEFAULT): ")
                    .append(one ? "map it, or give it a DEFAULT" : "map them, or give them a DEFAULT")
                    .append('\n');
        }
        return sb.toString();
    }

    /** One row of the column diff, without trailing blanks. */
    private static void line(StringBuilder sb, String format, Object... cells) {
        sb.append(String.format(format, cells).stripTrailing()).append('\n');
    }

    /** Whether two type strings name the same wire type ({@link ColumnType#sameType}). */
    static boolean typesMatch(String expected, String actual) {
        return ColumnType.sameType(expected, actual);
    }

    /** Undoes TabSeparated escaping ({@code \'}, {@code \\}, {@code \t}, {@code \n}). */
    static String unescapeTsv(String s) {
        if (s.indexOf('\\') < 0) {
            return s;
        }
        StringBuilder sb = new StringBuilder(s.length());
        for (int i = 0; i < s.length(); i++) {
            char c = s.charAt(i);
            if (c == '\\' && i + 1 < s.length()) {
                char n = s.charAt(++i);
                sb.append(
                        switch (n) {
                            case 't' -> '\t';
                            case 'n' -> '\n';
                            case 'r' -> '\r';
                            case '0' -> '\0';
                            default -> n;
                        });
            } else {
                sb.append(c);
            }
        }
        return sb.toString();
    }

    static String literal(String s) {
        return "'" + s.replace("\\", "\\\\").replace("'", "\\'") + "'";
    }
}
