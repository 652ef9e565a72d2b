package dev.conch.spring.leaderonly;

import dev.conch.Leadership;
import dev.conch.spring.Elections;
import dev.conch.spring.observation.LeaderOnlyObservationContext;
import java.lang.reflect.UndeclaredThrowableException;
import java.util.Collections;
import java.util.Optional;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.Callable;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Future;
import java.util.function.BiFunction;
import org.jspecify.annotations.Nullable;
import org.springframework.scheduling.TaskScheduler;
import org.springframework.util.ClassUtils;

/**
 * Leader-only work that is no annotated method: tasks built at run time, with the semantics of
 * {@link LeaderOnly @LeaderOnly}. A task runs only while this instance leads its office, on the
 * calling thread, with {@link CurrentLeadership} set to the term; anywhere else it is skipped, the
 * skip logged at DEBUG. Each call, run or skipped, is the {@code conch.leaderonly} observation of
 * an annotated method, with the task's name as {@code code.function} and {@code none} as {@code
 * code.namespace}, and reaches the {@link LeaderOnlyInvocations} beans under that name.
 *
 * <pre>{@code
 * @Autowired LeaderOnlyTasks leaderOnly;
 *
 * leaderOnly.run("billing", "invoices", () -> sendInvoices());       // false: skipped
 * Optional<Report> report = leaderOnly.call("billing", "report", this::report);
 *
 * TaskScheduler jobs = leaderOnly.scheduler(taskScheduler, "billing", "reminders");
 * jobs.scheduleAtFixedRate(() -> remind(customer), Duration.ofMinutes(5));  // each firing guarded
 * }</pre>
 *
 * <p>The office must be one this instance campaigns for (configured, the default office, or one a
 * {@code @LeaderOnly} method or {@code @LeaderLifecycle} bean names): a task is built at run time,
 * after the offices were chosen, so an unknown office is refused, with the offices there are. The
 * name is the task's in meters and observations: a few fixed names, not one per customer or run.
 *
 * <p>As {@code @LeaderOnly} refuses an {@code @Async} method, a task that hands its work to another
 * thread is refused: a {@link #call} whose result is a {@link Future}, a {@link CompletionStage} or
 * a reactive {@code Publisher} throws {@link IllegalArgumentException} once it returned (it is
 * observed as an {@code ERROR}), since leadership was checked here and the work would go on
 * elsewhere, after the term may have ended. Wait for such work inside the task instead.
 */
public final class LeaderOnlyTasks {

  private static final @Nullable Class<?> PUBLISHER = publisherClass();

  private final LeaderOnlyMethodInterceptor guard;

  private final Set<String> names = ConcurrentHashMap.newKeySet();

  /**
   * Tasks guarded as the {@code @LeaderOnly} methods of {@code methods} are, by the same guard.
   *
   * @param methods the post-processor of the {@code @LeaderOnly} methods
   */
  public LeaderOnlyTasks(LeaderOnlyAnnotationBeanPostProcessor methods) {
    this.guard = methods.interceptor();
  }

  /**
   * Runs {@code task} now, on this thread, if this instance leads {@code office}.
   *
   * @param office the office; empty for the default office
   * @param name the task's name in meters, observations and logs
   * @return whether the task ran; {@code false}: it was skipped
   * @throws IllegalArgumentException when this instance does not campaign for {@code office}, or
   *     {@code name} is blank
   */
  public boolean run(String office, String name, Runnable task) {
    check(office, name);
    try {
      return this.guard.guard(
              office,
              name,
              null,
              contexts(name),
              () -> {
                task.run();
                return Boolean.TRUE;
              },
              Boolean.FALSE)
          == Boolean.TRUE;
    } catch (RuntimeException | Error ex) {
      throw ex;
    } catch (Throwable ex) {
      throw new UndeclaredThrowableException(ex);
    }
  }

  /**
   * Calls {@code task} now, on this thread, if this instance leads {@code office}.
   *
   * @param office the office; empty for the default office
   * @param name the task's name in meters, observations and logs
   * @return what the task returned; empty when it was skipped, or returned {@code null}
   * @throws IllegalArgumentException when this instance does not campaign for {@code office},
   *     {@code name} is blank, or the task returned work still in progress (a {@code Future}, a
   *     {@code CompletionStage}, a {@code Publisher})
   * @throws Exception what the task threw
   */
  public <T> Optional<T> call(String office, String name, Callable<T> task) throws Exception {
    check(office, name);
    try {
      Object result =
          this.guard.guard(
              office, name, null, contexts(name), () -> finished(name, task.call()), null);
      @SuppressWarnings("unchecked")
      T value = (T) result;
      return Optional.ofNullable(value);
    } catch (Exception | Error ex) {
      throw ex;
    } catch (Throwable ex) {
      throw new UndeclaredThrowableException(ex);
    }
  }

