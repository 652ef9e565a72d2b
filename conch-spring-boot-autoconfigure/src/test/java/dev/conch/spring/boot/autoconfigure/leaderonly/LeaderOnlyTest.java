package dev.conch.spring.boot.autoconfigure.leaderonly;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;
import static org.awaitility.Awaitility.await;

import dev.conch.Election;
import dev.conch.ElectionOptions;
import dev.conch.Leadership;
import dev.conch.NotLeaderException;
import dev.conch.local.LocalOffices;
import dev.conch.spring.Elections;
import dev.conch.spring.boot.autoconfigure.ConchAutoConfiguration;
import dev.conch.spring.boot.autoconfigure.ConchTestSupport;
import dev.conch.spring.boot.autoconfigure.InvalidMethodFailureAnalyzer;
import dev.conch.spring.boot.autoconfigure.observation.ConchObservationAutoConfiguration;
import dev.conch.spring.leaderonly.CurrentLeadership;
import dev.conch.spring.leaderonly.InvalidLeaderOnlyMethodException;
import dev.conch.spring.leaderonly.LeaderOnly;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.springframework.aop.support.AopUtils;
import org.springframework.aot.hint.RuntimeHints;
import org.springframework.aot.hint.annotation.ReflectiveRuntimeHintsRegistrar;
import org.springframework.aot.hint.predicate.RuntimeHintsPredicates;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.diagnostics.FailureAnalysis;
import org.springframework.boot.micrometer.metrics.autoconfigure.MetricsAutoConfiguration;
import org.springframework.boot.micrometer.observation.autoconfigure.ObservationAutoConfiguration;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.cache.annotation.Cacheable;
import org.springframework.cache.annotation.EnableCaching;
import org.springframework.cache.concurrent.ConcurrentMapCacheManager;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.scheduling.annotation.Async;
import org.springframework.scheduling.annotation.EnableScheduling;
import org.springframework.scheduling.annotation.Scheduled;

/**
 * {@link LeaderOnly @LeaderOnly} methods on the in-memory offices, where a test can decide who
 * leads: which calls run, which are skipped and counted, what a term that ends mid-run looks like,
 * and which methods are refused. Scheduled jobs on two instances against real etcd are in {@link
 * LeaderOnlyEtcdTest}.
 */
@Timeout(60)
class LeaderOnlyTest {

  private static final Duration WAIT = Duration.ofSeconds(10);

  private final LocalOffices offices = new LocalOffices();

  private final ApplicationContextRunner contextRunner =
      new ApplicationContextRunner()
          .withConfiguration(
              AutoConfigurations.of(
                  ObservationAutoConfiguration.class,
                  MetricsAutoConfiguration.class,
                  ConchObservationAutoConfiguration.class,
                  ConchAutoConfiguration.class,
                  LeaderOnlyAutoConfiguration.class))
          .withPropertyValues("conch.standalone=true", "spring.application.name=app")
          .withBean(LocalOffices.class, () -> this.offices)
          .withBean(MeterRegistry.class, SimpleMeterRegistry::new);

  @Test
  void methodRunsOnlyWhileThisInstanceLeadsAndSkipsAreCounted() throws Exception {
    try (Election other = otherCandidate("app")) {
      this.contextRunner
          .withBean(Jobs.class)
          .run(
              context -> {
                Jobs jobs = context.getBean(Jobs.class);
                Election election = context.getBean(Election.class);
                await().atMost(WAIT).until(() -> this.offices.leader("app").isPresent());
                assertThat(jobs.report()).isNull();
                assertThat(jobs.count()).isZero();
                assertThat(jobs.runs()).isEmpty();
                other.resign();
                assertThat(election.awaitLeadership(WAIT)).isTrue();
                assertThat(jobs.report()).isEqualTo("ran");
                assertThat(jobs.count()).isEqualTo(1);
                assertThat(jobs.runs())
                    .singleElement()
                    .satisfies(
                        term -> assertThat(term.token()).isEqualTo(election.token().orElseThrow()));
                MeterRegistry meters = context.getBean(MeterRegistry.class);
                assertThat(counted(meters, "app", "report", "SKIPPED")).isEqualTo(1);
                assertThat(counted(meters, "app", "report", "SUCCESS")).isEqualTo(1);
                assertThat(counted(meters, "app", "count", "SKIPPED")).isEqualTo(1);
              });
    }
  }

  @Test
  void namedOfficeIsCampaignedForOnDemandOnTheSameStore() {
    this.contextRunner
        .withBean(Jobs.class)
        .withPropertyValues("jobs.office=invoices")
        .run(
            context -> {
              Elections elections = context.getBean(Elections.class);
              assertThat(elections.offices())
                  .containsExactlyInAnyOrder("app", "reports", "invoices");
              assertThat(elections.get("reports").awaitLeadership(WAIT)).isTrue();
              assertThat(elections.get("invoices").awaitLeadership(WAIT)).isTrue();
              Jobs jobs = context.getBean(Jobs.class);
              assertThat(jobs.reports()).isEqualTo("reports");
              assertThat(jobs.invoices()).contains("invoices");
              assertThat(this.offices.leader("invoices").orElseThrow().id())
                  .isEqualTo(elections.get("invoices").candidate().id());
            });
  }

