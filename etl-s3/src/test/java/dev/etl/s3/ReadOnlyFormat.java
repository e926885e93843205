package dev.etl.s3;

import java.util.List;

/** A format for tests that drive readers directly: it reads items, plans none and claims no key. */
abstract class ReadOnlyFormat implements BackfillFormat {
    private final String name;

    ReadOnlyFormat(String name) {
        this.name = name;
    }

    @Override
    public final String name() {
        return name;
    }

    @Override
    public final boolean matches(String key) {
        return false;
    }

    @Override
    public final List<WorkItem> plan(ObjectStore store, ObjectInfo object, long splitBytes) {
        return List.of();
    }
}
