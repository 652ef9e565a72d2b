package dev.conch.spring.support;

import dev.conch.Election;
import dev.conch.GroupOptions;
import dev.conch.OfficeGroup;
import dev.conch.spring.Elections;
import dev.conch.spring.OfficeMovedEvent;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.Executor;
import java.util.concurrent.RejectedExecutionException;
import java.util.function.Function;
import java.util.function.Predicate;
import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;
import org.jspecify.annotations.Nullable;
import org.springframework.context.ApplicationEventPublisher;
import org.springframework.context.SmartLifecycle;

/**
 * Shares this application's offices fairly with the other instances of its {@link OfficeGroup}
 * ({@code conch.balance.*}): joins the group once the elections campaign, and leaves it on shutdown
 * before they resign, so that no office moves while the instance hands its offices over. Each move
 * is logged and published as an {@link OfficeMovedEvent}.
 *
 * <p>An office moves only when its stop is cheap: while no leader-only work of its term runs
 * ({@code Leadership.isIdle()}: no {@code @LeaderOnly} call, no {@code LeaderOnlyTasks} task). The
 * move itself is a named hand-over ({@link Election#transfer(String)}), which ends the term at the
 * same safe point as every other stop: leader-only work awaited, lose hooks, lifecycle beans.
 */
public final class OfficeBalancer implements SmartLifecycle {

  /** Starts after {@link ConchLifecycle} campaigns, stops before it resigns. */
  public static final int PHASE = ConchLifecycle.PHASE + 1;

  private static final Log logger = LogFactory.getLog(OfficeBalancer.class);

  private final Elections elections;

  private final GroupOptions options;

  private final Function<GroupOptions, OfficeGroup> join;

  private final Predicate<Election> shared;

  private final ApplicationEventPublisher eventPublisher;

  private final Executor executor;

  // Guarded by this.
  private @Nullable OfficeGroup group;

  // Guarded by this.
  private @Nullable AutoCloseable listener;

  /**
   * A balancer of {@code elections}; the starter's auto-configuration creates it.
   *
   * @param elections the application's elections
   * @param options how this instance takes part in the group (its candidate id is the one of its
   *     elections)
   * @param join joins a group ({@code EtcdSession::group})
   * @param shared which elections the group shares (not the runner's: it cannot hand over)
   * @param eventPublisher where the {@link OfficeMovedEvent}s go
   * @param executor where they are published, off the group's thread
   */
  public OfficeBalancer(
      Elections elections,
      GroupOptions options,
      Function<GroupOptions, OfficeGroup> join,
      Predicate<Election> shared,
      ApplicationEventPublisher eventPublisher,
      Executor executor) {
    this.elections = elections;
    this.options = options;
    this.join = join;
    this.shared = shared;
    this.eventPublisher = eventPublisher;
    this.executor = executor;
  }

  /** The group's name. */
  public String name() {
    return this.options.name();
  }

  /** How this instance takes part in the group. */
  public GroupOptions options() {
    return this.options;
  }

  /** The group while this instance is a member (from context start to context stop). */
  public synchronized Optional<OfficeGroup> group() {
    return Optional.ofNullable(this.group);
  }

  @Override
  public synchronized void start() {
    if (this.group != null) {
      return;
    }
    List<Election> shared = this.elections.all().stream().filter(this::shared).toList();
    if (shared.isEmpty()) {
      // A member that leads none of the group's offices would only lower everyone's share.
      logger.debug("No office to share in group '" + this.options.name() + "'");
      return;
    }
    OfficeGroup joined;
    try {
      joined = this.join.apply(this.options);
    } catch (RuntimeException ex) {
      // Balancing is an optimisation: without it every office is still elected, first come.
      logger.warn(
          "Could not join group '"
              + this.options.name()
              + "': this instance's offices are not shared fairly until it is started again",
          ex);
      return;
    }
    this.listener = joined.addListener(this::moved);
    for (Election election : shared) {
      joined.add(election); // moves only while no leader-only work of the term runs
    }
    this.group = joined;
    logger.info(
        "Sharing offices "
            + shared.stream().map(Election::office).toList()
            + " in group '"
            + this.options.name()
            + "' as '"
            + this.options.memberId()
            + "' (priority "
            + this.options.priority()
            + ", balance delay "
            + this.options.delay()
            + ")");
  }

  private boolean shared(Election election) {
    if (!this.shared.test(election)) {
      return false;
    }
    String id = election.candidate().id();
    if (this.options.memberId().equals(id)) {
      return true;
    }
    // An application's own Election bean with an id of its own: the group could not tell whether
    // this member leads it.
    logger.warn(
        "Office '"
            + election.office()
            + "' is not shared in group '"
            + this.options.name()
            + "': its candidate id '"
            + id
            + "' is not this instance's ('"
            + this.options.memberId()
            + "')");
    return false;
  }

  /** Leaves the group: its member key is deleted, and nothing moves while the offices resign. */
  @Override
  public synchronized void stop() {
    OfficeGroup joined = this.group;
    if (joined == null) {
      return;
    }
    this.group = null;
    try {
      AutoCloseable registration = this.listener;
      if (registration != null) {
        registration.close();
      }
    } catch (Exception ex) {
      logger.debug("Removing the move listener of group '" + this.options.name() + "'", ex);
    } finally {
      this.listener = null;
      joined.close();
    }
  }

  @Override
  public synchronized boolean isRunning() {
    return this.group != null;
  }

  @Override
  public int getPhase() {
    return PHASE;
  }

  /** On the group's thread, which must not block: logged here, published on the executor. */
  private void moved(OfficeGroup.Move move) {
    logger.info(
        "Handed office '"
            + move.office()
            + "' (token "
            + move.token()
            + ") to '"
            + move.to()
            + "' in group '"
            + this.options.name()
            + "': "
            + ((move.reason() == OfficeGroup.Reason.PRIORITY)
                ? "it has a higher priority"
                : "this instance led more than its fair share"));
    OfficeMovedEvent event = new OfficeMovedEvent(this, this.options.name(), move);
    try {
      this.executor.execute(() -> this.eventPublisher.publishEvent(event));
    } catch (RejectedExecutionException ex) {
      // The executor is closed or full (shutdown): the event is not lost for that.
      this.eventPublisher.publishEvent(event);
    }
  }
}
