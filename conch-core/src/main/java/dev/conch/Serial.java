package dev.conch;

import java.util.ArrayDeque;
import java.util.Queue;
import java.util.concurrent.Executor;
import java.util.function.Consumer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Runs the steps of one election one after another, in the order they were handed in, on the
 * threads all elections share ({@link SharedThreads#LOOPS}): what a thread per election gave, at no
 * thread per election. A step that throws is logged and the next one runs.
 */
final class Serial implements Executor {

  private static final Logger log = LoggerFactory.getLogger(FencedElection.class);

  private final String name;
  private final Executor threads;
  private final Consumer<Throwable> failed;
  private final Queue<Runnable> steps = new ArrayDeque<>();
  private boolean draining;

  Serial(String name, Executor threads, Consumer<Throwable> failed) {
    this.name = name;
    this.threads = threads;
    this.failed = failed;
  }

  @Override
  public void execute(Runnable step) {
    synchronized (this) {
      steps.add(step);
      if (draining) {
        return;
      }
      draining = true;
    }
    threads.execute(() -> SharedThreads.runAs(name, this::drain));
  }

  private void drain() {
    while (true) {
      Runnable step;
      synchronized (this) {
        step = steps.poll();
        if (step == null) {
          draining = false;
          return;
        }
      }
      try {
        step.run();
      } catch (RuntimeException | Error e) {
        try {
          failed.accept(e);
        } catch (RuntimeException | Error again) {
          log.error("{}: a step of the election failed", name, again);
        }
      }
    }
  }
}
