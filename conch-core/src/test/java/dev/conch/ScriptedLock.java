package dev.conch;

import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Consumer;

/**
 * A store for the loop's own tests, scripted by hand on the election's clock: each campaign wins at
 * once (up to {@link #campaignsAllowed}) with the campaign's number as its token; the deadline, the
 * store's facts and a one-off {@link Error} are set by the test. Not etcd: nothing here says
 * anything about etcd's behaviour.
 */
public final class ScriptedLock implements FencedLock {

  private static final long SECOND = TimeUnit.SECONDS.toNanos(1);

  private final String office;
  private final Ticker ticker;

  /** The deadline of every grant; 0 until set, then the first grant sets it to its win + 10 s. */
  public volatile long validUntil;

  /** What the store says ended the grant, or null. */
  public volatile LossReason ended;

  /** How many campaigns may win; later ones wait until cancelled. */
  public volatile int campaignsAllowed = Integer.MAX_VALUE;

  /** Campaigns started, won, and grants released. */
  public final AtomicInteger attempts = new AtomicInteger();

  public final AtomicInteger campaigns = new AtomicInteger();
  public final AtomicInteger released = new AtomicInteger();

  /** When set, the grant's next look at its facts throws an {@link Error}. */
  public final AtomicBoolean throwOnce = new AtomicBoolean();

  private volatile Runnable changed = () -> {};

  public ScriptedLock(String office, Ticker ticker) {
    this.office = office;
    this.ticker = ticker;
  }

  /** Tells the election that its grant changed, as a store does. */
  public void wake() {
    changed.run();
  }

  @Override
  public String office() {
    return office;
  }

  @Override
  public synchronized CompletableFuture<Grant> campaign(
      Holder self, Consumer<Optional<Holder>> ahead, Runnable changed) {
    attempts.incrementAndGet();
    if (campaigns.get() >= campaignsAllowed) {
      return new CompletableFuture<>(); // no more terms: the campaign waits until cancelled
    }
    int term = campaigns.incrementAndGet();
    this.changed = changed;
    if (validUntil == 0) {
      validUntil = ticker.nanoTime() + 10 * SECOND;
    }
    Holder held = self.at(term, 1);
    return CompletableFuture.completedFuture(
        new Grant() {
          @Override
          public Leadership leadership() {
            return new Leadership(office, term, 1, held);
          }

          @Override
          public long validUntil() {
            return validUntil;
          }

          @Override
          public Optional<LossReason> ended() {
            if (throwOnce.compareAndSet(true, false)) {
              throw new StackOverflowError("scripted");
            }
            return Optional.ofNullable(ended);
          }
        });
  }

  @Override
  public CompletableFuture<Void> release(Grant grant) {
    released.incrementAndGet();
    return CompletableFuture.completedFuture(null);
  }

  @Override
  public Optional<Holder> leader() {
    return Optional.empty();
  }

  @Override
  public CompletableFuture<java.util.List<Holder>> candidates() {
    return CompletableFuture.completedFuture(java.util.List.of());
  }

  @Override
  public CompletableFuture<Boolean> handOver(
      Grant grant, Holder target, java.util.List<Holder> between) {
    return CompletableFuture.completedFuture(false);
  }

  @Override
  public boolean guardedPut(Grant grant, String key, String value) {
    return false;
  }
}
