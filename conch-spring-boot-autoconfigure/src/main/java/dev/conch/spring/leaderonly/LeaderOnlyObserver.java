package dev.conch.spring.leaderonly;

import dev.conch.spring.observation.LeaderOnlyObservationContext;
import org.jspecify.annotations.Nullable;

/**
 * The starter's own record of each {@link LeaderOnly @LeaderOnly} call, run or skipped: one
 * observation when the application has an {@code ObservationRegistry} (Boot's meter handler makes
 * the {@code conch.leaderonly} timer of it), else nothing. Boot's metrics always come with an
 * {@code ObservationRegistry}, so the timer needs no path of its own.
 */
interface LeaderOnlyObserver {

  /** Records nothing. */
  LeaderOnlyObserver NONE =
      new LeaderOnlyObserver() {
        @Override
        public void skipped(LeaderOnlyObservationContext context) {}

        @Override
        public @Nullable Object run(
            LeaderOnlyObservationContext context, LeaderOnlyInvocations.Call call)
            throws Throwable {
          return call.proceed();
        }
      };

  /** Records a call that was not run: this instance does not lead the office. */
  void skipped(LeaderOnlyObservationContext context);

  /**
   * Makes and records a call that runs, on the calling thread.
   *
   * @return what {@code call} returned
   */
  @Nullable Object run(LeaderOnlyObservationContext context, LeaderOnlyInvocations.Call call)
      throws Throwable;
}