  @Test
  void officeHeldByAnotherSkipsOnlyItsOwnMethods() throws Exception {
    try (Election other = otherCandidate("reports")) {
      this.contextRunner
          .withBean(Jobs.class)
          .withPropertyValues("jobs.office=invoices")
          .run(
              context -> {
                Elections elections = context.getBean(Elections.class);
                assertThat(elections.get("invoices").awaitLeadership(WAIT)).isTrue();
                Jobs jobs = context.getBean(Jobs.class);
                assertThat(jobs.reports()).isNull();
                assertThat(jobs.invoices()).contains("invoices");
              });
    }
  }

  @Test
  void termWhoseLeaseIsGoneInterruptsTheRunningCallAndItsGuardedWritesFail() {
    this.contextRunner
        .withBean(LongJob.class)
        .run(
            context -> {
              Election election = context.getBean(Election.class);
              assertThat(election.awaitLeadership(WAIT)).isTrue();
              LongJob job = context.getBean(LongJob.class);
              ExecutorService caller = Executors.newSingleThreadExecutor();
              try {
                Future<String> result = caller.submit(job::run);
                assertThat(job.started().await(10, TimeUnit.SECONDS)).isTrue();
                long token = job.term().token();
                assertThat(job.term().isValid()).isTrue();
                this.offices.revoke("app");
                // The only candidate wins again at once, with a new term: it must not count.
                await()
                    .atMost(WAIT)
                    .until(
                        () ->
                            election.token().isPresent() && election.token().getAsLong() != token);
                job.proceed().countDown();
                // The lease is gone, a successor may lead: the stop interrupted the call at once.
                assertThat(result.get(10, TimeUnit.SECONDS))
                    .isEqualTo("interrupted valid=false guardedPut=NotLeaderException");
                assertThat(this.offices.value("/jobs/first")).contains("done");
                assertThat(this.offices.value("/jobs/second")).isEmpty();
              } finally {
                caller.shutdownNow();
              }
            });
  }

  @Test
  void currentLeadershipOutsideALeaderOnlyMethodSaysSo() {
    assertThat(CurrentLeadership.find()).isEmpty();
    assertThatExceptionOfType(IllegalStateException.class)
        .isThrownBy(CurrentLeadership::get)
        .withMessageContaining("No @LeaderOnly method runs on thread");
    assertThatExceptionOfType(IllegalStateException.class)
        .isThrownBy(() -> CurrentLeadership.guardedPut("/k", "v"))
        .withMessageContaining("No @LeaderOnly method runs on thread");
  }

  @Test
  void scheduledFixedRateAndCronMethodsRunThroughTheGuard() {
    this.contextRunner
        .withUserConfiguration(SchedulingConfiguration.class)
        .run(
            context -> {
              ScheduledJobs jobs = context.getBean(ScheduledJobs.class);
              assertThat(AopUtils.isAopProxy(jobs)).isTrue();
              await()
                  .atMost(WAIT)
                  .until(() -> jobs.fixedRate().size() >= 2 && !jobs.cron().isEmpty());
              long token = context.getBean(Election.class).token().orElseThrow();
              assertThat(jobs.fixedRate()).allSatisfy(t -> assertThat(t).isEqualTo(token));
              assertThat(jobs.cron()).allSatisfy(t -> assertThat(t).isEqualTo(token));
            });
  }

  @Test
  void worksOnABeanThatIsAlreadyProxied() {
    this.contextRunner
        .withUserConfiguration(CachingConfiguration.class)
        .run(
            context -> {
              CachedJob job = context.getBean(CachedJob.class);
              assertThat(context.getBean(Election.class).awaitLeadership(WAIT)).isTrue();
              assertThat(job.price("a")).isEqualTo(1);
              assertThat(job.price("a")).isEqualTo(1);
              assertThat(job.calls()).hasValue(1);
              assertThat(job.run()).isTrue();
            });
  }

  @Test
  void asyncMethodIsRefusedWithAnExplanation() {
    this.contextRunner
        .withBean(AsyncJob.class)
        .run(
            context -> {
              assertThat(context).hasFailed();
              FailureAnalysis analysis =
                  ConchTestSupport.analyze(context, new InvalidMethodFailureAnalyzer());
              assertThat(analysis.getDescription())
                  .contains("@LeaderOnly method AsyncJob.run()", "is also @Async");
              assertThat(analysis.getAction()).contains("Remove @Async");
            });
  }

  @Test
  void finalMethodIsRefused() {
    this.contextRunner
        .withBean(FinalJob.class)
        .run(
            context ->
                assertThat(context)
                    .hasFailed()
                    .getFailure()
                    .rootCause()
                    .isInstanceOf(InvalidLeaderOnlyMethodException.class)
                    .hasMessageContaining("FinalJob.run() is final"));
  }

