package dev.etl.s3;

import java.util.List;

/** A format listed in the test META-INF/services, standing in for etl-s3-parquet's. */
public final class FakeParquetFormat implements BackfillFormat {
    @Override
    public String name() {
        return "parquet";
    }

    @Override
    public boolean matches(String key) {
        return key.endsWith(".parquet");
    }

    @Override
    public List<WorkItem> plan(ObjectStore store, ObjectInfo object, long splitBytes) {
        return List.of(new WorkItem(name(), object.bucket(), object.key(), 0, -1, object.size(), object.etag()));
    }

    @Override
    public void read(ObjectStore store, WorkItem item, long skipRows, RowOutput out) {}
}
