package dev.conch.spring.boot.autoconfigure.health;

import dev.conch.InvalidArgumentException;
import dev.conch.spring.boot.health.ConchHealthIndicator;
import dev.conch.spring.boot.health.LeaderReadinessHealthIndicator;
import dev.conch.spring.health.CandidacyPauses;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.function.Function;
import java.util.stream.Collectors;
import org.jspecify.annotations.Nullable;
import org.springframework.boot.health.actuate.endpoint.HealthEndpointGroup;
import org.springframework.boot.health.actuate.endpoint.HealthEndpointGroups;
import org.springframework.boot.health.actuate.endpoint.StatusAggregator;
import org.springframework.boot.health.contributor.CompositeHealthContributor;
import org.springframework.boot.health.contributor.Health;
import org.springframework.boot.health.contributor.HealthContributor;
import org.springframework.boot.health.contributor.HealthContributors;
import org.springframework.boot.health.contributor.HealthIndicator;
import org.springframework.boot.health.contributor.Status;

/**
 * What is wrong with a health contributor or group that an office requires, by the name {@code
 * /actuator/health} gives it ({@code db}, {@code db/primary}, {@code readiness}): {@code null} when
 * it is UP, else e.g. {@code "db is DOWN"}. conch's own contributors are never asked: they follow
 * the election, which would then follow itself.
 */
final class RequiredHealthProbe implements Function<String, @Nullable String> {

  private final HealthContributors contributors;

  private final @Nullable HealthEndpointGroups groups;

  RequiredHealthProbe(HealthContributors contributors, @Nullable HealthEndpointGroups groups) {
    this.contributors = contributors;
    this.groups = groups;
  }

  /**
   * Refuses every required name that is neither a contributor nor a group.
   *
   * @throws InvalidArgumentException naming the property, the name and the known names
   */
  void check(CandidacyPauses pauses) {
    for (CandidacyPauses.Requirement requirement : pauses.requirements()) {
      for (String name : requirement.indicators()) {
        HealthContributor contributor = find(name);
        HealthEndpointGroup group = (this.groups != null) ? this.groups.get(name) : null;
        if ((contributor == null && group == null) || isConchs(contributor)) {
          throw new InvalidArgumentException(requirement.property(), name, accepted());
        }
        if (contributor == null && members(group).isEmpty()) {
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
    HealthContributor contributor = find(name);
    if (contributor != null) {
      Status status = status(contributor);
      return Status.UP.equals(status) ? null : name + " is " + status.getCode();
    }
    HealthEndpointGroup group = (this.groups != null) ? this.groups.get(name) : null;
    if (group == null) {
      return name + " is no longer a health contributor or group";
    }
    Map<String, Status> members = new LinkedHashMap<>();
    members(group).forEach((member, of) -> members.put(member, status(of)));
    Status status = group.getStatusAggregator().getAggregateStatus(Set.copyOf(members.values()));
    if (Status.UP.equals(status)) {
      return null;
    }
    String down =
        members.entrySet().stream()
            .filter(member -> !Status.UP.equals(member.getValue()))
            .map(member -> member.getKey() + " is " + member.getValue().getCode())
            .collect(Collectors.joining(", "));
    return name + " is " + status.getCode() + " (" + down + ")";
  }

  private Map<String, HealthContributor> members(@Nullable HealthEndpointGroup group) {
    Map<String, HealthContributor> members = new LinkedHashMap<>();
    if (group != null) {
      this.contributors.stream()
          .filter(entry -> group.isMember(entry.name()) && !isConchs(entry.contributor()))
          .forEach(entry -> members.put(entry.name(), entry.contributor()));
    }
    return members;
  }

  private @Nullable HealthContributor find(String name) {
    HealthContributors level = this.contributors;
    HealthContributor found = null;
    for (String part : name.split("/", -1)) {
      if (level == null) {
        return null;
      }
      found = level.getContributor(part);
      if (found == null) {
        return null;
      }
      level = (found instanceof CompositeHealthContributor composite) ? composite : null;
    }
    return found;
  }

  private static Status status(HealthContributor contributor) {
    if (contributor instanceof HealthIndicator indicator) {
      Health health = indicator.health(false);
      return (health != null) ? health.getStatus() : Status.UNKNOWN;
    }
    if (contributor instanceof CompositeHealthContributor composite) {
      Set<Status> statuses =
          composite.stream().map(entry -> status(entry.contributor())).collect(Collectors.toSet());
      return StatusAggregator.getDefault().getAggregateStatus(statuses);
    }
    return Status.UNKNOWN;
  }

  private static boolean isConchs(@Nullable HealthContributor contributor) {
    return contributor instanceof ConchHealthIndicator
        || contributor instanceof LeaderReadinessHealthIndicator;
  }

  private String accepted() {
    Set<String> names = new TreeSet<>();
    this.contributors.stream()
        .filter(entry -> !isConchs(entry.contributor()))
        .forEach(entry -> names.add(entry.name()));
    Set<String> groupNames =
        (this.groups != null) ? new TreeSet<>(this.groups.getNames()) : new TreeSet<>();
    return "the name of a health contributor ("
        + (names.isEmpty() ? "none" : String.join(", ", names))
        + ") or of a health group ("
        + (groupNames.isEmpty() ? "none" : String.join(", ", groupNames))
        + "), as /actuator/health shows them; conch's own contributors cannot be required";
  }
}
