package dev.etl.docs;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import javax.xml.parsers.DocumentBuilderFactory;
import org.w3c.dom.Document;
import org.w3c.dom.Element;
import org.w3c.dom.Node;
import org.w3c.dom.NodeList;

/** The repository's POMs as the docs and build tests read them. */
final class Poms {

    private Poms() {}

    static Document parse(Path pom) throws Exception {
        DocumentBuilderFactory factory = DocumentBuilderFactory.newInstance();
        factory.setFeature("http://apache.org/xml/features/disallow-doctype-decl", true);
        return factory.newDocumentBuilder().parse(pom.toFile());
    }

    /** The text of {@code element}'s first direct child of that name, or null. */
    static String child(Element element, String name) {
        for (Node n = element.getFirstChild(); n != null; n = n.getNextSibling()) {
            if (n instanceof Element e && e.getTagName().equals(name)) {
                return e.getTextContent().trim();
            }
        }
        return null;
    }

    /** The {@code <module>} entries of a POM, in order. */
    static List<String> modules(Document pom) {
        List<String> modules = new ArrayList<>();
        NodeList nodes = pom.getElementsByTagName("module");
        for (int i = 0; i < nodes.getLength(); i++) {
            modules.add(nodes.item(i).getTextContent().trim());
        }
        return modules;
    }
}
