package dev.etl.it.clickhouse;

import static org.assertj.core.api.Assertions.assertThat;

import dev.etl.clickhouse.sharding.KeyType;
import dev.etl.clickhouse.sharding.ShardingFunction;
import dev.etl.clickhouse.sharding.ShardingKey;
import dev.etl.test.infra.ClickHouseHttp;
import dev.etl.test.infra.InfraEndpoints;
import dev.etl.test.infra.InfraServer;
import dev.etl.test.infra.LocalInfra;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;
import java.util.SplittableRandom;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * Seeded randomized parity of the Java hashes with the ClickHouse 18.16 server: for every sharding
 * function and key column type, thousands of random keys (integers over the whole range of each
 * type; strings of random code points, ASCII to 4-byte UTF-8, empty included; raw bytes that are not
 * UTF-8) are hashed by the server ({@code SELECT f(CAST(... AS T))}) and by {@link ShardingKey}.
 * The seed is {@code -Detl.it.seed=…} (printed with every failure), a fixed one by default.
 */
@LocalInfra(InfraServer.CLICKHOUSE)
class ClickHouseHashParityIT {
    private static final long SEED = Long.getLong("etl.it.seed", 0x16_04_2018L);
    private static final int KEYS = 3000;
    private static final int PER_QUERY = 500;

    private static String replica;

    @BeforeAll
    static void server(InfraEndpoints infra) {
        replica = infra.clickhouseShard(1).replicaUrl(1);
        assertThat(ClickHouseHttp.query(replica, "SELECT version()")).startsWith("18.16");
    }

    @Test
    void integerHashesMatchTheServerForEveryIntegerType() {
        for (KeyType type : KeyType.values()) {
            if (!type.isInteger()) {
                continue;
            }
            SplittableRandom random = new SplittableRandom(SEED ^ type.ordinal());
            List<Long> keys = new ArrayList<>(KEYS);
            for (int i = 0; i < KEYS; i++) {
                // mix whole-range values with small ones (ids) and values near the type's edges
                long k = switch (i % 4) {
                    case 0 -> random.nextLong();
                    case 1 -> random.nextInt(100_000);
                    case 2 -> -random.nextInt(1000);
                    default -> random.nextLong() >>> random.nextInt(64);
                };
                keys.add(type.isSigned() ? type.value(k) : type.bits(k));
            }
            for (ShardingFunction f : List.of(
                    ShardingFunction.CITY_HASH_64, ShardingFunction.MURMUR_HASH3_64, ShardingFunction.INT_HASH_64)) {
                ShardingKey key = new ShardingKey(f, "k", type);
                List<String> literals = keys.stream()
                        .map(k -> "CAST('" + (type.isSigned() ? Long.toString(k) : Long.toUnsignedString(k)) + "' AS "
                                + type.clickHouseName() + ")")
                        .toList();
                List<String> server = serverHashes(f, literals);
                for (int i = 0; i < keys.size(); i++) {
                    assertThat(Long.toUnsignedString(key.valueOf(keys.get(i))))
                            .as("%s(to%s(%s)) [seed %d]", f.sqlName(), type, keys.get(i), SEED)
                            .isEqualTo(server.get(i));
                }
            }
        }
    }

    @Test
    void stringHashesMatchTheServerForUtf8TextOfEveryLength() {
        SplittableRandom random = new SplittableRandom(SEED);
        List<String> keys = new ArrayList<>(KEYS);
        keys.add("");
        while (keys.size() < KEYS) {
            keys.add(randomText(random));
        }
        List<String> literals = keys.stream()
                .map(k -> "unhex('" + HexFormat.of().formatHex(k.getBytes(StandardCharsets.UTF_8)) + "')")
                .toList();
        for (ShardingFunction f : List.of(ShardingFunction.CITY_HASH_64, ShardingFunction.MURMUR_HASH3_64)) {
            ShardingKey key = new ShardingKey(f, "k", KeyType.STRING);
            List<String> server = serverHashes(f, literals);
            for (int i = 0; i < keys.size(); i++) {
                assertThat(Long.toUnsignedString(key.valueOf(keys.get(i))))
                        .as(
                                "%s('%s') (%d UTF-8 bytes) [seed %d]",
                                f.sqlName(), keys.get(i), keys.get(i).getBytes(StandardCharsets.UTF_8).length, SEED)
                        .isEqualTo(server.get(i));
            }
        }
    }

