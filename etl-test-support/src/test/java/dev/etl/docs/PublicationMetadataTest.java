package dev.etl.docs;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.StringWriter;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import javax.xml.parsers.DocumentBuilderFactory;
import javax.xml.transform.OutputKeys;
import javax.xml.transform.TransformerFactory;
import javax.xml.transform.dom.DOMSource;
import javax.xml.transform.stream.StreamResult;
import org.junit.jupiter.api.Test;
import org.w3c.dom.Document;
import org.w3c.dom.Element;
import org.w3c.dom.Node;
import org.w3c.dom.NodeList;

/**
 * What Maven Central requires of a published POM, checked on the sources: the parent POM (which every
 * published module inherits it from) and the BOM (which has no parent) carry a URL, the Apache-2.0 license,
 * developers and SCM coordinates, the same in both; every published module names and describes itself;
 * the license file at the root is the Apache License 2.0 the POMs name.
 */
class PublicationMetadataTest {

    private static final List<String> INHERITED = List.of("url", "licenses", "developers", "scm");

    @Test
    void theParentAndTheBomCarryTheSameCompleteMetadata() throws Exception {
        Path root = repositoryRoot();
        Element parent = parse(root.resolve("pom.xml")).getDocumentElement();
        Element bom = parse(root.resolve("etl-dependencies/pom.xml")).getDocumentElement();
        for (String name : INHERITED) {
            assertThat(childElement(parent, name))
                    .as("<%s> of the parent POM", name)
                    .isNotNull();
            assertThat(text(childElement(bom, name)))
                    .as("<%s> of etl-dependencies equals the parent's", name)
                    .isEqualTo(text(childElement(parent, name)));
        }
        Element license = childElement(childElement(parent, "licenses"), "license");
        assertThat(childText(license, "name")).isEqualTo("Apache License, Version 2.0");
        assertThat(childText(license, "url")).isEqualTo("https://www.apache.org/licenses/LICENSE-2.0");
        Element scm = childElement(parent, "scm");
        for (String name : List.of("connection", "developerConnection", "url")) {
            assertThat(childText(scm, name)).as("<scm><%s>", name).isNotBlank();
        }
        Element developer = childElement(childElement(parent, "developers"), "developer");
        assertThat(childText(developer, "name")).as("a developer's name").isNotBlank();
        // children inherit the URLs as they are, not with their artifactId appended
        assertThat(parent.getAttribute("child.project.url.inherit.append.path")).isEqualTo("false");
        assertThat(bom.getAttribute("child.project.url.inherit.append.path")).isEqualTo("false");
    }

    @Test
    void everyPublishedModuleHasANameAndADescription() throws Exception {
        Path root = repositoryRoot();
        Element parent = parse(root.resolve("pom.xml")).getDocumentElement();
        List<String> published = new ArrayList<>();
        NodeList modules = parent.getElementsByTagName("module");
        for (int i = 0; i < modules.getLength(); i++) {
            String module = modules.item(i).getTextContent().trim();
            Element project = parse(root.resolve(module).resolve("pom.xml")).getDocumentElement();
            NodeList skips = project.getElementsByTagName("maven.deploy.skip");
            if (skips.getLength() > 0
                    && "true".equals(skips.item(0).getTextContent().trim())) {
                continue;
            }
            published.add(module);
            assertThat(childText(project, "name")).as("<name> of %s", module).isNotBlank();
            assertThat(childText(project, "description"))
                    .as("<description> of %s", module)
                    .isNotBlank();
        }
        assertThat(published).contains("etl-engine", "etl-spring-boot-starter", "etl-dependencies");
    }

