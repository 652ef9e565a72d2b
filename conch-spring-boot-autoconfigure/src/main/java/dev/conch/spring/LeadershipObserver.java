package dev.conch.spring;

import dev.conch.Election;
import dev.conch.LeadershipHandler;
import dev.conch.spring.OnLeadership.Transition;

/**
 * Watches the terms of each office and the {@link OnLeadership @OnLeadership} hooks that run in
 * them; the observation auto-configuration provides one when the application has an {@code
 * ObservationRegistry}.
 */
interface LeadershipObserver {

  /**
   * The handler that follows the terms of {@code election}, registered before every other handler
   * of it: its {@code acquired} runs before every acquire hook and its {@code lost} after every
   * lose hook, so a term spans its hooks.
   */
  LeadershipHandler term(Election election);

  /**
   * {@code hook} as it should be called, watched on {@code on} only.
   *
   * @param office the office of the hook
   * @param name the hook, as {@code bean.method()}
   * @param on the transition the hook runs on
   */
  LeadershipHandler hook(String office, String name, Transition on, LeadershipHandler hook);
}