    @Test
    void byteHashesMatchTheServerForBytesThatAreNotUtf8() {
        SplittableRandom random = new SplittableRandom(~SEED);
        List<byte[]> keys = new ArrayList<>(KEYS);
        for (int i = 0; i < KEYS; i++) {
            byte[] b = new byte[random.nextInt(i % 10 == 0 ? 1024 : 130)];
            random.nextBytes(b);
            keys.add(b);
        }
        List<String> literals = keys.stream()
                .map(b -> "unhex('" + HexFormat.of().formatHex(b) + "')")
                .toList();
        for (ShardingFunction f : List.of(ShardingFunction.CITY_HASH_64, ShardingFunction.MURMUR_HASH3_64)) {
            ShardingKey key = new ShardingKey(f, "k", KeyType.STRING);
            List<String> server = serverHashes(f, literals);
            for (int i = 0; i < keys.size(); i++) {
                byte[] b = keys.get(i);
                assertThat(Long.toUnsignedString(key.valueOf(b, 0, b.length)))
                        .as(
                                "%s(unhex('%s')) [seed %d]",
                                f.sqlName(), HexFormat.of().formatHex(b), SEED)
                        .isEqualTo(server.get(i));
            }
        }
    }

    /** The server's {@code f(literal)} for each literal, in order. */
    private static List<String> serverHashes(ShardingFunction f, List<String> literals) {
        List<String> out = new ArrayList<>(literals.size());
        for (int from = 0, to; from < literals.size(); from = to) {
            // at most PER_QUERY keys and ~100 KB of SQL (the server's max_query_size is 256 KiB)
            int chars = 0;
            for (to = from; to < literals.size() && to - from < PER_QUERY && chars < 100_000; to++) {
                chars += literals.get(to).length() + 2;
            }
            List<String> batch = literals.subList(from, to);
            String sql = "SELECT idx, " + f.sqlName()
                    + "(keys[idx]) FROM (SELECT arrayJoin(arrayEnumerate(keys)) AS idx," + " keys FROM (SELECT ["
                    + String.join(", ", batch) + "] AS keys)) ORDER BY idx FORMAT TabSeparated";
            String[] lines = ClickHouseHttp.query(replica, sql).split("\n");
            assertThat(lines).hasSize(batch.size());
            for (String line : lines) {
                out.add(line.split("\t")[1]);
            }
        }
        return out;
    }

    private static String randomText(SplittableRandom random) {
        int length = switch (random.nextInt(6)) {
            case 0 -> random.nextInt(17);
            case 1 -> 17 + random.nextInt(16);
            case 2 -> 33 + random.nextInt(32);
            case 3 -> 65 + random.nextInt(64);
            case 4 -> random.nextInt(1200);
            default -> random.nextInt(8);
        };
        StringBuilder sb = new StringBuilder(length);
        while (sb.length() < length) {
            int cp = switch (random.nextInt(4)) {
                case 0 -> 0x20 + random.nextInt(0x5f); // ASCII
                case 1 -> 0x80 + random.nextInt(0x780); // 2-byte UTF-8
                case 2 -> 0x800 + random.nextInt(0xD800 - 0x800); // 3-byte, below the surrogates
                default -> 0x10000 + random.nextInt(0x10FFFF - 0x10000); // 4-byte (a surrogate pair in Java)
            };
            sb.appendCodePoint(random.nextInt(20) == 0 ? random.nextInt(0x20) : cp); // some control characters
        }
        return sb.toString();
    }
}
