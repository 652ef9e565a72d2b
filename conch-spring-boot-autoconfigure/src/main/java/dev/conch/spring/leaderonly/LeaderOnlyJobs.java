package dev.conch.spring.leaderonly;

import dev.conch.Election;
import dev.conch.Leadership;
import dev.conch.spring.Elections;
import dev.conch.spring.LeadershipAcquiredEvent;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Method;
import java.time.Clock;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.function.Supplier;
import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;
import org.jspecify.annotations.Nullable;
import org.springframework.beans.factory.DisposableBean;
import org.springframework.context.ApplicationContext;
import org.springframework.context.ApplicationContextAware;
import org.springframework.context.ApplicationEvent;
import org.springframework.context.event.ContextRefreshedEvent;
import org.springframework.context.event.SmartApplicationListener;
import org.springframework.util.ReflectionUtils;

/**
 * The {@code @Scheduled} {@link LeaderOnly @LeaderOnly} jobs of the application: claims each firing
 * in the job's record before it runs and records how it ended, and, when this instance starts
 * leading an office (after its acquire hooks), finds the firings of the office's jobs that nobody
 * ran and applies each job's {@link LeaderOnly#misfire()} policy ({@link MisfireRecovery}).
 *
 * <p>A job's schedule is the one Spring holds ({@link HeldSchedules}), read no earlier than when
 * Spring scheduled it: at the job's first firing, or when the context has refreshed (Spring
 * schedules its tasks on the {@link ContextRefreshedEvent}). Then a job Spring holds no single
 * schedule for is refused with {@link Misfire#RUN_ONCE}, and with the default {@link Misfire#SKIP}
 * is no job (an INFO line says so). A term won before then looks for missed firings once the
 * context has refreshed.
 */
