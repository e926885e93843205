package dev.etl.autoconfigure;

import dev.etl.error.ErrorClass;
import dev.etl.error.ErrorPolicy;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * Record-level error policies ({@code etl.errors.*}): SKIP, FAIL or DEAD_LETTER. Stage overrides win
 * over error-type overrides. A group of {@link EtlProperties}; the dead-letter topic
 * ({@code etl.errors.dead-letter.*}) has a properties class of its own, in the Kafka connector.
 */
public class EtlErrorsProperties {

    private final SkipBudget skipBudget = new SkipBudget();

    /**
     * Error policy by stage name (the name given to an operator in the chain, e.g. "to-row").
     */
    private Map<String, ErrorPolicy> stages = new LinkedHashMap<>();

    /**
     * Error policy by error type: deserialization, operator, encode, sink-transient,
     * sink-permanent, source.
     */
    private Map<ErrorClass, ErrorPolicy> types = new LinkedHashMap<>();

    public Map<String, ErrorPolicy> getStages() {
        return this.stages;
    }

    public void setStages(Map<String, ErrorPolicy> stages) {
        this.stages = stages;
    }

    public Map<ErrorClass, ErrorPolicy> getTypes() {
        return this.types;
    }

    public void setTypes(Map<ErrorClass, ErrorPolicy> types) {
        this.types = types;
    }

    public SkipBudget getSkipBudget() {
        return this.skipBudget;
    }

    /**
     * Skip budget: fails the pipeline when, within one window, a lane skips or dead-letters more
     * than max-ratio of the records it received, per error type, so SKIP cannot silently drop
     * everything (e.g. after a wrong registry path).
     */
    public static class SkipBudget {

        /**
         * Whether a lane that skips or dead-letters more than its budget fails the pipeline.
         */
        private boolean enabled = dev.etl.error.SkipBudget.DEFAULT.enabled();

        /**
         * Share of the records a lane received in the window, in [0, 1), that may be skipped or
         * dead-lettered per error type; more fails the pipeline.
         */
        private double maxRatio = dev.etl.error.SkipBudget.DEFAULT.maxRatio();

        /**
         * Length of the (tumbling) window the ratio is counted over; a window that has not seen min-records
         * records goes on until it has (slow topics are judged too).
         */
        private Duration window = dev.etl.error.SkipBudget.DEFAULT.window();

        /**
         * Records a lane must have received in the window before the budget applies.
         */
        private long minRecords = dev.etl.error.SkipBudget.DEFAULT.minRecords();

        public boolean isEnabled() {
            return this.enabled;
        }

        public void setEnabled(boolean enabled) {
            this.enabled = enabled;
        }

        public double getMaxRatio() {
            return this.maxRatio;
        }

        public void setMaxRatio(double maxRatio) {
            this.maxRatio = maxRatio;
        }

        public Duration getWindow() {
            return this.window;
        }

        public void setWindow(Duration window) {
            this.window = window;
        }

        public long getMinRecords() {
            return this.minRecords;
        }

        public void setMinRecords(long minRecords) {
            this.minRecords = minRecords;
        }
    }
}