    /**
     * The BOM has no parent, so it repeats the publication settings: both deploy to the same repositories
     * (a file repository under target/ unless -Detl.release.repository.url says otherwise), and both sign in
     * the {@code release} profile with the same maven-gpg-plugin, skipped unless {@code gpg.keyname} is set.
     */
    @Test
    void theParentAndTheBomPublishAndSignAlike() throws Exception {
        Path root = repositoryRoot();
        Element parent = parse(root.resolve("pom.xml")).getDocumentElement();
        Element bom = parse(root.resolve("etl-dependencies/pom.xml")).getDocumentElement();
        assertThat(childElement(parent, "distributionManagement")).isNotNull();
        assertThat(text(childElement(bom, "distributionManagement")))
                .isEqualTo(text(childElement(parent, "distributionManagement")));
        Element parentProperties = childElement(parent, "properties");
        Element bomProperties = childElement(bom, "properties");
        for (String property :
                List.of("etl.release.repository.url", "etl.snapshot.repository.url", "etl.release.unsigned")) {
            assertThat(childText(bomProperties, property))
                    .as("%s of etl-dependencies", property)
                    .isEqualTo(childText(parentProperties, property))
                    .isNotBlank();
        }
        assertThat(childText(parentProperties, "etl.release.repository.url"))
                .startsWith("file://")
                .endsWith("/target/release/repository");
        assertThat(childText(parentProperties, "etl.release.unsigned")).isEqualTo("true");
        for (Element project : List.of(parent, bom)) {
            Element gpg = plugin(profile(project, "release"), "maven-gpg-plugin");
            assertThat(gpg).as("maven-gpg-plugin in the release profile").isNotNull();
            assertThat(gpg.getElementsByTagName("goal").item(0).getTextContent())
                    .isEqualTo("sign");
            assertThat(gpg.getElementsByTagName("skip").item(0).getTextContent())
                    .isEqualTo("${etl.release.unsigned}");
            Element signing = profile(project, "release-signing");
            assertThat(signing.getElementsByTagName("name").item(0).getTextContent())
                    .as("release-signing is activated by -Dgpg.keyname")
                    .isEqualTo("gpg.keyname");
            assertThat(childText(childElement(signing, "properties"), "etl.release.unsigned"))
                    .isEqualTo("false");
        }
        assertThat(childText(plugin(profile(bom, "release"), "maven-gpg-plugin"), "version"))
                .as("the BOM's maven-gpg-plugin is the parent's")
                .isEqualTo(childText(parentProperties, "maven-gpg-plugin.version"));
    }

    private static Element profile(Element project, String id) {
        NodeList profiles = childElement(project, "profiles").getElementsByTagName("profile");
        for (int i = 0; i < profiles.getLength(); i++) {
            Element profile = (Element) profiles.item(i);
            if (id.equals(childText(profile, "id"))) {
                return profile;
            }
        }
        throw new AssertionError("no profile " + id);
    }

    private static Element plugin(Element profile, String artifactId) {
        NodeList plugins = profile.getElementsByTagName("plugin");
        for (int i = 0; i < plugins.getLength(); i++) {
            Element plugin = (Element) plugins.item(i);
            if (artifactId.equals(childText(plugin, "artifactId"))) {
                return plugin;
            }
        }
        return null;
    }

    @Test
    void theLicenseFileIsTheApacheLicense() throws Exception {
        String license = Files.readString(repositoryRoot().resolve("LICENSE"), StandardCharsets.UTF_8);
        assertThat(license.strip())
                .startsWith("Apache License")
                .contains("Version 2.0, January 2004", "http://www.apache.org/licenses/");
    }

    private static Element childElement(Element element, String name) {
        for (Node n = element.getFirstChild(); n != null; n = n.getNextSibling()) {
            if (n instanceof Element e && e.getTagName().equals(name)) {
                return e;
            }
        }
        return null;
    }

    private static String childText(Element element, String name) {
        Element child = childElement(element, name);
        return child == null ? null : child.getTextContent().trim();
    }

    /** The element serialised without whitespace between tags, to compare two of them. */
    private static String text(Element element) throws Exception {
        StringWriter out = new StringWriter();
        var transformer = TransformerFactory.newInstance().newTransformer();
        transformer.setOutputProperty(OutputKeys.OMIT_XML_DECLARATION, "yes");
        transformer.transform(new DOMSource(element), new StreamResult(out));
        return out.toString().replaceAll(">\\s+<", "><").strip();
    }

    private static Document parse(Path pom) throws Exception {
        DocumentBuilderFactory factory = DocumentBuilderFactory.newInstance();
        factory.setFeature("http://apache.org/xml/features/disallow-doctype-decl", true);
        return factory.newDocumentBuilder().parse(pom.toFile());
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
