package dev.etl.autoconfigure.health;

import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import org.springframework.boot.actuate.endpoint.EndpointId;
import org.springframework.boot.actuate.endpoint.SecurityContext;
import org.springframework.boot.actuate.endpoint.web.AdditionalPathsMapper;
import org.springframework.boot.actuate.endpoint.web.WebServerNamespace;
import org.springframework.boot.health.actuate.endpoint.AdditionalHealthEndpointPath;
import org.springframework.boot.health.actuate.endpoint.HealthEndpoint;
import org.springframework.boot.health.actuate.endpoint.HealthEndpointGroup;
import org.springframework.boot.health.actuate.endpoint.HealthEndpointGroups;
import org.springframework.boot.health.actuate.endpoint.HealthEndpointGroupsPostProcessor;
import org.springframework.boot.health.actuate.endpoint.HttpCodeStatusMapper;
import org.springframework.boot.health.actuate.endpoint.StatusAggregator;
import org.springframework.core.Ordered;
import org.springframework.core.env.Environment;

/**
 * Adds the pipeline to Boot's {@code liveness} and {@code readiness} health groups ({@code etl/liveness}
 * and {@code etl/readiness}) and serves them on the main port at {@code /healthz} and {@code /readyz}.
 *
 * <p>Runs after Boot's availability-probes post-processor, which creates the two groups. A group whose
 * members the user configured ({@code management.endpoint.health.group.<name>.include}) is left as
 * configured: list {@code etl/liveness} or {@code etl/readiness} there yourself. A group that already
 * has an additional path (e.g. Boot's {@code /livez} with
 * {@code management.endpoint.health.probes.add-additional-paths=true}) keeps it.
 */
class EtlProbeGroupsPostProcessor implements HealthEndpointGroupsPostProcessor, Ordered {

    static final String LIVENESS_MEMBER = "etl/liveness";

    static final String READINESS_MEMBER = "etl/readiness";

    private final Environment environment;

    EtlProbeGroupsPostProcessor(Environment environment) {
        this.environment = environment;
    }

    @Override
    public int getOrder() {
        // Boot's AvailabilityProbesHealthEndpointGroupsPostProcessor is LOWEST_PRECEDENCE; with equal
        // order, bean registration order decides, and this auto-configuration comes after Boot's.
        return Ordered.LOWEST_PRECEDENCE;
    }

    @Override
    public HealthEndpointGroups postProcessHealthEndpointGroups(HealthEndpointGroups groups) {
        return new Groups(
                groups,
                memberFor("liveness", LIVENESS_MEMBER),
                pathFor("liveness", "/healthz"),
                memberFor("readiness", READINESS_MEMBER),
                pathFor("readiness", "/readyz"));
    }

    private String memberFor(String group, String member) {
        boolean configured =
                this.environment.containsProperty("management.endpoint.health.group." + group + ".include");
        return configured ? null : member;
    }

    private String pathFor(String group, String path) {
        boolean configured =
                this.environment.containsProperty("management.endpoint.health.group." + group + ".additional-path");
        return configured ? null : path;
    }

    /** The groups, with the liveness and readiness groups decorated. */
    private static final class Groups implements HealthEndpointGroups, AdditionalPathsMapper {

        private final HealthEndpointGroups delegate;

        private final HealthEndpointGroup liveness;

        private final HealthEndpointGroup readiness;

        Groups(
                HealthEndpointGroups delegate,
                String livenessMember,
                String livenessPath,
                String readinessMember,
                String readinessPath) {
            this.delegate = delegate;
            this.liveness = decorate(delegate.get("liveness"), livenessMember, livenessPath);
            this.readiness = decorate(delegate.get("readiness"), readinessMember, readinessPath);
        }

        private static HealthEndpointGroup decorate(HealthEndpointGroup group, String member, String path) {
            if (group == null) {
                return null;
            }
            AdditionalHealthEndpointPath additionalPath = group.getAdditionalPath();
            if (additionalPath == null && path != null) {
                additionalPath = AdditionalHealthEndpointPath.of(WebServerNamespace.SERVER, path);
            }
            return new ProbeGroup(group, member, additionalPath);
        }

        @Override
        public HealthEndpointGroup getPrimary() {
            return this.delegate.getPrimary();
        }

        @Override
        public Set<String> getNames() {
            return this.delegate.getNames();
        }

        @Override
        public HealthEndpointGroup get(String name) {
            if ("liveness".equals(name) && this.liveness != null) {
                return this.liveness;
            }
            if ("readiness".equals(name) && this.readiness != null) {
                return this.readiness;
            }
            return this.delegate.get(name);
        }

        @Override
        public List<String> getAdditionalPaths(EndpointId endpointId, WebServerNamespace webServerNamespace) {
            if (!HealthEndpoint.ID.equals(endpointId)) {
                return null;
            }
            List<String> paths = new ArrayList<>();
            for (String name : getNames()) {
                HealthEndpointGroup group = get(name);
                if (group != null
                        && group.getAdditionalPath() != null
                        && group.getAdditionalPath().hasNamespace(webServerNamespace)) {
                    paths.add(group.getAdditionalPath().getValue());
                }
            }
            return paths;
        }
    }

    /** A probe group with the pipeline's member and an additional path. */
    private static final class ProbeGroup implements HealthEndpointGroup {

        private final HealthEndpointGroup delegate;

        private final String member;

        private final AdditionalHealthEndpointPath additionalPath;

        ProbeGroup(HealthEndpointGroup delegate, String member, AdditionalHealthEndpointPath additionalPath) {
            this.delegate = delegate;
            this.member = member;
            this.additionalPath = additionalPath;
        }

        @Override
        public boolean isMember(String name) {
            return this.delegate.isMember(name) || name.equals(this.member);
        }

        @Override
        public boolean showComponents(SecurityContext securityContext) {
            return this.delegate.showComponents(securityContext);
        }

        @Override
        public boolean showDetails(SecurityContext securityContext) {
            return this.delegate.showDetails(securityContext);
        }

        @Override
        public StatusAggregator getStatusAggregator() {
            return this.delegate.getStatusAggregator();
        }

        @Override
        public HttpCodeStatusMapper getHttpCodeStatusMapper() {
            return this.delegate.getHttpCodeStatusMapper();
        }

        @Override
        public AdditionalHealthEndpointPath getAdditionalPath() {
            return this.additionalPath;
        }
    }
}
