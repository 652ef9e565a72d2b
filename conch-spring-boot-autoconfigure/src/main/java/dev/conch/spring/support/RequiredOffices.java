package dev.conch.spring.support;

import dev.conch.spring.Elections;
import dev.conch.spring.OnLeadership;
import java.util.Collection;

/**
 * Offices that beans of the application need although no property names them: {@code @LeaderOnly}
 * methods, {@code @LeaderLifecycle} beans. Each is campaigned for with the {@code conch.*}
 * defaults, like an office named only by an {@link OnLeadership @OnLeadership} method, and joins
 * {@link Elections}. The lifecycle asks every bean of this type once every singleton exists, before
 * campaigning starts.
 */
@FunctionalInterface
public interface RequiredOffices {

  /**
   * The offices, each with a description of what needs it (for error messages); an empty office
   * name stands for the default office.
   */
  Collection<Requirement> offices();

  /**
   * One office needed by one part of the application.
   *
   * @param office the office, empty for the default office
   * @param neededBy what needs it, e.g. {@code @LeaderOnly reportJob.run()}
   */
  record Requirement(String office, String neededBy) {}
}
