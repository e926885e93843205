package dev.etl.test.avro;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import org.apache.avro.Schema;

/**
 * The schemas of a {@link StubSchemaRegistry}: ids bound to schemas, global and content-addressed
 * as in the real registry, and per subject the ids of its versions (version n is element n - 1).
 * Nothing is ever removed or rebound, so a subject's versions only grow.
 *
 * <p>Thread-safe: one lock guards all of it, since tests write while the server thread reads; every
 * method is atomic.
 */
final class StubSchemaStore {

    private final Object lock = new Object();

    private final Map<Integer, Schema> schemasById = new HashMap<>();

    private final Map<Schema, Integer> idsBySchema = new HashMap<>();

    private final Map<String, List<Integer>> subjects = new LinkedHashMap<>();

    private int nextId = 1;

    /** Version {@code version} of {@code subject}: schema {@code id}. */
    record Version(String subject, int version, int id, Schema schema) {}

    /** See {@link StubSchemaRegistry#put}. */
    int put(int id, Schema schema) {
        Objects.requireNonNull(schema, "schema");
        if (id < 0 || id == Integer.MAX_VALUE) {
            throw new IllegalArgumentException(
                    "schema id must be between 0 and " + (Integer.MAX_VALUE - 1) + ": " + id);
        }
        synchronized (this.lock) {
            Schema bound = this.schemasById.get(id);
            if (bound != null && !bound.equals(schema)) {
                throw new IllegalArgumentException("schema id " + id + " is already bound to " + bound.getFullName()
                        + " (" + bound + "), cannot rebind it to " + schema);
            }
            this.schemasById.put(id, schema);
            this.idsBySchema.putIfAbsent(schema, id);
            this.nextId = Math.max(this.nextId, id + 1);
        }
        return id;
    }

    /** See {@link StubSchemaRegistry#register}. */
    int register(String subject, Schema schema) {
        Objects.requireNonNull(subject, "subject");
        Objects.requireNonNull(schema, "schema");
        if (subject.isEmpty()) {
            throw new IllegalArgumentException("subject must not be empty");
        }
        synchronized (this.lock) {
            Integer id = this.idsBySchema.get(schema);
            if (id == null) {
                id = this.nextId++;
                this.schemasById.put(id, schema);
                this.idsBySchema.put(schema, id);
            }
            List<Integer> versions = this.subjects.computeIfAbsent(subject, (s) -> new ArrayList<>());
            if (!versions.contains(id)) {
                versions.add(id);
            }
            return id;
        }
    }

    /** The schema bound to {@code id}, or null. */
    Schema schema(int id) {
        synchronized (this.lock) {
            return this.schemasById.get(id);
        }
    }

    /** The subjects, in the order they were first registered. */
    List<String> subjects() {
        synchronized (this.lock) {
            return new ArrayList<>(this.subjects.keySet());
        }
    }

    /** How many versions {@code subject} has, or -1 when it is unknown. */
    int versionCount(String subject) {
        synchronized (this.lock) {
            List<Integer> versions = this.subjects.get(subject);
            return (versions != null) ? versions.size() : -1;
        }
    }

    /** Version {@code version} (1-based, at most {@link #versionCount}) of {@code subject}. */
    Version version(String subject, int version) {
        synchronized (this.lock) {
            int id = this.subjects.get(subject).get(version - 1);
            return new Version(subject, version, id, this.schemasById.get(id));
        }
    }

    /** The version of {@code subject} that is {@code schema}, or null when the subject does not have it. */
    Version find(String subject, Schema schema) {
        synchronized (this.lock) {
            List<Integer> versions = this.subjects.get(subject);
            Integer id = this.idsBySchema.get(schema);
            int index = (versions == null || id == null) ? -1 : versions.indexOf(id);
            return (index < 0) ? null : new Version(subject, index + 1, id, this.schemasById.get(id));
        }
    }
}
