package dev.conch.spring.support;

import dev.conch.LeadershipHandler;
import dev.conch.spring.OnLeadership;
import dev.conch.spring.OnLeadership.Transition;

/**
 * Watches the {@link OnLeadership @OnLeadership} hooks of each office; {@link ConchObservations} is
 * the one the lifecycle uses when the application has an {@code ObservationRegistry}. Terms are not
 * observed: a span as long as a term would be exported at its end or, after a crash, never; the
 * meters keep them.
 */
interface LeadershipObserver {

  /**
   * {@code hook} as it should be called, watched on {@code on} only.
   *
   * @param office the office of the hook
   * @param name the hook, as {@code bean.method()}
   * @param on the transition the hook runs on
   */
  LeadershipHandler hook(String office, String name, Transition on, LeadershipHandler hook);
}
