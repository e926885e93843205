package dev.etl.bench.e2e;

import com.clickhouse.jdbc.DataSourceImpl;
import dev.etl.avro.SchemaRegistryClient;
import java.io.IOException;
import java.math.BigDecimal;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.sql.Types;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.concurrent.CopyOnWriteArrayList;
import javax.sql.DataSource;
import org.apache.avro.Schema;
import org.apache.avro.generic.GenericDatumReader;
import org.apache.avro.generic.GenericRecord;
import org.apache.avro.io.BinaryDecoder;
import org.apache.avro.io.DecoderFactory;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.beans.factory.DisposableBean;
import org.springframework.kafka.annotation.KafkaListener;
import org.springframework.kafka.support.Acknowledgment;

/**
 * The baseline's whole pipeline, in the listener: for each poll batch, decode every Confluent-framed
 * Avro order with a stock {@link GenericDatumReader} (writer schema from the registry, cached),
 * drop cancelled orders, add one row per order line to the batch of the order's shard
 * ({@code floorMod(Long.hashCode(orderId), shards)}), then {@code executeBatch()} per shard into the
 * shard-local table of its first replica, and acknowledge, so the container commits the batch's
 * offsets after the inserts succeeded.
 *
 * <p>Threads: the container calls {@link #onBatch} on its consumer threads, one batch at a time per
 * thread; each thread has its own JDBC connections, prepared statements and Avro readers. A failed
 * insert throws, so nothing is acknowledged and Spring Kafka's default error handler redelivers the
 * batch (rows already written to the other shard are written again; the ReplacingMergeTree keeps one).
 */
public final class OrdersBatchListener implements DisposableBean {
    private static final Logger log = LoggerFactory.getLogger(OrdersBatchListener.class);
    private static final String INSERT = "INSERT INTO %s.orders (order_id, line_no, customer, status, sku, quantity,"
            + " price, coupon, updated_ms) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)";

    private final BaselineOptions options;
    private final SchemaRegistryClient registry;
    /** The driver's own {@code DataSource}, one per shard, on the shard's first replica. */
    private final List<DataSource> shards;

    private final ThreadLocal<ListenerThread> threads = ThreadLocal.withInitial(this::newThread);
    private final List<ListenerThread> all = new CopyOnWriteArrayList<>();

    OrdersBatchListener(BaselineOptions options, SchemaRegistryClient registry) {
        this.options = options;
        this.registry = registry;
        Properties props = new Properties();
        props.setProperty("user", "default");
        props.setProperty("password", "");
        this.shards = options.shardUrls().stream()
                .<DataSource>map(url -> new DataSourceImpl("jdbc:clickhouse:" + url + "/" + options.database(), props))
                .toList();
    }

    /** The topic, for the {@code @KafkaListener} expression. */
    public String topic() {
        return options.topic();
    }

    // idIsGroup = false: the group is --group (the consumer factory's group.id), not the listener id.
    @KafkaListener(id = "orders-baseline", idIsGroup = false, topics = "#{__listener.topic()}")
    public void onBatch(List<ConsumerRecord<byte[], byte[]>> records, Acknowledgment ack) throws SQLException {
        ListenerThread t = threads.get();
        long started = System.nanoTime();
        int shards = t.statements.length;
        int[] rows = new int[shards];
        try {
            for (ConsumerRecord<byte[], byte[]> record : records) {
                GenericRecord order = t.decode(record);
                if ("CANCELLED".equals(order.get("status").toString())) {
                    continue;
                }
                long orderId = (Long) order.get("id");
                int shard = Math.floorMod(Long.hashCode(orderId), shards);
                PreparedStatement insert = t.statements[shard];
                String customer = order.get("customer").toString();
                String status = order.get("status").toString();
                Object coupon = order.getSchema().getField("coupon") == null ? null : order.get("coupon");
                long updatedMs = (Long) order.get("updated_ms");
                List<?> lines = (List<?>) order.get("lines");
                for (int i = 0; i < lines.size(); i++) {
                    GenericRecord line = (GenericRecord) lines.get(i);
                    insert.setLong(1, orderId);
                    insert.setInt(2, i);
                    insert.setString(3, customer);
                    insert.setString(4, status);
                    insert.setString(5, line.get("sku").toString());
                    insert.setLong(6, (Integer) line.get("quantity"));
                    insert.setBigDecimal(7, BigDecimal.valueOf((Long) line.get("price_cents"), 2));
                    if (coupon == null) {
                        insert.setNull(8, Types.VARCHAR);
                    } else {
                        insert.setString(8, coupon.toString());
                    }
                    insert.setLong(9, updatedMs);
                    insert.addBatch();
                    rows[shard]++;
                }
            }
            long decoded = System.nanoTime();
            for (int shard = 0; shard < shards; shard++) {
                if (rows[shard] > 0) {
                    t.statements[shard].executeBatch();
                    t.inserts++;
                    t.rows += rows[shard];
                }
            }
            long inserted = System.nanoTime();
            ack.acknowledge();
            t.batches++;
            t.records += records.size();
            t.decodeNs += decoded - started;
            t.insertNs += inserted - decoded;
        } catch (RuntimeException | SQLException e) {
            for (PreparedStatement statement : t.statements) {
                statement.clearBatch();
            }
            throw e;
        }
    }

