package dev.etl.testcontainers;

import java.net.URI;
import java.net.URISyntaxException;

/** The address of a container's mapped port, as the URI a client connects to. */
final class ContainerUri {

    private ContainerUri() {}

    /**
     * @param scheme the scheme ({@code http} or {@code https})
     * @param host   the host Testcontainers reports ({@code Container.getHost()}): a name, an IPv4
     *               address, or an IPv6 address with or without brackets (brackets are added when
     *               missing)
     * @param port   the mapped port on that host
     * @param path   the base path, empty for none; starts with {@code /} otherwise
     * @return {@code scheme://host:port/path}
     * @throws IllegalArgumentException if the parts do not form a URI
     */
    static URI of(String scheme, String host, int port, String path) {
        try {
            return new URI(scheme, null, host, port, path.isEmpty() ? null : path, null, null);
        } catch (URISyntaxException ex) {
            throw new IllegalArgumentException(
                    "Container address " + scheme + "://" + host + ":" + port + path + " is not a URI: "
                            + ex.getMessage(),
                    ex);
        }
    }
}
