package dev.etl.datagen;

/**
 * Makes the content of one synthetic record. {@link DatagenSource} calls it for every record it
 * generates, on the lane thread that polls the partition, in offset order per partition.
 *
 * <pre>{@code
 * RecordGenerator orders = (partition, sequence, random, out) -> {
 *     out.key().writeLongBE(out.id());
 *     out.value().writeLongLE(out.id())                       // id
 *             .writeAvroString("customer-" + random.nextInt(100)) // allocates: a cold demo is fine
 *             .writeLongLE(random.nextLong(100, 100_000));      // amount in cents
 * };
 * }</pre>
 *
 * <p><b>Reproducible.</b> {@code random} is positioned for exactly this record
 * ({@link DatagenRandom}: seeded from the source's seed, {@code partition} and {@code sequence}), so a
 * generator that uses only its arguments produces the same bytes for the same seed on every run,
 * whatever the lane count or poll sizes.
 *
 * <p><b>Threads.</b> Every lane calls the same instance concurrently: keep it stateless (or keep state
 * per thread). {@code random} and {@code out} belong to the calling lane.
 *
 * <p><b>No allocation.</b> The buffers of {@code out} are reused and grow as needed; a generator that
 * writes primitives and constant bytes allocates nothing per record.
 *
 * <p><b>Errors.</b> An exception fails the pipeline (a bug in the generator is not a bad record), with
 * the partition and sequence in the message.
 */
@FunctionalInterface
public interface RecordGenerator {
    /**
     * Writes record {@code sequence} of {@code partition} into {@code out}.
     *
     * @param partition the partition, {@code 0 … partitions-1}
     * @param sequence  the record's offset in its partition, from 0
     * @param random    random numbers positioned for this record
     * @param out       the record's key and value buffers (empty), valid during this call
     */
    void generate(int partition, long sequence, DatagenRandom random, GeneratedRecord out) throws Exception;
}
