package dev.etl.autoconfigure.clickhouse;

import dev.etl.clickhouse.ClickHouseColumn;
import dev.etl.clickhouse.ClickHouseSinkConfig;
import dev.etl.clickhouse.ClickHouseTableSchema;
import dev.etl.clickhouse.ColumnLayouts;
import dev.etl.record.Payload;
import dev.etl.sink.MultiRowEncoder;
import dev.etl.sink.Router;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import org.jspecify.annotations.Nullable;

/**
 * A table's rows read from a topic's payloads, as {@code etl.sink.clickhouse[.tables.<name>].from.*}
 * describes them: the columns the insert names (and the sink validates), an encoder and router per lane,
 * and what to log at startup. Made by the {@link Factory} bean of the topic's format (the Avro
 * transcoder's or the JSON transcoder's auto-configuration); the ClickHouse auto-configuration builds the
 * sink and the chain from it.
 */
public interface ClickHouseTableRows extends AutoCloseable {

    /** The columns each row carries, in wire order: the insert's column list. */
    List<ClickHouseColumn> columns();

    /**
     * A new encoder and its router for one lane, called on the lane's thread when its chain is built.
     */
    Lane lane();

    /** Each column's source (column → field path or computed source), in column order, for the startup log. */
    Map<String, String> sources();

    /**
     * The fields of the topic's records that no column stores (leaf paths), for the log and a gauge; read
     * again at each scrape, so it may grow as records of a producer's newer schema arrive.
     */
    List<String> unstoredFields();

    /**
     * The column layouts of rows whose columns can change while the pipeline runs (auto-evolve): the sink
     * inserts each batch with its layout's columns, layout 0 being {@link #columns()}. Null (the default) for
     * rows whose columns are fixed.
     */
    default @Nullable ColumnLayouts layouts() {
        return null;
    }

    /** Stops whatever runs for these rows (auto-evolve's watch); called when the context closes. Idempotent. */
    @Override
    default void close() {}

    /**
     * One lane's encoder (it writes the rows of each payload) and router (it picks each payload's shard).
     *
     * @param encoder the lane's encoder
     * @param router  the lane's router
     */
    record Lane(MultiRowEncoder<Payload> encoder, Router<Payload> router) {
        public Lane {
            Objects.requireNonNull(encoder, "encoder");
            Objects.requireNonNull(router, "router");
        }
    }

    /**
     * Derives a table's rows for one {@link ClickHouseTableSourceProperties.Format}: a bean each format's
     * auto-configuration declares.
     */
    interface Factory {

        /** The format this factory reads. */
        ClickHouseTableSourceProperties.Format format();

        /**
         * The rows of {@code table} from the records {@code from} describes.
         *
         * @param property the {@code from} group's property name ({@code etl.sink.clickhouse.tables.refunds.from}),
         *                 which every error names
         * @throws dev.etl.autoconfigure.InvalidEtlConfigurationException when the mapping cannot be derived:
         *         one message for every mistake
         */
        ClickHouseTableRows create(String property, ClickHouseTableSourceProperties from, ClickHouseTableSchema table);

        /**
         * The rows of {@code table} (read through {@code config}) from the records {@code from} describes; a
         * factory that changes the table while the pipeline runs (auto-evolve) needs {@code config} to reach it.
         * By default {@link #create(String, ClickHouseTableSourceProperties, ClickHouseTableSchema)}.
         */
        default ClickHouseTableRows create(
                String property,
                ClickHouseTableSourceProperties from,
                ClickHouseTableSchema table,
                ClickHouseSinkConfig config) {
            return create(property, from, table);
        }
    }
}
