package dev.etl.deploy;

import static org.assertj.core.api.Assertions.assertThatCode;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.Map;
import org.junit.jupiter.api.Test;

/** The schema check is strict: each way a manifest can be wrong that a lenient parser would let through. */
class ManifestSchemaTest {

    private static final String STATEFUL_SET = """
            apiVersion: apps/v1
            kind: StatefulSet
            metadata: {name: a}
            spec:
              serviceName: a
              replicas: 2
              selector: {matchLabels: {app: a}}
              template:
                metadata: {labels: {app: a}}
                spec:
                  terminationGracePeriodSeconds: 50
                  containers:
                    - name: a
                      image: a:1
                      ports: [{name: http, containerPort: 8080}]
                      resources: {limits: {memory: 2Gi}, requests: {cpu: "1", memory: 2Gi}}
                      livenessProbe: {httpGet: {path: /healthz, port: http}}
                      lifecycle: {preStop: {sleep: {seconds: 5}}}
            """;

    private static final String POD_MONITOR = """
            apiVersion: monitoring.coreos.com/v1
            kind: PodMonitor
            metadata: {name: a}
            spec:
              selector: {matchLabels: {app: a}}
              podMetricsEndpoints: [{port: http, path: /actuator/prometheus, interval: 30s}]
            """;

    @SuppressWarnings("unchecked")
    private static Map<String, Object> yaml(String text) {
        return (Map<String, Object>) Kustomize.loadAll(text, "test").get(0);
    }

    @Test
    void validObjectsPass() {
        assertThatCode(() -> ManifestSchema.validate(yaml(STATEFUL_SET), "sts")).doesNotThrowAnyException();
        assertThatCode(() -> ManifestSchema.validate(yaml(POD_MONITOR), "pm")).doesNotThrowAnyException();
    }

    @Test
    void anUnknownFieldFailsAtAnyDepth() {
        assertThatThrownBy(() ->
                        ManifestSchema.validate(yaml(STATEFUL_SET.replace("path: /healthz", "pth: /healthz")), "sts"))
                .hasMessageContaining("pth");
        assertThatThrownBy(() ->
                        ManifestSchema.validate(yaml(STATEFUL_SET.replace("serviceName: a", "serviceNam: a")), "sts"))
                .hasMessageContaining("serviceNam");
        assertThatThrownBy(() ->
                        ManifestSchema.validate(yaml(POD_MONITOR.replace("interval: 30s", "intervall: 30s")), "pm"))
                .hasMessageContaining("intervall");
        assertThatThrownBy(() ->
                        ManifestSchema.validate(yaml(POD_MONITOR.replace("podMetricsEndpoints", "endpoints")), "pm"))
                .hasMessageContaining("endpoints");
    }

    @Test
    void aMissingRequiredFieldFails() {
        assertThatThrownBy(() -> ManifestSchema.validate(yaml(STATEFUL_SET.replace("- name: a\n", "- \n")), "sts"))
                .hasMessageContaining("name");
        assertThatThrownBy(() -> ManifestSchema.validate(
                        yaml(STATEFUL_SET.replace("  selector: {matchLabels: {app: a}}\n", "")), "sts"))
                .hasMessageContaining("selector");
    }

    @Test
    void aValueOfTheWrongTypeFails() {
        assertThatThrownBy(() ->
                        ManifestSchema.validate(yaml(STATEFUL_SET.replace("replicas: 2", "replicas: \"2\"")), "sts"))
                .hasMessageContaining("replicas");
        assertThatThrownBy(
                        () -> ManifestSchema.validate(yaml(STATEFUL_SET.replace("seconds: 5", "seconds: five")), "sts"))
                .isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> ManifestSchema.validate(
                        yaml(STATEFUL_SET.replace("GracePeriodSeconds: 50", "GracePeriodSeconds: [50]")), "sts"))
                .isInstanceOf(IllegalArgumentException.class);
    }

    @Test
    void aKindWithoutSchemaFails() {
        assertThatThrownBy(() -> ManifestSchema.validate(
                        yaml("apiVersion: keda.sh/v1alpha1\nkind: ScaledObject\nmetadata: {name: a}\n"), "so"))
                .hasMessageContaining("no schema for keda.sh/v1alpha1 ScaledObject");
        assertThatThrownBy(() -> ManifestSchema.validate(yaml(STATEFUL_SET.replace("apps/v1", "apps/v1beta1")), "sts"))
                .hasMessageContaining("no schema");
    }
}