  /**
   * {@code task} as a {@code Runnable} that {@linkplain #run runs} it at each call: for an {@code
   * Executor}, a {@code TaskScheduler}, a listener. The office is checked at each call.
   *
   * @param office the office; empty for the default office
   * @param name the task's name in meters, observations and logs
   * @throws IllegalArgumentException when {@code name} is blank
   */
  public Runnable task(String office, String name, Runnable task) {
    checkName(name);
    return new Task(this, office, name, task);
  }

  /**
   * A scheduler that runs each firing of each task it schedules only while this instance leads
   * {@code office}: {@code scheduler.scheduleAtFixedRate(task, period)} keeps firing everywhere,
   * and each firing runs on the leader and is skipped (and counted) on the others. The tasks run on
   * {@code delegate}'s threads, with its clock, and its futures cancel them.
   *
   * @param delegate the scheduler that runs the tasks
   * @param office the office; empty for the default office
   * @param name the name of its tasks in meters, observations and logs
   * @throws IllegalArgumentException when {@code name} is blank
   */
  public TaskScheduler scheduler(TaskScheduler delegate, String office, String name) {
    checkName(name);
    return new LeaderOnlyTaskScheduler(delegate, task -> task(office, name, task));
  }

  /** The name of every task given to this bean so far, sorted. */
  public Set<String> names() {
    return Collections.unmodifiableSet(new TreeSet<>(this.names));
  }

  private void check(String office, String name) {
    checkName(name);
    Elections elections = this.guard.elections();
    if (office.isEmpty() && elections.defaultOffice().isEmpty()) {
      throw new IllegalArgumentException(
          "Leader-only task '"
              + name
              + "' names no office and none is the default (set conch.office or"
              + " spring.application.name); the offices are "
              + elections.offices());
    }
    if (!office.isEmpty() && elections.find(office).isEmpty()) {
      throw new IllegalArgumentException(
          "Leader-only task '"
              + name
              + "' needs office '"
              + office
              + "', which this instance does not campaign for; the offices are "
              + elections.offices()
              + " (configure another with conch.offices."
              + office
              + ".*)");
    }
  }

  private void checkName(String name) {
    if (name.isBlank()) {
      throw new IllegalArgumentException(
          "A leader-only task needs a name (its code.function in meters and observations), got '"
              + name
              + "'");
    }
    this.names.add(name);
  }

  private static BiFunction<String, @Nullable Leadership, LeaderOnlyObservationContext> contexts(
      String name) {
    return (office, term) -> new LeaderOnlyObservationContext(name, office, term);
  }

  /** {@code result}, unless it is work still in progress on another thread. */
  private static <T> @Nullable T finished(String name, @Nullable T result) {
    if (result instanceof Future<?>
        || result instanceof CompletionStage<?>
        || (PUBLISHER != null && PUBLISHER.isInstance(result))) {
      throw new IllegalArgumentException(
          "Leader-only task '"
              + name
              + "' returned a "
              + result.getClass().getName()
              + ": its work goes on after the task returned, on another thread, possibly after"
              + " the term ended. Wait for it inside the task (join() or get() with a timeout)"
              + " and return the result");
    }
    return result;
  }

  private static @Nullable Class<?> publisherClass() {
    String name = "org.reactivestreams.Publisher";
    ClassLoader loader = LeaderOnlyTasks.class.getClassLoader();
    return ClassUtils.isPresent(name, loader) ? ClassUtils.resolveClassName(name, loader) : null;
  }

  /** A task run through {@link #run} of {@code tasks} at each call. */
  private record Task(LeaderOnlyTasks tasks, String office, String name, Runnable task)
      implements Runnable {

    @Override
    public void run() {
      this.tasks.run(this.office, this.name, this.task);
    }

    @Override
    public String toString() {
      return "leader-only task '" + this.name + "' of office '" + this.office + "'";
    }
  }
}
