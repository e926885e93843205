package dev.etl.deploy;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The renderer's features, on small kustomizations (the real ones are compared with kubectl's in DeployManifestsTest). */
class KustomizeTest {

    private static final String DEPLOYMENT = """
            apiVersion: apps/v1
            kind: StatefulSet
            metadata: {name: app}
            spec:
              replicas: 3
              template:
                spec:
                  containers:
                    - name: app
                      image: example/app:1.0
                      env:
                        - {name: A, value: "1"}
                        - {name: B, value: "2"}
                    - name: sidecar
                      image: other/sidecar:2
            """;

    @TempDir
    Path dir;

    private Path write(String path, String text) throws IOException {
        Path file = this.dir.resolve(path);
        Files.createDirectories(file.getParent());
        Files.writeString(file, text);
        return file;
    }

    @Test
    void resourcesComponentsPatchesNamespaceReplicasAndImages() throws IOException {
        write("base/kustomization.yaml", "resources: [app.yaml]\n");
        write("base/app.yaml", DEPLOYMENT);
        write("component/kustomization.yaml", """
                apiVersion: kustomize.config.k8s.io/v1alpha1
                kind: Component
                resources: [sa.yaml]
                patches:
                  - path: drop-replicas.yaml
                    target: {kind: StatefulSet, name: app}
                """);
        write("component/sa.yaml", "apiVersion: v1\nkind: ServiceAccount\nmetadata: {name: app}\n");
        write("component/drop-replicas.yaml", "- {op: remove, path: /spec/replicas}\n");
        write("overlay/kustomization.yaml", """
                namespace: prod
                resources: [../base]
                components: [../component]
                patches:
                  - path: env.yaml
                images:
                  - {name: example/app, newName: registry.example.com/app, newTag: "2.0"}
                """);
        write("overlay/env.yaml", """
                apiVersion: apps/v1
                kind: StatefulSet
                metadata: {name: app}
                spec:
                  template:
                    spec:
                      containers:
                        - name: app
                          env:
                            - {name: B, value: "20"}
                            - {name: C, value: "3"}
                """);
        List<Map<String, Object>> out = Kustomize.render(this.dir.resolve("overlay"));
        assertThat(out)
                .extracting(Kustomize::id)
                .containsExactly("apps/v1 StatefulSet prod/app", "v1 ServiceAccount prod/app");
        Map<String, Object> sts = out.get(0);
        assertThat(DeployManifestsTest.at(sts, "spec", "replicas")).isNull();
        List<Map<String, Object>> containers = DeployManifestsTest.get(sts, "spec", "template", "spec", "containers");
        assertThat(containers).extracting(c -> c.get("name")).containsExactly("app", "sidecar");
        assertThat(containers.get(0).get("image")).isEqualTo("registry.example.com/app:2.0");
        assertThat(containers.get(1).get("image")).isEqualTo("other/sidecar:2");
        // merged by name: the patch's elements first, then the others (as Kustomize orders them)
        assertThat(containers.get(0).get("env"))
                .isEqualTo(List.of(
                        Map.of("name", "B", "value", "20"),
                        Map.of("name", "C", "value", "3"),
                        Map.of("name", "A", "value", "1")));
    }

    @Test
    void replicasAndJsonPatchOperations() throws IOException {
        write("k/app.yaml", DEPLOYMENT);
        write("k/kustomization.yaml", """
                resources: [app.yaml]
                replicas: [{name: app, count: 5}]
                patches:
                  - target: {kind: StatefulSet}
                    patch: |
                      - {op: replace, path: /spec/template/spec/containers/1/image, value: other/sidecar:3}
                      - {op: add, path: /spec/template/spec/containers/0/env/-, value: {name: D, value: "4"}}
                      - {op: remove, path: /spec/template/spec/containers/0/env/0}
                """);
        Map<String, Object> sts = Kustomize.render(this.dir.resolve("k")).get(0);
        assertThat(DeployManifestsTest.at(sts, "spec", "replicas")).isEqualTo(5);
        assertThat(DeployManifestsTest.at(sts, "spec", "template", "spec", "containers", "1", "image"))
                .isEqualTo("other/sidecar:3");
        assertThat(DeployManifestsTest.at(sts, "spec", "template", "spec", "containers", "0", "env"))
                .isEqualTo(List.of(Map.of("name", "B", "value", "2"), Map.of("name", "D", "value", "4")));
    }

    @Test
    void whatItDoesNotSupportIsRefusedByName() throws IOException {
        write("a/app.yaml", DEPLOYMENT);
        write("a/kustomization.yaml", "resources: [app.yaml]\ncommonLabels: {team: x}\n");
        assertThatThrownBy(() -> Kustomize.render(this.dir.resolve("a"))).hasMessageContaining("'commonLabels'");

        write("b/app.yaml", DEPLOYMENT);
        write(
                "b/kustomization.yaml",
                "resources: [app.yaml]\npatches: [{target: {labelSelector: a=b}, patch: '[]'}]\n");
        assertThatThrownBy(() -> Kustomize.render(this.dir.resolve("b"))).hasMessageContaining("'labelSelector'");

        write("c/app.yaml", DEPLOYMENT);
        write("c/kustomization.yaml", """
                resources: [app.yaml]
                patches: [{target: {kind: StatefulSet}, patch: '[{op: move, from: /a, path: /b}]'}]
                """);
        assertThatThrownBy(() -> Kustomize.render(this.dir.resolve("c"))).hasMessageContaining("'from'");

        write("d/app.yaml", DEPLOYMENT);
        write("d/kustomization.yaml", """
                resources: [app.yaml]
                patches:
                  - patch: |
                      apiVersion: apps/v1
                      kind: StatefulSet
                      metadata: {name: app}
                      spec: {template: {spec: {containers: [{name: app, $patch: delete}]}}}
                """);
        assertThatThrownBy(() -> Kustomize.render(this.dir.resolve("d"))).hasMessageContaining("$patch");

        write("e/kustomization.yaml", "resources: [app.yaml]\npatches: [{path: p.yaml, target: {kind: Job}}]\n");
        write("e/app.yaml", DEPLOYMENT);
        write("e/p.yaml", "- {op: remove, path: /spec}\n");
        assertThatThrownBy(() -> Kustomize.render(this.dir.resolve("e"))).hasMessageContaining("matches no resource");
    }

    @Test
    void filesOutsideTheKustomizationAreRefusedAsKustomizeDoes() throws IOException {
        write("shared.yaml", DEPLOYMENT);
        write("k/kustomization.yaml", "resources: [../shared.yaml]\n");
        assertThatThrownBy(() -> Kustomize.render(this.dir.resolve("k"))).hasMessageContaining("outside");
    }

    @Test
    void imagesKeepWhatTheEntryDoesNotChange() {
        assertThat(Kustomize.retag("example/app:1.0", Map.of("name", "example/app", "newTag", "2")))
                .isEqualTo("example/app:2");
        assertThat(Kustomize.retag("example/app:1.0", Map.of("name", "example/app", "newName", "r.io/app")))
                .isEqualTo("r.io/app:1.0");
        assertThat(Kustomize.retag("localhost:5000/app", Map.of("name", "localhost:5000/app", "newTag", "3")))
                .isEqualTo("localhost:5000/app:3");
        assertThat(Kustomize.retag("example/app:1.0", Map.of("name", "example/app", "digest", "sha256:ab")))
                .isEqualTo("example/app@sha256:ab");
        assertThat(Kustomize.retag("example/other:1.0", Map.of("name", "example/app", "newTag", "2")))
                .isEqualTo("example/other:1.0");
    }
}
