package dev.conch;

import java.util.concurrent.CompletableFuture;
import org.jspecify.annotations.Nullable;

/**
 * One question to a {@link Gate}, which is user code and may block: asked on a hook thread named
 * after the office ({@link HookRunner}), so that the loop never waits on it. The loop bounds it by
 * the hook timeout and may stop waiting for it (a resign, a close); a check it stopped waiting for
 * is interrupted, and awaited again rather than asked anew while it still runs, so that a gate that
 * never returns holds one thread, not one per retry.
 */
final class GateCheck {

  private final HookRunner.Hook hook;
  private volatile Gate.@Nullable Decision answer;

  private GateCheck(HookRunner hooks, Gate gate, String office) {
    this.hook = hooks.start(() -> answer = gate.check(office));
  }

  /**
   * Asks {@code gate} on a hook thread.
   *
   * @throws java.util.concurrent.RejectedExecutionException once the election is closed
   */
  static GateCheck ask(HookRunner hooks, Gate gate, String office) {
    return new GateCheck(hooks, gate, office);
  }

  /** Completes when the gate has answered or thrown. */
  CompletableFuture<Void> done() {
    return hook.done;
  }

  /** Whether the gate is still deciding. */
  boolean running() {
    return !hook.done.isDone();
  }

  /** The gate's answer once {@link #done()}; a gate that threw or answered null denies. */
  Gate.Decision answer() {
    if (hook.done.isCompletedExceptionally()) {
      Throwable error = hook.done.handle((ok, e) -> e).join();
      return Gate.Decision.deny("gate failed: " + error);
    }
    Gate.Decision decided = answer;
    return decided != null ? decided : Gate.Decision.deny("gate failed: it answered null");
  }

  /** Tells a gate the loop no longer waits for to return. */
  void interrupt() {
    hook.interrupt();
  }
}
