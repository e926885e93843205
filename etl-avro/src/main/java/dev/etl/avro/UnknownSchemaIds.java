package dev.etl.avro;

import dev.etl.error.RateLimitedLog;
import java.util.Iterator;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.LongSupplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * What a {@link SchemaRegistryClient} does about schema ids it does not know, so that a producer writing
 * random ids in the Confluent header costs bounded memory and a bounded number of registry calls:
 *
 * <ul>
 * <li><b>Negative cache, bounded.</b> An id the registry answered 404 for is remembered for
 * {@code notFoundTtl}, at most {@code maxEntries} of them: when it is full, expired entries are
 * dropped, and if that is not enough, arbitrary ones (they are then asked again, within the budget).</li>
 * <li><b>Lookup budget.</b> Looking up an id that is neither cached nor known missing takes a permit of a
 * token bucket of {@code perSecond} permits a second (bursts of as many). A lookup that finds the schema,
 * or fails for another reason than 404, gives its permit back: only ids the registry does not know use
 * the budget, so a deployment's new schemas are never refused while nothing floods the topic. Without a
 * permit the id is refused at once, without a call ({@link SchemaRegistryException#lookupRefused()}), and
 * the record gets the deserialize stage's policy like an unknown id; refusals are logged at WARN at most
 * once per {@value #LOG_INTERVAL_SECONDS} s with how many there were.</li>
 * </ul>
 *
 * <p>Thread-safe and lock-free (the budget is one CAS on a "theoretical arrival time", GCRA); touched only
 * on a miss of the client's by-id cache.
 */
final class UnknownSchemaIds {
    private static final Logger log = LoggerFactory.getLogger(SchemaRegistryClient.class);
    static final long LOG_INTERVAL_SECONDS = 10;

    private final String registry;
    private final long ttlNs;
    private final int maxEntries;
    private final int perSecond;
    private final long intervalNs;
    private final long burstNs;
    private final LongSupplier nanoClock;
    private final ConcurrentHashMap<Integer, Long> notFoundUntilNs = new ConcurrentHashMap<>();
    /** GCRA: the time at which the bucket would be full again; a permit is free while it is at most a burst ahead. */
    private final AtomicLong theoreticalArrivalNs;

    private final AtomicLong refused = new AtomicLong();
    private final RateLimitedLog refusedLog;

    UnknownSchemaIds(String registry, long ttlNs, int maxEntries, int perSecond, LongSupplier nanoClock) {
        this.registry = registry;
        this.ttlNs = ttlNs;
        this.maxEntries = maxEntries;
        this.perSecond = perSecond;
        this.intervalNs = 1_000_000_000L / perSecond;
        this.burstNs = intervalNs * (perSecond - 1L);
        this.nanoClock = nanoClock;
        this.theoreticalArrivalNs = new AtomicLong(nanoClock.getAsLong());
        this.refusedLog = new RateLimitedLog(LOG_INTERVAL_SECONDS * 1_000_000_000L, nanoClock);
    }

    /**
     * Fails when {@code id} is in the negative cache and not expired.
     *
     * @throws SchemaRegistryException {@link SchemaRegistryException#notFound() not found} (status 404)
     */
    void requireNotKnownMissing(int id) {
        Long until = notFoundUntilNs.get(id);
        if (until != null) {
            if (nanoClock.getAsLong() - until < 0) {
                throw new SchemaRegistryException(
                        "schema id " + id + " is unknown to " + registry + " (cached answer 40403)",
                        404,
                        SchemaRegistryException.SCHEMA_NOT_FOUND,
                        null);
            }
            notFoundUntilNs.remove(id, until);
        }
    }

    /**
     * Takes a lookup permit for {@code id}, or fails when none is left; the caller then holds a permit
     * and must {@link #release} it or {@link #notFound record} the id as missing.
     *
     * @throws SchemaRegistryException {@link SchemaRegistryException#lookupRefused() refused}
     */
    void acquire(int id) {
        if (!takePermit(nanoClock.getAsLong())) {
            long count = refused.incrementAndGet();
            long suppressed = refusedLog.permit();
            if (suppressed >= 0) {
                log.warn(
                        "schema registry {}: schema id {} not looked up: more than {} lookup(s) per second of ids the "
                                + "registry does not know (a producer writing unknown ids?); {} refused so far, {} "
                                + "such line(s) suppressed; the records get the deserialize stage's policy",
                        registry,
                        id,
                        perSecond,
                        count,
                        suppressed);
            }
            throw SchemaRegistryException.lookupRefused("schema id " + id + " is unknown to this client and was not "
                    + "looked up at " + registry + ": more than " + perSecond
                    + " lookup(s) per second of ids the registry does not know");
        }
    }

    /** The lookup found the schema, or failed for another reason than 404: its permit is given back. */
    void release() {
        theoreticalArrivalNs.addAndGet(-intervalNs);
    }

    /** The registry answered 404 for {@code id}: remembered for the TTL; the permit stays used. */
    void notFound(int id) {
        if (notFoundUntilNs.size() >= maxEntries) {
            evict();
        }
        notFoundUntilNs.put(id, nanoClock.getAsLong() + ttlNs);
    }

    /** Ids refused without a lookup since the client was built. */
    long refused() {
        return refused.get();
    }

    /** Entries of the negative cache (expired ones included until they are dropped). */
    int size() {
        return notFoundUntilNs.size();
    }

    private boolean takePermit(long now) {
        while (true) {
            long tat = theoreticalArrivalNs.get();
            long base = Math.max(tat, now);
            if (base - now > burstNs) {
                return false;
            }
            if (theoreticalArrivalNs.compareAndSet(tat, base + intervalNs)) {
                return true;
            }
        }
    }

    /** Drops expired entries, then arbitrary ones, until a quarter of the capacity is free. */
    private void evict() {
        long now = nanoClock.getAsLong();
        notFoundUntilNs.values().removeIf((until) -> now - until >= 0);
        int target = maxEntries - Math.max(1, maxEntries / 4);
        Iterator<Integer> ids = notFoundUntilNs.keySet().iterator();
        while (notFoundUntilNs.size() > target && ids.hasNext()) {
            ids.next();
            ids.remove();
        }
    }
}
