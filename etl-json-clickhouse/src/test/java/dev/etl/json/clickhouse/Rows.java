package dev.etl.json.clickhouse;

import dev.etl.clickhouse.ClickHouseColumn;
import dev.etl.clickhouse.ClickHouseTableSchema;
import dev.etl.clickhouse.ClickHouseType;
import dev.etl.clickhouse.RowBinaryEncoder;
import dev.etl.sink.RowBuffer;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;

/** Test helpers: tables, transcoding a JSON text, and the reference row written by {@link RowBinaryEncoder}. */
final class Rows {
    private Rows() {}

    /** A table of {@code name, type, name, type, …}, no defaults. */
    static ClickHouseTableSchema table(String... nameTypes) {
        return tableWithDefaults(Set.of(), nameTypes);
    }

    static ClickHouseTableSchema tableWithDefaults(Set<String> defaults, String... nameTypes) {
        List<ClickHouseColumn> columns = new ArrayList<>();
        for (int i = 0; i < nameTypes.length; i += 2) {
            columns.add(new ClickHouseColumn(nameTypes[i], nameTypes[i + 1]));
        }
        return ClickHouseTableSchema.of(columns, defaults);
    }

    static byte[] transcode(JsonRowTranscoder transcoder, String json) {
        return transcode(transcoder, json.getBytes(StandardCharsets.UTF_8));
    }

    static byte[] transcode(JsonRowTranscoder transcoder, byte[] json) {
        // Somewhere inside a larger array, as a Kafka record's value may be.
        byte[] framed = new byte[json.length + 7];
        System.arraycopy(json, 0, framed, 3, json.length);
        framed[0] = '{';
        framed[framed.length - 1] = '}';
        RowBuffer out = new RowBuffer(16);
        out.writeByte(0x55); // bytes already in the buffer stay as they are
        transcoder.transcode(framed, 3, json.length, out);
        byte[] all = out.toByteArray();
        byte[] row = new byte[all.length - 1];
        System.arraycopy(all, 1, row, 0, row.length);
        return row;
    }

    /** The row {@link RowBinaryEncoder} writes for {@code values}, one per column of {@code types}. */
    @SuppressWarnings({"unchecked", "rawtypes"})
    static byte[] expected(List<? extends ClickHouseType<?>> types, List<?> values) {
        RowBinaryEncoder.Builder<List<?>> builder = RowBinaryEncoder.builder();
        for (int i = 0; i < types.size(); i++) {
            int column = i;
            builder.column("c" + i, (ClickHouseType) types.get(i), (List<?> row) -> row.get(column));
        }
        RowBuffer out = new RowBuffer(16);
        builder.build().encode(values, out);
        return out.toByteArray();
    }

    static <V> byte[] expected(ClickHouseType<V> type, V value) {
        List<Object> values = new ArrayList<>();
        values.add(value);
        return expected(List.of(type), values);
    }
}
