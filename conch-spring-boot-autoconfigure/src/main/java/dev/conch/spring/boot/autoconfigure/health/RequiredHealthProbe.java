package dev.conch.spring.boot.autoconfigure.health;

import dev.conch.InvalidArgumentException;
import dev.conch.spring.boot.health.ConchHealthIndicator;
import dev.conch.spring.boot.health.LeaderReadinessHealthIndicator;
import dev.conch.spring.health.CandidacyPauses;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.function.Function;
import java.util.stream.Collectors;
import java.util.stream.Stream;
import org.jspecify.annotations.Nullable;
import org.springframework.boot.actuate.endpoint.SecurityContext;
import org.springframework.boot.health.actuate.endpoint.AdditionalHealthEndpointPath;
import org.springframework.boot.health.actuate.endpoint.CompositeHealthDescriptor;
import org.springframework.boot.health.actuate.endpoint.HealthDescriptor;
import org.springframework.boot.health.actuate.endpoint.HealthEndpoint;
import org.springframework.boot.health.actuate.endpoint.HealthEndpointGroup;
import org.springframework.boot.health.actuate.endpoint.HealthEndpointGroups;
import org.springframework.boot.health.actuate.endpoint.HttpCodeStatusMapper;
import org.springframework.boot.health.actuate.endpoint.StatusAggregator;
import org.springframework.boot.health.contributor.CompositeHealthContributor;
import org.springframework.boot.health.contributor.HealthContributor;
import org.springframework.boot.health.contributor.HealthContributors;
import org.springframework.boot.health.contributor.Status;
import org.springframework.boot.health.registry.HealthContributorRegistry;
import org.springframework.boot.health.registry.ReactiveHealthContributorRegistry;

/**
 * What is wrong with a health contributor or group that an office requires, by the path {@code
 * /actuator/health} gives it ({@code db}, {@code db/primary}, {@code readiness}): {@code null} when
 * it is UP, else e.g. {@code "db is DOWN"}. Boot's {@link HealthEndpoint#healthForPath} answers, as
 * it answers {@code /actuator/health/<path>}: groups with their members and status aggregator,
 * composites, reactive contributors as the endpoint falls back to them. It answers over the
 * application's contributors less conch's own: those follow the election, which would then follow
 * itself (a required {@code readiness} group holding {@code conchLeader} would keep every follower
 * out for good).
 */
final class RequiredHealthProbe implements Function<String, @Nullable String> {

  private final HealthContributors contributors;

  private final HealthEndpointGroups groups;

  private final HealthEndpoint endpoint;

  /**
   * @param groups the health endpoint's groups; without them (no health endpoint), only
   *     contributors can be required
   */
  RequiredHealthProbe(
      HealthContributorRegistry registry,
      @Nullable ReactiveHealthContributorRegistry reactive,
      @Nullable HealthEndpointGroups groups) {
    HealthContributorRegistry others = new WithoutConchsOwn(registry);
    this.groups = (groups != null) ? groups : HealthEndpointGroups.of(new Everything(), Map.of());
    this.endpoint = new HealthEndpoint(others, reactive, this.groups, null);
    this.contributors =
        (reactive != null)
            ? HealthContributors.of(others, reactive.asHealthContributors())
            : others;
  }

  /**
   * Refuses every required name that is neither a contributor nor a group, without asking any
   * contributor for its health.
   *
   * @throws InvalidArgumentException naming the property, the name and the known names
   */
  void check(CandidacyPauses pauses) {
    for (CandidacyPauses.Requirement requirement : pauses.requirements()) {
      for (String name : requirement.indicators()) {
        HealthEndpointGroup group = this.groups.get(name);
        if (find(name) != null) {
          continue;
        }
        if (group == null) {
          throw new InvalidArgumentException(requirement.property(), name, accepted());
        }
        if (this.contributors.stream().noneMatch(entry -> group.isMember(entry.name()))) {
          throw new InvalidArgumentException(
              requirement.property(),
              name,
              "a health group with a member other than conch's own; group " + name + " has none");
        }
      }
    }
  }

  @Override
  public @Nullable String apply(String name) {
    HealthDescriptor health = this.endpoint.healthForPath(name.split("/", -1));
    if (health == null) {
      return name + " is no longer a health contributor or group";
    }
    Status status = health.getStatus();
    if (Status.UP.equals(status)) {
      return null;
    }
    Map<String, HealthDescriptor> members =
        (this.groups.get(name) != null && health instanceof CompositeHealthDescriptor group)
            ? group.getComponents()
            : null;
    if (members != null) {
      String down =
          members.entrySet().stream()
              .filter(member -> !Status.UP.equals(member.getValue().getStatus()))
              .map(member -> member.getKey() + " is " + member.getValue().getStatus().getCode())
              .collect(Collectors.joining(", "));
      return name + " is " + status.getCode() + " (" + down + ")";
    }
    return name + " is " + status.getCode();
  }

  /** The contributor at {@code path}, by name only: none is asked for its health. */
  private @Nullable HealthContributor find(String path) {
    HealthContributors level = this.contributors;
    HealthContributor found = null;
    for (String part : path.split("/", -1)) {
      if (level == null) {
        return null;
      }
      found = level.getContributor(part);
      level = (found instanceof CompositeHealthContributor composite) ? composite : null;
    }
    return found;
  }

  private String accepted() {
    Set<String> names =
        this.contributors.stream()
            .map(HealthContributors.Entry::name)
            .collect(Collectors.toCollection(TreeSet::new));
    Set<String> groupNames = new TreeSet<>(this.groups.getNames());
    return "the name of a health contributor ("
        + (names.isEmpty() ? "none" : String.join(", ", names))
        + ") or of a health group ("
        + (groupNames.isEmpty() ? "none" : String.join(", ", groupNames))
        + "), as /actuator/health shows them; conch's own contributors cannot be required";
  }

  private static boolean isConchs(@Nullable HealthContributor contributor) {
    return contributor instanceof ConchHealthIndicator
        || contributor instanceof LeaderReadinessHealthIndicator;
  }

  /** The application's registry as the probe sees it: without conch's own contributors. */
  private record WithoutConchsOwn(HealthContributorRegistry registry)
      implements HealthContributorRegistry {

    @Override
    public @Nullable HealthContributor getContributor(String name) {
      HealthContributor contributor = this.registry.getContributor(name);
      return isConchs(contributor) ? null : contributor;
    }

    @Override
    public Stream<HealthContributors.Entry> stream() {
      return this.registry.stream().filter(entry -> !isConchs(entry.contributor()));
    }

    @Override
    public void registerContributor(String name, HealthContributor contributor) {
      throw new UnsupportedOperationException("a view");
    }

    @Override
    public HealthContributor unregisterContributor(String name) {
      throw new UnsupportedOperationException("a view");
    }
  }

  /** The primary group where there is no health endpoint: every contributor, Boot's defaults. */
  private record Everything() implements HealthEndpointGroup {

    @Override
    public boolean isMember(String name) {
      return true;
    }

    @Override
    public boolean showComponents(SecurityContext securityContext) {
      return true;
    }

    @Override
    public boolean showDetails(SecurityContext securityContext) {
      return false;
    }

    @Override
    public StatusAggregator getStatusAggregator() {
      return StatusAggregator.getDefault();
    }

    @Override
    public HttpCodeStatusMapper getHttpCodeStatusMapper() {
      return HttpCodeStatusMapper.DEFAULT;
    }

    @Override
    public @Nullable AdditionalHealthEndpointPath getAdditionalPath() {
      return null;
    }
  }
}
