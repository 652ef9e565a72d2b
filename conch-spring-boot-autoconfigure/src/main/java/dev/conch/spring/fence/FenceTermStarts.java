package dev.conch.spring.fence;

import dev.conch.Election;
import dev.conch.Leadership;
import dev.conch.LeadershipHandler;
import dev.conch.spring.Elections;
import dev.conch.spring.support.PhasedLifecycle;
import java.util.function.Supplier;
import org.springframework.context.SmartLifecycle;

/**
 * Raises the fence row of each office this application leads when its term begins, in a transaction
 * of its own ({@link TransactionFence#raiseAtTermStart}), so that every transaction of the term
 * begins after the older term's last commits and no transaction of the term has to raise the row
 * itself. Only offices that this process fenced before, and that have a row in the fence table, are
 * raised (an application that fences nothing makes no database call in its terms); a failure is
 * logged and left to the term's first fence.
 *
 * <p>Starts just before the elections campaign, so that the hook is in place for the first win.
 */
public final class FenceTermStarts extends PhasedLifecycle {

  /** Before campaigning starts (conch's lifecycle runs at {@code DEFAULT_PHASE - 512}). */
  static final int PHASE = SmartLifecycle.DEFAULT_PHASE - 514;

  private final Supplier<Elections> elections;

  private final TransactionFence fence;

  // Guarded by this.
  private boolean wired;

  /**
   * @param elections the application's elections, looked up when this starts
   * @param fence the fence whose rows are raised
   */
  public FenceTermStarts(Supplier<Elections> elections, TransactionFence fence) {
    super(PHASE);
    this.elections = elections;
    this.fence = fence;
  }

  @Override
  protected void begin() {
    if (!this.wired) {
      this.wired = true;
      Elections all = this.elections.get();
      if (all != null) {
        for (Election election : all.all()) {
          election.addHandler(new RaiseOnAcquire(election.office(), this.fence));
        }
      }
    }
  }

  /** The hook: raises the office's fence row when a term begins; never refuses the term. */
  private record RaiseOnAcquire(String office, TransactionFence fence)
      implements LeadershipHandler {

    @Override
    public void acquired(Leadership leadership) {
      this.fence.raiseAtTermStart(leadership);
    }

    @Override
    public String toString() {
      return "the fence's raise of office '" + this.office + "'";
    }
  }
}
