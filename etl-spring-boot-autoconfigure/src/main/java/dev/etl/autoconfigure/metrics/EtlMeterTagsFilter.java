package dev.etl.autoconfigure.metrics;

import io.micrometer.core.instrument.Meter;
import io.micrometer.core.instrument.Tag;
import io.micrometer.core.instrument.config.MeterFilter;
import java.util.List;

/** Adds fixed tags to the engine's meters ({@code etl.*}) and leaves every other meter alone. */
final class EtlMeterTagsFilter implements MeterFilter {

    private final List<Tag> tags;

    EtlMeterTagsFilter(List<Tag> tags) {
        this.tags = List.copyOf(tags);
    }

    @Override
    public Meter.Id map(Meter.Id id) {
        if (this.tags.isEmpty() || !id.getName().startsWith("etl.")) {
            return id;
        }
        return id.withTags(this.tags);
    }
}
