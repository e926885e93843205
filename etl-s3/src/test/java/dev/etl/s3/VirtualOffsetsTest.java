package dev.etl.s3;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.etl.source.CommittedPosition;
import java.util.Random;
import org.junit.jupiter.api.Test;

class VirtualOffsetsTest {

    @Test
    void aCommitInsideAnItemCarriesItsRowAndTheEnginesMetadataAndReadsBackTheSame() {
        long seed = System.nanoTime();
        Random random = new Random(seed);
        for (int i = 0; i < 10_000; i++) {
            long item = random.nextInt(Integer.MAX_VALUE);
            long row = random.nextBoolean() ? 0 : random.nextInt(Integer.MAX_VALUE);
            String engine = random.nextBoolean() ? null : "etl1:" + Long.toString(random.nextInt(1 << 20), 36);
            long virtual = VirtualOffsets.of(item, row);
            String metadata = VirtualOffsets.metadata(virtual, engine);
            CommittedPosition back =
                    VirtualOffsets.toVirtual(new CommittedPosition(VirtualOffsets.item(virtual), metadata), "p");
            assertThat(back.offset()).as("seed " + seed).isEqualTo(virtual);
            assertThat(back.metadata()).as("seed " + seed).isEqualTo(engine);
            if (row == 0) {
                assertThat(metadata)
                        .as("a finished item commits as the next item's start, no row part")
                        .isEqualTo(engine);
            }
        }
    }

    @Test
    void anItemsLastBatchEndsAtTheNextItemsStart() {
        assertThat(VirtualOffsets.itemLast(7) + 1).isEqualTo(VirtualOffsets.of(8, 0));
        assertThat(VirtualOffsets.item(VirtualOffsets.itemLast(7) + 1)).isEqualTo(8);
        assertThat(VirtualOffsets.row(VirtualOffsets.itemLast(7) + 1)).isZero();
        assertThat(VirtualOffsets.itemLast(VirtualOffsets.MAX_ITEM_OFFSET)).isPositive();
    }

    @Test
    void noCommittedOffsetStaysNoneAndForeignMetadataIsKeptForTheEngine() {
        assertThat(VirtualOffsets.toVirtual(CommittedPosition.NONE, "p")).isEqualTo(CommittedPosition.NONE);
        CommittedPosition plain = VirtualOffsets.toVirtual(new CommittedPosition(5, "etl1:a"), "p");
        assertThat(plain).isEqualTo(new CommittedPosition(VirtualOffsets.of(5, 0), "etl1:a"));
        assertThatThrownBy(() -> VirtualOffsets.toVirtual(new CommittedPosition(5, "etl-s3:x|"), "work-3"))
                .hasMessageContaining("work-3")
                .hasMessageContaining("'x'");
    }
}
