package dev.conch.spring.boot.autoconfigure.health;

import java.util.List;
import java.util.Set;
import org.jspecify.annotations.Nullable;
import org.springframework.boot.actuate.endpoint.EndpointId;
import org.springframework.boot.actuate.endpoint.SecurityContext;
import org.springframework.boot.actuate.endpoint.web.AdditionalPathsMapper;
import org.springframework.boot.actuate.endpoint.web.WebServerNamespace;
import org.springframework.boot.health.actuate.endpoint.AdditionalHealthEndpointPath;
import org.springframework.boot.health.actuate.endpoint.HealthEndpointGroup;
import org.springframework.boot.health.actuate.endpoint.HealthEndpointGroups;
import org.springframework.boot.health.actuate.endpoint.HealthEndpointGroupsPostProcessor;
import org.springframework.boot.health.actuate.endpoint.HttpCodeStatusMapper;
import org.springframework.boot.health.actuate.endpoint.StatusAggregator;
import org.springframework.core.Ordered;
import org.springframework.core.annotation.Order;

/**
 * Adds a health contributor to the {@code readiness} group, as Boot adds its {@code
 * readinessState}: to Boot's own probe group, or to the application's {@code readiness} group when
 * it configures one. No group is made where there is none (probes switched off and no group
 * configured).
 *
 * <p>It runs after Boot's probes post-processor (same order, registered later: its
 * auto-configuration comes after Boot's), which is what makes the {@code readiness} group exist;
 * the additional paths of the groups it wraps ({@code /readyz}, {@code additional-path}) are kept.
 */
@Order(Ordered.LOWEST_PRECEDENCE)
final class ReadinessGroupPostProcessor implements HealthEndpointGroupsPostProcessor {

  static final String READINESS = "readiness";

  private final String member;

  ReadinessGroupPostProcessor(String member) {
    this.member = member;
  }

  @Override
  public HealthEndpointGroups postProcessHealthEndpointGroups(HealthEndpointGroups groups) {
    return (groups.get(READINESS) != null) ? new Groups(groups, this.member) : groups;
  }

  private record Groups(HealthEndpointGroups delegate, String member)
      implements HealthEndpointGroups, AdditionalPathsMapper {

    @Override
    public HealthEndpointGroup getPrimary() {
      return this.delegate.getPrimary();
    }

    @Override
    public Set<String> getNames() {
      return this.delegate.getNames();
    }

    @Override
    public @Nullable HealthEndpointGroup get(String name) {
      HealthEndpointGroup group = this.delegate.get(name);
      return (group != null && READINESS.equals(name)) ? new Group(group, this.member) : group;
    }

    @Override
    public @Nullable List<String> getAdditionalPaths(
        EndpointId endpointId, WebServerNamespace webServerNamespace) {
      return (this.delegate instanceof AdditionalPathsMapper mapper)
          ? mapper.getAdditionalPaths(endpointId, webServerNamespace)
          : null;
    }
  }

  private record Group(HealthEndpointGroup delegate, String member) implements HealthEndpointGroup {

    @Override
    public boolean isMember(String name) {
      return this.member.equals(name) || this.delegate.isMember(name);
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
    public @Nullable AdditionalHealthEndpointPath getAdditionalPath() {
      return this.delegate.getAdditionalPath();
    }
  }
}
