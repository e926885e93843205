package dev.etl.s3;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.charset.StandardCharsets;
import java.util.Random;
import org.junit.jupiter.api.Test;

class WorkItemTest {

    @Test
    void everyItemReadsBackFromItsRecordValueWhateverItsKeyHolds() {
        long seed = System.nanoTime();
        Random random = new Random(seed);
        String alphabet = "abc/ =%+&é日本\t\n-_.~";
        for (int i = 0; i < 5_000; i++) {
            StringBuilder key = new StringBuilder();
            for (int c = random.nextInt(40) + 1; c > 0; c--) {
                key.append(alphabet.charAt(random.nextInt(alphabet.length())));
            }
            long start = random.nextInt(1 << 30);
            long end = random.nextBoolean() ? -1 : start + random.nextInt(1 << 20);
            WorkItem item = new WorkItem(
                    "avro",
                    "bucket-" + i,
                    key.toString(),
                    start,
                    end,
                    random.nextLong() & Long.MAX_VALUE,
                    random.nextBoolean() ? "" : Long.toHexString(random.nextLong()));
            byte[] value = item.encode();
            assertThat(WorkItem.decode(value, 0, value.length))
                    .as("seed " + seed)
                    .isEqualTo(item);
        }
    }

    @Test
    void aValueThatIsNoWorkItemIsRefusedNamingWhatIsWrong() {
        byte[] junk = "{\"hello\":1}".getBytes(StandardCharsets.UTF_8);
        assertThatThrownBy(() -> WorkItem.decode(junk, 0, junk.length))
                .hasMessageContaining("not a backfill work item");
        byte[] partial = "etl-backfill/1 format=avro bucket=b".getBytes(StandardCharsets.UTF_8);
        assertThatThrownBy(() -> WorkItem.decode(partial, 0, partial.length)).hasMessageContaining("lacks 'key'");
        assertThatThrownBy(() -> new WorkItem("avro", "b", "k", 10, 5, 0, "")).hasMessageContaining("s3://b/k");
    }
}
