package dev.etl.docs;

import static dev.etl.docs.Poms.child;
import static dev.etl.docs.Poms.parse;
import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.w3c.dom.Document;
import org.w3c.dom.Element;
import org.w3c.dom.NodeList;

/**
 * {@code etl-dependencies}, the bill of materials users import, manages every deployed module of the
 * reactor (with its packaging as type), at the reactor's version, and nothing else.
 */
class BomTest {

    @Test
    void theBomManagesEveryDeployedModuleAtTheProjectVersion() throws Exception {
        Path root = repositoryRoot();
        Document parent = parse(root.resolve("pom.xml"));
        String version = child(parent.getDocumentElement(), "version");

        Map<String, String> deployed = new LinkedHashMap<>();
        for (String module : Poms.modules(parent)) {
            Element project = parse(root.resolve(module).resolve("pom.xml")).getDocumentElement();
            String artifactId = child(project, "artifactId");
            NodeList skips = project.getElementsByTagName("maven.deploy.skip");
            boolean skipped = skips.getLength() > 0
                    && "true".equals(skips.item(0).getTextContent().trim());
            if (!skipped && !artifactId.equals("etl-dependencies")) {
                String packaging = child(project, "packaging");
                deployed.put(artifactId, packaging == null ? "jar" : packaging);
            }
        }
        assertThat(deployed).containsKeys("etl-engine", "etl-spring-boot-starter");

        Element bom = parse(root.resolve("etl-dependencies/pom.xml")).getDocumentElement();
        assertThat(child(bom, "version")).as("etl-dependencies' version").isEqualTo(version);
        assertThat(bom.getElementsByTagName("parent").getLength())
                .as("the BOM has no parent, so it pins nothing else")
                .isZero();
        Map<String, String> managed = new LinkedHashMap<>();
        NodeList dependencies = bom.getElementsByTagName("dependency");
        for (int i = 0; i < dependencies.getLength(); i++) {
            Element dependency = (Element) dependencies.item(i);
            assertThat(child(dependency, "groupId")).isEqualTo("dev.etl");
            assertThat(child(dependency, "version")).isEqualTo("${project.version}");
            String type = child(dependency, "type");
            managed.put(child(dependency, "artifactId"), type == null ? "jar" : type);
        }
        assertThat(managed).isEqualTo(deployed);
    }

    private static Path repositoryRoot() {
        Path dir = Path.of("").toAbsolutePath();
        while (dir != null && !Files.isRegularFile(dir.resolve("etl-dependencies/pom.xml"))) {
            dir = dir.getParent();
        }
        if (dir == null) {
            throw new IllegalStateException(
                    "no etl-dependencies/pom.xml above " + Path.of("").toAbsolutePath());
        }
        return dir;
    }
}