    private ListenerThread newThread() {
        try {
            ListenerThread t = new ListenerThread(options.database(), shards, registry);
            all.add(t);
            return t;
        } catch (SQLException e) {
            throw new IllegalStateException("cannot connect to ClickHouse shards " + options.shardUrls(), e);
        }
    }

    @Override
    public void destroy() {
        long batches = 0, records = 0, rows = 0, inserts = 0, decodeNs = 0, insertNs = 0;
        for (ListenerThread t : all) {
            batches += t.batches;
            records += t.records;
            rows += t.rows;
            inserts += t.inserts;
            decodeNs += t.decodeNs;
            insertNs += t.insertNs;
            t.close();
        }
        log.info(
                "baseline totals: {} threads, {} batches, {} records, {} rows in {} inserts ({} rows per insert);"
                        + " listener time: decode+bind {} ms, executeBatch {} ms",
                all.size(),
                batches,
                records,
                rows,
                inserts,
                inserts == 0 ? 0 : rows / inserts,
                decodeNs / 1_000_000,
                insertNs / 1_000_000);
    }

    /** One consumer thread's resources: a connection and prepared insert per shard, Avro readers per writer schema id. */
    private static final class ListenerThread {
        final Connection[] connections;
        final PreparedStatement[] statements;
        final SchemaRegistryClient registry;
        final Map<Integer, GenericDatumReader<GenericRecord>> readers = new HashMap<>();
        BinaryDecoder decoder;
        long batches, records, rows, inserts, decodeNs, insertNs;

        ListenerThread(String database, List<DataSource> shards, SchemaRegistryClient registry) throws SQLException {
            this.registry = registry;
            connections = new Connection[shards.size()];
            statements = new PreparedStatement[shards.size()];
            for (int i = 0; i < shards.size(); i++) {
                connections[i] = shards.get(i).getConnection();
                statements[i] = connections[i].prepareStatement(String.format(INSERT, database));
            }
        }

        /** Confluent framing: magic byte 0, 4-byte big-endian schema id, then the Avro binary body. */
        GenericRecord decode(ConsumerRecord<byte[], byte[]> record) {
            byte[] value = record.value();
            if (value == null || value.length < 5 || value[0] != 0) {
                throw new IllegalArgumentException("not Confluent-framed Avro at " + record.topic() + "-"
                        + record.partition() + "@" + record.offset());
            }
            int schemaId = ((value[1] & 0xff) << 24)
                    | ((value[2] & 0xff) << 16)
                    | ((value[3] & 0xff) << 8)
                    | (value[4] & 0xff);
            GenericDatumReader<GenericRecord> reader = readers.get(schemaId);
            if (reader == null) {
                Schema writer = registry.schemaById(schemaId);
                reader = new GenericDatumReader<>(writer);
                readers.put(schemaId, reader);
            }
            decoder = DecoderFactory.get().binaryDecoder(value, 5, value.length - 5, decoder);
            try {
                return reader.read(null, decoder);
            } catch (IOException e) {
                throw new IllegalArgumentException(
                        "cannot decode the Avro order (schema id " + schemaId + ") at " + record.topic() + "-"
                                + record.partition() + "@" + record.offset(),
                        e);
            }
        }

        void close() {
            for (int i = 0; i < connections.length; i++) {
                try {
                    statements[i].close();
                    connections[i].close();
                } catch (SQLException e) {
                    log.warn("closing the connection to shard {} failed", i + 1, e);
                }
            }
        }
    }
}
