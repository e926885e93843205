package dev.etl.s3;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.List;
import org.junit.jupiter.api.Test;

class BackfillFormatsTest {
    private final BackfillFormats formats = BackfillFormats.discover();

    @Test
    void builtInsComeFirstThenServiceLoadedFormats() {
        assertThat(formats.names()).containsExactly("avro", "ndjson", "parquet");
        assertThat(formats.named("avro")).isInstanceOf(AvroContainerFormat.class);
        assertThat(formats.named("NDJSON")).isInstanceOf(NdjsonFormat.class);
        assertThat(formats.named("parquet")).isInstanceOf(FakeParquetFormat.class);
    }

    @Test
    void findsTheFormatOfAKeyByItsExtension() {
        assertThat(formats.forKey("2024/01/part-0001.avro")).isInstanceOf(AvroContainerFormat.class);
        assertThat(formats.forKey("logs/x.jsonl.gz")).isInstanceOf(NdjsonFormat.class);
        assertThat(formats.forKey("t/part.parquet")).isInstanceOf(FakeParquetFormat.class);
        assertThat(formats.findForKey("readme.txt")).isEmpty();
    }

    @Test
    void anUnknownNameOrKeyFailsListingTheKnownFormats() {
        assertThatThrownBy(() -> formats.named("orc"))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("unknown backfill format 'orc'")
                .hasMessageContaining("avro, ndjson, parquet");
        assertThatThrownBy(() -> formats.forKey("data/readme.txt"))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("'data/readme.txt'")
                .hasMessageContaining("avro, ndjson, parquet");
        assertThatThrownBy(() ->
                        BackfillFormats.of(List.of(new AvroContainerFormat())).named("parquet"))
                .hasMessageContaining("parquet needs dev.etl:etl-s3-parquet");
    }

    @Test
    void twoFormatsWithOneNameAreRefused() {
        assertThatThrownBy(() -> BackfillFormats.of(List.of(new NdjsonFormat(), new NdjsonFormat(10))))
                .isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("two backfill formats are named 'ndjson'");
    }
}
