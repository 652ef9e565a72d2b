package dev.conch.spring.fence;

import dev.conch.Leadership;
import java.util.Optional;

/**
 * Where the fence finds the term whose token it offers: the auto-configuration looks in conch's
 * elections and in the running {@code @LeaderOnly} method.
 */
public interface LeadershipTerms {

  /**
   * The office a fence that names none is for: the office of the term the calling thread runs in (a
   * {@code @LeaderOnly} method), else the default office; empty when there is neither.
   */
  Optional<String> defaultOffice();

  /**
   * The term of {@code office} that this thread's work belongs to: the running {@code @LeaderOnly}
   * term when it is of {@code office}, else this instance's current term of {@code office}; empty
   * when this instance does not lead it.
   */
  Optional<Leadership> current(String office);
}
