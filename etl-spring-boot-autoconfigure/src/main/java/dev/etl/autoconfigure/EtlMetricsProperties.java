package dev.etl.autoconfigure;

import java.util.LinkedHashMap;
import java.util.Map;
import org.springframework.boot.context.properties.ConfigurationProperties;

/**
 * Engine metrics ({@code etl.metrics.*}). Whether they are recorded at all is Boot's own switch
 * ({@code management.metrics.enable.etl=false}).
 */
@ConfigurationProperties("etl.metrics")
public class EtlMetricsProperties {

    /**
     * Tags added to every engine meter (names starting with "etl."), e.g. "env: prod".
     */
    private Map<String, String> tags = new LinkedHashMap<>();

    public Map<String, String> getTags() {
        return this.tags;
    }

    public void setTags(Map<String, String> tags) {
        this.tags = tags;
    }
}
