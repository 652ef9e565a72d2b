package dev.conch.spring.boot.actuate.endpoint;

import dev.conch.Durations;
import dev.conch.etcd.TimingBudget;
import java.time.Duration;
import org.springframework.boot.actuate.endpoint.OperationResponseBody;

/**
 * The timing budget of an office ({@link TimingBudget}), durations as {@code 2s125ms}; D is the
 * lease deadline (the send time of the last acknowledged renewal plus the TTL).
 *
 * @param ttl the lease TTL
 * @param lossLead how long before D leadership is dropped (stop timeout plus safety margin)
 * @param renewInterval how often the lease is renewed
 * @param attemptTimeout how long one renewal attempt may take before the next starts
 * @param outageRiddenOut the longest etcd outage that costs no leadership
 * @param crashFailover the longest the office stays leaderless after its holder's process dies
 * @param gracefulHandover the longest a resign takes before the successor can win (per lose hook
 *     unless {@code runner})
 * @param loseHookEnd after a loss at the deadline, the latest the office's lose hooks are waited
 *     for, e.g. {@code D-500ms} (a hook still running then is interrupted; one that ignores
 *     interrupts runs on), or for the runner the latest its on-lose hook may run; a successor may
 *     start at D
 * @param fencedOnlyPause the longest pause of this process after which its work still stops in
 *     time; a longer one is protected by the fencing token only
 * @param runner whether the office's work is the runner's command
 */
public record TimingDescriptor(
    String ttl,
    String lossLead,
    String renewInterval,
    String attemptTimeout,
    String outageRiddenOut,
    String crashFailover,
    String gracefulHandover,
    String loseHookEnd,
    String fencedOnlyPause,
    boolean runner)
    implements OperationResponseBody {

  static TimingDescriptor of(TimingBudget budget) {
    return new TimingDescriptor(
        f(budget.ttl()),
        f(budget.lossLead()),
        f(budget.renewInterval()),
        f(budget.attemptTimeout()),
        f(budget.outageRiddenOut()),
        f(budget.crashFailover()),
        f(budget.gracefulHandover()),
        TimingBudget.relative(budget.loseHookEnd()),
        f(budget.fencedOnlyPause()),
        budget.runner());
  }

  private static String f(Duration duration) {
    return Durations.format(duration);
  }
}
