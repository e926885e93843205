package dev.etl.error;

/** Broad class of a failure; the {@code error_type} label of the error metrics. */
public enum ErrorClass {
    DESERIALIZATION("deserialization"),
    OPERATOR("operator"),
    ENCODE("encode"),
    SINK_TRANSIENT("sink_transient"),
    SINK_PERMANENT("sink_permanent"),
    SOURCE("source");

    private final String label;

    ErrorClass(String label) {
        this.label = label;
    }

    /** Metric label value. */
    public String label() {
        return label;
    }
}
