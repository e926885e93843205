package dev.etl.clickhouse.sharding;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.charset.StandardCharsets;
import org.junit.jupiter.api.Test;

/**
 * The Java hashes against values computed by ClickHouse 18.16.1 (the local infrastructure's server).
 * Each vector records the query that produced it; {@code ClickHouseHashParityIT} compares thousands
 * more, random ones, against the live server.
 */
class ClickHouseHashVectorsTest {

    /** 324 ASCII bytes; prefixes of it cover every CityHash length branch and several 64-byte rounds. */
    static final String TEXT =
            "The quick brown fox jumps over the lazy dog. Pack my box with five dozen liquor jugs! 0123"
                    + "456789 How vexingly quick daft zebras jump; sphinx of black quartz, judge my vow. The five"
                    + " boxing wizards jump quickly. Jackdaws love my big sphinx of quartz. Quick zephyrs blow, v"
                    + "exing daft Jim. Two driven jocks help fax my big quiz.";

    /**
     * {@code SELECT n, cityHash64(substring(s, 1, n)), murmurHash3_64(substring(s, 1, n)) FROM (SELECT
     * arrayJoin([0, 1, 2, 3, 4, 5, 7, 8, 9, 12, 15, 16, 17, 24, 31, 32, 33, 48, 63, 64, 65, 100, 127, 128,
     * 129, 191, 192, 193, 256, 300]) AS n, '<TEXT>' AS s)}.
     */
    static final Object[][] PREFIXES = {
        {0, "11160318154034397263", "0"},
        {1, "5570910369516329963", "13165888450352469731"},
        {2, "1543931613479180149", "8264876599865411630"},
        {3, "9456065179546978676", "16102471001882546904"},
        {4, "7426151758103449081", "7128421908403888256"},
        {5, "13426132771373433940", "1841769553869715169"},
        {7, "12915914661088991145", "7153743448176178618"},
        {8, "8261970815632334399", "16908012130757995794"},
        {9, "15693689613497209625", "11104940977637703061"},
        {12, "4794125891677675609", "15543596721342831842"},
        {15, "14516595473119768720", "13071930861859456093"},
        {16, "3887581654433788716", "11531317859971041378"},
        {17, "17248679875317671279", "773923124811137698"},
        {24, "5574213167716506373", "4868012000467620302"},
        {31, "2921807510953238776", "10814454860073024621"},
        {32, "14343997730508542907", "5677272069963393385"},
        {33, "4305124436332828171", "10288136394254780636"},
        {48, "1824320602134049028", "8808603595687980802"},
        {63, "17036068865637356910", "9726075466257687336"},
        {64, "14823532038891061973", "17881603411834839270"},
        {65, "3886636511168501468", "2830615394318567922"},
        {100, "2382090871650776256", "4453313355495987957"},
        {127, "4952487779425476377", "1554865510409068962"},
        {128, "10183728630453827418", "7828946411088917871"},
        {129, "12329861931686252343", "6940552202975192073"},
        {191, "10851527457306727889", "15862603987361592263"},
        {192, "14052758120202513000", "17418036700301565174"},
        {193, "4587881851834906127", "3542657543705696758"},
        {256, "15796054054581127865", "5335313308032522658"},
        {300, "11956783260345362487", "11023300997038288304"},
    };

    @Test
    void cityHash64OfStringPrefixesMatchesTheServer() {
        byte[] text = TEXT.getBytes(StandardCharsets.US_ASCII);
        assertThat(text).hasSize(324);
        for (Object[] v : PREFIXES) {
            int n = (Integer) v[0];
            assertThat(Long.toUnsignedString(CityHash64.hash(text, 0, n)))
                    .as("cityHash64 of %d bytes", n)
                    .isEqualTo(v[1]);
        }
    }

    @Test
    void murmurHash3_64OfStringPrefixesMatchesTheServer() {
        byte[] text = TEXT.getBytes(StandardCharsets.US_ASCII);
        for (Object[] v : PREFIXES) {
            int n = (Integer) v[0];
            assertThat(Long.toUnsignedString(MurmurHash3.hash64(text, 0, n)))
                    .as("murmurHash3_64 of %d bytes", n)
                    .isEqualTo(v[2]);
        }
    }

    @Test
    void hashesReadTheGivenRangeOnly() {
        byte[] text = ("xx" + TEXT + "yy").getBytes(StandardCharsets.US_ASCII);
        assertThat(Long.toUnsignedString(CityHash64.hash(text, 2, 129))).isEqualTo("12329861931686252343");
        assertThat(Long.toUnsignedString(MurmurHash3.hash64(text, 2, 129))).isEqualTo("6940552202975192073");
    }

    /**
     * {@code SELECT cityHash64('привет, мир'), murmurHash3_64('привет, мир'), cityHash64('日本語😀'),
     * murmurHash3_64('日本語😀')}: UTF-8 bytes, as the String column stores them.
     */
    @Test
    void multiByteUtf8MatchesTheServer() {
        assertThat(Long.toUnsignedString(
                        ShardingKey.cityHash64("s", KeyType.STRING).valueOf("привет, мир")))
                .isEqualTo("5327351778077532517");
        assertThat(Long.toUnsignedString(
                        ShardingKey.murmurHash3_64("s", KeyType.STRING).valueOf("привет, мир")))
                .isEqualTo("3188616556182161869");
        assertThat(Long.toUnsignedString(
                        ShardingKey.cityHash64("s", KeyType.STRING).valueOf("日本語😀")))
                .isEqualTo("10830387429963765298");
        assertThat(Long.toUnsignedString(
                        ShardingKey.murmurHash3_64("s", KeyType.STRING).valueOf("日本語😀")))
                .isEqualTo("9440845630784639100");
    }