  @Test
  void defaultOfficeIsRequired() {
    new ApplicationContextRunner()
        .withConfiguration(
            AutoConfigurations.of(ConchAutoConfiguration.class, LeaderOnlyAutoConfiguration.class))
        .withPropertyValues("conch.standalone=true", "conch.offices.other.stop-timeout=1s")
        .withBean(Jobs.class)
        .withPropertyValues("jobs.office=invoices")
        .run(
            context ->
                assertThat(context)
                    .hasFailed()
                    .getFailure()
                    .hasStackTraceContaining("the office of @LeaderOnly")
                    .hasStackTraceContaining("set conch.office or spring.application.name"));
  }

  @Test
  void annotatedMethodsAreRegisteredForReflectionInANativeImage() throws Exception {
    RuntimeHints hints = new RuntimeHints();
    new ReflectiveRuntimeHintsRegistrar().registerRuntimeHints(hints, Jobs.class);
    assertThat(
            RuntimeHintsPredicates.reflection()
                .onMethodInvocation(Jobs.class.getDeclaredMethod("report")))
        .accepts(hints);
  }

  private Election otherCandidate(String office) throws InterruptedException {
    Election other =
        this.offices.election(ElectionOptions.builder(office).candidateId("other").build());
    other.start();
    assertThat(other.awaitLeadership(WAIT)).isTrue();
    return other;
  }

  /** Calls counted by the timer Boot's meter handler makes of each call's observation. */
  private static double counted(
      MeterRegistry meters, String office, String method, String outcome) {
    var timer =
        meters
            .find("conch.leaderonly")
            .tags("conch.office", office, "code.function", method, "outcome", outcome)
            .tag("code.namespace", Jobs.class.getCanonicalName())
            .timer();
    return (timer != null) ? timer.count() : 0;
  }

  static class Jobs {

    private final List<Leadership> runs = new CopyOnWriteArrayList<>();

    /** What the proxy's callers see: the target's list (a proxy's own fields are empty). */
    List<Leadership> runs() {
      return this.runs;
    }

    @LeaderOnly
    String report() {
      this.runs.add(CurrentLeadership.get());
      return "ran";
    }

    @LeaderOnly
    int count() {
      return this.runs.size();
    }

    @LeaderOnly(office = "reports")
    String reports() {
      return CurrentLeadership.get().office();
    }

    @LeaderOnly("${jobs.office}")
    Optional<String> invoices() {
      return Optional.of(CurrentLeadership.get().office());
    }
  }

  static class LongJob {

    private final CountDownLatch started = new CountDownLatch(1);

    private final CountDownLatch proceed = new CountDownLatch(1);

    private volatile Leadership term;

    CountDownLatch started() {
      return this.started;
    }

    CountDownLatch proceed() {
      return this.proceed;
    }

    Leadership term() {
      return this.term;
    }

    @LeaderOnly
    public String run() throws InterruptedException {
      this.term = CurrentLeadership.get();
      CurrentLeadership.guardedPut("/jobs/first", "done");
      this.started.countDown();
      String outcome = "";
      try {
        this.proceed.await();
      } catch (InterruptedException ex) {
        outcome = "interrupted ";
      }
      outcome += "valid=" + this.term.isValid();
      try {
        CurrentLeadership.guardedPut("/jobs/second", "done");
        return outcome + " guardedPut=true";
      } catch (NotLeaderException ex) {
        return outcome + " guardedPut=NotLeaderException";
      }
    }
  }

  @Configuration(proxyBeanMethods = false)
  @EnableScheduling
  static class SchedulingConfiguration {

    @Bean
    ScheduledJobs scheduledJobs() {
      return new ScheduledJobs();
    }
  }

  static class ScheduledJobs {

    private final List<Long> fixedRate = new CopyOnWriteArrayList<>();

    private final List<Long> cron = new CopyOnWriteArrayList<>();

    List<Long> fixedRate() {
      return this.fixedRate;
    }

    List<Long> cron() {
      return this.cron;
    }

    @Scheduled(fixedRate = 50)
    @LeaderOnly
    void everyFiftyMillis() {
      this.fixedRate.add(CurrentLeadership.get().token());
    }

    @Scheduled(cron = "* * * * * *")
    @LeaderOnly
    void everySecond() {
      this.cron.add(CurrentLeadership.get().token());
    }
  }

  @Configuration(proxyBeanMethods = false)
  @EnableCaching
  static class CachingConfiguration {

    @Bean
    ConcurrentMapCacheManager cacheManager() {
      return new ConcurrentMapCacheManager("prices");
    }

    @Bean
    CachedJob cachedJob() {
      return new CachedJob();
    }
  }

  static class CachedJob {

    private final AtomicInteger calls = new AtomicInteger();

    AtomicInteger calls() {
      return this.calls;
    }

    @Cacheable("prices")
    public int price(String item) {
      return this.calls.incrementAndGet();
    }

    @LeaderOnly
    public boolean run() {
      return CurrentLeadership.find().isPresent();
    }
  }

  static class AsyncJob {

    @Async
    @LeaderOnly
    public void run() {}
  }

  static class FinalJob {

    @LeaderOnly
    public final void run() {}
  }
}
