package dev.conch.spring.boot.autoconfigure;

import dev.conch.ElectionOptions;
import dev.conch.etcd.SessionOptions;
import dev.conch.etcd.TimingBudget;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;
import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;

/**
 * The {@link TimingBudget} of each office this instance campaigns for in etcd, recorded as its
 * election is made: logged once per office at start-up (INFO, one line; WARN when an etcd raft
 * leader change would end its terms), and shown by the {@code conch} endpoint's overview. Offices
 * of the application's own {@code Election} beans, and every office in standalone mode, have none.
 */
public final class OfficeTimings {

  private static final Log logger = LogFactory.getLog(OfficeTimings.class);

  private final SessionOptions session;

  private final Map<String, TimingBudget> budgets = new ConcurrentHashMap<>();

  OfficeTimings(SessionOptions session) {
    this.session = session;
  }

  /** The budget of {@code office}, when this instance made its election in etcd. */
  public Optional<TimingBudget> of(String office) {
    return Optional.ofNullable(this.budgets.get(office));
  }

  /** Records an office whose work its own hooks stop; its options were accepted by the session. */
  void record(ElectionOptions options) {
    put(options.office(), TimingBudget.of(this.session, options));
  }

  /** Records the runner's office, {@code options} being the ones the runner gave its election. */
  void recordRunner(ElectionOptions options, ConchRunnerProperties runner) {
    put(
        options.office(),
        TimingBudget.ofRunner(
            this.session,
            options,
            runner.getKillAfter(),
            runner.getHookTimeout(),
            runner.getOnLose() != null && !runner.getOnLose().isBlank()));
  }

  private void put(String office, TimingBudget budget) {
    // Once per office: a runner built again after a context restart has the same budget.
    if (!budget.equals(this.budgets.put(office, budget))) {
      if (budget.ridesOutRaftLeaderChange()) {
        logger.info("office " + office + ": " + budget.summary());
      } else {
        // Settings that end a term at an ordinary event of the etcd cluster's life: said plainly.
        logger.warn(
            "office " + office + ": " + budget.raftLeaderChange() + "; " + budget.summary());
      }
    }
  }
}