public final class LeaderOnlyJobs
    implements SmartApplicationListener, ApplicationContextAware, DisposableBean {

  private static final Log logger = LogFactory.getLog(LeaderOnlyJobs.class);

  /** A firing the recovery claimed, handed to the interceptor of the call it makes. */
  private static final ThreadLocal<@Nullable JobFiring> PRECLAIMED = new ThreadLocal<>();

  private final Map<Method, LeaderOnlyJob> jobs = new ConcurrentHashMap<>();

  private final Supplier<Elections> elections;

  private final Supplier<JobRecords> records;

  private final Supplier<Clock> clock;

  /** Where the firings are counted: {@link LeaderOnlyFirings}, once Micrometer binds it. */
  private volatile JobMeters meters = JobMeters.NONE;

  private final HeldSchedules schedules;

  private final Object lock = new Object();

  private @Nullable ApplicationContext context;

  private @Nullable ExecutorService recovery;

  /** Whether the context has refreshed; guarded by the lock. */
  private boolean refreshed;

  /** The terms won before the context refreshed; guarded by the lock. */
  private final List<LeadershipAcquiredEvent> early = new ArrayList<>();

  private boolean closed;

  LeaderOnlyJobs(
      Supplier<Elections> elections,
      Supplier<JobRecords> records,
      Supplier<Clock> clock,
      HeldSchedules schedules) {
    this.elections = elections;
    this.records = records;
    this.clock = clock;
    this.schedules = schedules;
  }

  /** Counts the firings in {@code meters} from now on. */
  void countIn(JobMeters meters) {
    this.meters = meters;
  }

  @Override
  public void setApplicationContext(ApplicationContext context) {
    this.context = context;
  }

  void register(LeaderOnlyJob job) {
    this.jobs.put(job.method(), job);
  }

  /** Remembers the bean (its proxy) a missed firing of {@code method} is run on. */
  void bean(Method method, Object proxy) {
    LeaderOnlyJob job = this.jobs.get(method);
    if (job != null) {
      job.bean(proxy);
    }
  }

  /**
   * The last firing of each job of {@code office} this instance knows of: one it claimed, or read
   * when it last started leading the office; no store is read.
   */
  public List<JobRecord> lastRuns(String office) {
    List<JobRecord> runs = new ArrayList<>();
    for (LeaderOnlyJob job : jobsOf(office)) {
      JobRecord last = job.last();
      if (last != null) {
        runs.add(last);
      }
    }
    return runs;
  }

  Collection<LeaderOnlyJob> all() {
    return this.jobs.values();
  }

  /**
   * The job of {@code method} once its schedule is known, read from Spring if it is not yet; null
   * when the method is no job, or Spring holds no single schedule for it.
   */
  private @Nullable LeaderOnlyJob job(Method method) {
    LeaderOnlyJob job = this.jobs.get(method);
    return (job != null && this.schedules.schedule(job)) ? job : null;
  }

  /**
   * Counts a firing of {@code method}, if it is a job, that did not run here: not leading, or (when
   * {@code claimed}) its claim was refused and already counted.
   */
  void skipped(String office, Method method, boolean counted) {
    LeaderOnlyJob job = job(method);
    if (job != null && !counted) {
      this.meters.count(office, job.tag(), JobMeters.SKIPPED, 1);
    }
  }

  /**
   * Claims the firing a call of {@code method} in {@code term} is: {@link JobFiring#UNRECORDED}
   * when the method is no job; null when the firing must not run (another term claimed it, the term
   * ended in the store, or the store could not be written).
   */
  @Nullable JobFiring claim(Leadership term, Method method) {
    LeaderOnlyJob job = job(method);
    if (job == null) {
      return JobFiring.UNRECORDED;
    }
    JobFiring preclaimed = PRECLAIMED.get();
    if (preclaimed != null && preclaimed.isOf(job)) {
      PRECLAIMED.remove();
      return preclaimed.isIn(term) ? preclaimed : null;
    }
    // When it fired, not when the look below ended: a fixed-rate firing is recorded at this time,
    // and the next leader counts the missed ones from it; recorded late by the look, the firing
    // due one period after this one would not be missed yet for a leader that looks soon after.
    Instant now = this.clock.get().instant();
    Instant firing = job.schedule().firingAt(now);
    // The first firing of a term waits for (or makes) the term's look for missed firings, so a
    // missed firing runs before the term's own, whichever thread comes first.
    recoverOnce(term, job);
    JobFiring claimed = null;
    if (!job.recovered(term.token(), firing)) {
      try {
        claimed = JobFiring.claim(this.records, this.clock, job, term, firing, now);
      } catch (RuntimeException ex) {
        logger.warn(
            "Not running "
                + job.tag()
                + " (firing "
                + firing
                + "): its record in office '"
                + term.office()
                + "' could not be claimed: "
                + ex.getMessage());
      }
    }
    this.meters.count(
        term.office(), job.tag(), (claimed != null) ? JobMeters.RUN : JobMeters.SKIPPED, 1);
    return claimed;
  }

  @Override
  public boolean supportsEventType(Class<? extends ApplicationEvent> eventType) {
    return LeadershipAcquiredEvent.class.isAssignableFrom(eventType)
        || ContextRefreshedEvent.class.isAssignableFrom(eventType);
  }

  /**
   * Reads the jobs' schedules once the context has refreshed; on each term won, starts the misfire
   * recovery of the office's jobs off the event's thread (for a term won before the refresh, once
   * the context has refreshed).
   */
  @Override
  public void onApplicationEvent(ApplicationEvent event) {
    if (event instanceof ContextRefreshedEvent refreshedEvent) {
      if (refreshedEvent.getApplicationContext() == this.context) {
        refreshed();
      }
    } else if (event instanceof LeadershipAcquiredEvent acquired && !this.jobs.isEmpty()) {
      synchronized (this.lock) {
        if (!this.refreshed) {
          this.early.add(acquired);
          return;
        }
      }
      acquired(acquired);
    }
  }

  private void refreshed() {
    this.schedules
        .scheduleAll(this.jobs.values())
        .forEach(
            (job, why) -> {
              this.jobs.remove(job.method());
              logger.info(
                  job.tag()
                      + " is @LeaderOnly and @Scheduled, but "
                      + why
                      + ": its calls are not recorded as firings (no claim, no missed firings)");
            });
    List<LeadershipAcquiredEvent> waiting;
    synchronized (this.lock) {
      this.refreshed = true;
      waiting = List.copyOf(this.early);
      this.early.clear();
    }
    waiting.forEach(this::acquired);
  }

  private void acquired(LeadershipAcquiredEvent event) {
    List<LeaderOnlyJob> mine = jobsOf(event.getOffice());
    if (mine.isEmpty()) {
      if (logger.isDebugEnabled()) {
        logger.debug(
            "No missed firings to look for in office '"
                + event.getOffice()
                + "' (term "
                + event.getToken()
                + "): none of the jobs "
                + tags(this.jobs.values())
                + " is in it");
      }
      return;
    }
    Election election = event.getElection();
    long token = event.getToken();
    ExecutorService executor = executor();
    if (executor == null) {
      logger.debug(
          "Not looking for missed firings of " + tags(mine) + ": the application is closing");
      return;
    }
    executor.execute(
        () -> {
          Optional<Leadership> term = election.leadership();
          if (term.isEmpty() || term.get().token() != token) {
            if (logger.isDebugEnabled()) {
              logger.debug(
                  "Not looking for missed firings of "
                      + tags(mine)
                      + ": term "
                      + token
                      + " of office '"
                      + event.getOffice()
                      + "' ended before the look began");
            }
            return;
          }
          for (LeaderOnlyJob job : mine) {
            recoverOnce(term.get(), job);
          }
        });
  }

  /**
   * Looks for the missed firings of {@code job} once per term: under the job's lock, so that a
   * firing of the term that comes meanwhile waits until the missed one ran.
   */
  private void recoverOnce(Leadership term, LeaderOnlyJob job) {
    synchronized (job) {
      if (job.examine(term.token())) {
        new MisfireRecovery(this.records.get(), this.clock.get(), this.meters, this)
            .recover(term, job);
      }
    }
  }

  /** Runs {@code claim}, a missed firing of {@code job} claimed by the recovery, on its bean. */
  void runMissed(LeaderOnlyJob job, Leadership term, JobRecords.Versioned claim) {
    Object bean = job.bean();
    if (bean == null) {
      logger.warn(
          "Missed firing of "
              + job.tag()
              + " (firing "
              + claim.record().scheduled()
              + ") claimed in office '"
              + term.office()
              + "' but not run: no bean of this application has the method");
      return;
    }
    job.recovered(term.token(), claim);
    PRECLAIMED.set(new JobFiring(this.records, this.clock, job, term, claim));
    try {
      Method method = job.method();
      ReflectionUtils.makeAccessible(method);
      method.invoke(bean);
    } catch (InvocationTargetException ex) {
      logger.warn("Missed firing of " + job.tag() + " failed", ex.getTargetException());
    } catch (IllegalAccessException ex) {
      logger.warn("Missed firing of " + job.tag() + " could not be run", ex);
    } finally {
      PRECLAIMED.remove();
    }
  }

  private static List<String> tags(Collection<LeaderOnlyJob> jobs) {
    List<String> tags = new ArrayList<>();
    for (LeaderOnlyJob job : jobs) {
      tags.add(job.tag());
    }
    return tags;
  }

  private List<LeaderOnlyJob> jobsOf(String office) {
    String defaultOffice = this.elections.get().defaultOffice().orElse("");
    List<LeaderOnlyJob> mine = new ArrayList<>();
    for (LeaderOnlyJob job : this.jobs.values()) {
      String of = job.office().isEmpty() ? defaultOffice : job.office();
      if (of.equals(office) && job.scheduled()) {
        mine.add(job);
      }
    }
    return mine;
  }

  private @Nullable ExecutorService executor() {
    synchronized (this.lock) {
      if (this.closed) {
        return null;
      }
      if (this.recovery == null) {
        this.recovery =
            Executors.newSingleThreadExecutor(
                runnable -> {
                  Thread thread = new Thread(runnable, "conch-misfire");
                  thread.setDaemon(true);
                  return thread;
                });
      }
      return this.recovery;
    }
  }

  /** Stops the recovery thread; a missed firing running now is interrupted. */
  @Override
  public void destroy() {
    synchronized (this.lock) {
      this.closed = true;
      if (this.recovery != null) {
        this.recovery.shutdownNow();
      }
    }
  }
}