    /**
     * {@code SELECT cityHash64(toUInt8(200))}, … one query per line: cityHash64 of an integer is
     * intHash64 of its bytes zero-extended (toInt32(-1) = toUInt32(4294967295)), not CityHash of bytes.
     */
    @Test
    void cityHash64OfIntegersMatchesTheServer() {
        assertCity(KeyType.UINT8, 200, "14204231057850003148");
        assertCity(KeyType.INT8, -1, "8055013221972926055");
        assertCity(KeyType.INT16, -1, "6547939410751295652");
        assertCity(KeyType.INT32, -1, "9168733277332772950");
        assertCity(KeyType.UINT32, 4294967295L, "9168733277332772950");
        assertCity(KeyType.INT64, -1, "14600443904207254319");
        assertCity(KeyType.UINT64, 1, "10577349846663553072");
        assertCity(KeyType.UINT64, Long.parseUnsignedLong("12345678901234567890"), "16053160066607574556");
        assertCity(KeyType.UINT16, 17000, "8742079942791431200"); // cityHash64(toDate(17000))
    }

    /**
     * {@code SELECT intHash64(toInt8(-1))}, …: intHash64 converts by value, so a negative Int8 hashes
     * like Int64 -1 ({@code cityHash64(toInt64(-1))} above).
     */
    @Test
    void intHash64MatchesTheServer() {
        assertIntHash(KeyType.INT8, -1, "14600443904207254319");
        assertIntHash(KeyType.INT32, -123456, "8399953035779998426");
        assertIntHash(KeyType.UINT32, 4294967295L, "9168733277332772950");
        assertIntHash(KeyType.UINT64, 0, "4761183170873013810");
        assertIntHash(KeyType.UINT64, Long.parseUnsignedLong("12345678901234567890"), "16053160066607574556");
    }

    /**
     * {@code SELECT murmurHash3_64(toUInt8(1))}, …: murmurHash3_64 hashes an integer's little-endian
     * bytes in the column's width, so the same value differs by type.
     */
    @Test
    void murmurHash3_64OfIntegersMatchesTheServer() {
        assertMurmur(KeyType.UINT8, 1, "956517343494314387");
        assertMurmur(KeyType.UINT16, 1, "6029508210597122352");
        assertMurmur(KeyType.UINT32, 1, "6589291938082550974");
        assertMurmur(KeyType.UINT64, 1, "4453723594474149964");
        assertMurmur(KeyType.INT8, -128, "7328765712368208299");
        assertMurmur(KeyType.INT16, -2, "14368912375146494917");
        assertMurmur(KeyType.INT32, -1, "9569888226385185069");
        assertMurmur(KeyType.INT64, -1, "14539203664606702556");
        assertMurmur(KeyType.UINT64, Long.parseUnsignedLong("12345678901234567890"), "16155879066233259211");
        assertMurmur(KeyType.UINT16, 17000, "12319833212611013656"); // murmurHash3_64(toDate(17000))
    }

    /**
     * {@code SELECT murmurHash3_64('a', 'b')} = 18305627054227103971 and {@code SELECT cityHash64('a', 'b')}
     * = 7468329322676821011: how the server combines several arguments.
     */
    @Test
    void multiArgumentCombinationMatchesTheServer() {
        long ma = MurmurHash3.hash64("a".getBytes(StandardCharsets.UTF_8));
        long mb = MurmurHash3.hash64("b".getBytes(StandardCharsets.UTF_8));
        assertThat(Long.toUnsignedString(IntHash64.ofValue(ma) ^ mb)).isEqualTo("18305627054227103971");
        long ca = CityHash64.hash("a".getBytes(StandardCharsets.UTF_8));
        long cb = CityHash64.hash("b".getBytes(StandardCharsets.UTF_8));
        assertThat(Long.toUnsignedString(CityHash64.hash128to64(ca, cb))).isEqualTo("7468329322676821011");
    }

    @Test
    void outOfRangeKeysAreHashedAsTheBitsTheColumnStores() {
        // RowBinary writes the low byte of 300 into a UInt8 column: 44
        assertThat(ShardingKey.cityHash64("k", KeyType.UINT8).valueOf(300))
                .isEqualTo(ShardingKey.cityHash64("k", KeyType.UINT8).valueOf(44));
        assertThat(ShardingKey.murmurHash3_64("k", KeyType.INT16).valueOf(0x1_FFFEL))
                .isEqualTo(ShardingKey.murmurHash3_64("k", KeyType.INT16).valueOf(-2));
    }

    private static void assertCity(KeyType type, long key, String expected) {
        assertThat(Long.toUnsignedString(ShardingKey.cityHash64("k", type).valueOf(key)))
                .as("cityHash64(to%s(%d))", type, key)
                .isEqualTo(expected);
    }

    private static void assertIntHash(KeyType type, long key, String expected) {
        assertThat(Long.toUnsignedString(ShardingKey.intHash64("k", type).valueOf(key)))
                .as("intHash64(to%s(%d))", type, key)
                .isEqualTo(expected);
    }

    private static void assertMurmur(KeyType type, long key, String expected) {
        assertThat(Long.toUnsignedString(ShardingKey.murmurHash3_64("k", type).valueOf(key)))
                .as("murmurHash3_64(to%s(%d))", type, key)
                .isEqualTo(expected);
    }
}
