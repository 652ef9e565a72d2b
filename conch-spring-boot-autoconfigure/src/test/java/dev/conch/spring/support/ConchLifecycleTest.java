package dev.conch.spring.support;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.conch.Election;
import dev.conch.State;
import dev.conch.spring.Elections;
import dev.conch.spring.LeadershipLostEvent;
import dev.conch.spring.OnLeadership;
import dev.conch.spring.OnLeadership.Transition;
import dev.conch.spring.boot.autoconfigure.ConchAutoConfiguration;
import dev.conch.spring.boot.autoconfigure.ConchEtcdTest;
import dev.conch.spring.boot.autoconfigure.Recorder;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.BrokenBarrierException;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.CyclicBarrier;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.autoconfigure.context.LifecycleAutoConfiguration;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.context.SmartLifecycle;
import org.springframework.context.event.EventListener;

/**
 * Shutdown of the offices, on in-memory offices: every office is resigned at once, and shutdown
 * waits for them no longer than {@code spring.lifecycle.timeout-per-shutdown-phase}. That lose
 * hooks run before the etcd client closes is tested against etcd in {@link ConchEtcdTest}.
 */
@Timeout(60)
class ConchLifecycleTest {

  private static final Duration WAIT = Duration.ofSeconds(10);

  private final ApplicationContextRunner contextRunner =
      new ApplicationContextRunner()
          .withConfiguration(
              AutoConfigurations.of(ConchAutoConfiguration.class, LifecycleAutoConfiguration.class))
          .withPropertyValues(
              "conch.standalone=true",
              "conch.office=web",
              "conch.offices.billing.hook-timeout=30s",
              "conch.hook-timeout=30s")
          .withBean(Recorder.class);

  @Test
  void everyOfficeIsResignedAtOnce() {
    this.contextRunner
        .withBean(MeetingLoseHooks.class)
        .run(
            context -> {
              Recorder recorder = context.getBean(Recorder.class);
              awaitLeading(context.getBean(Elections.class).all());
              context.close();
              // Each lose hook waits for the other: resigned one after the other, neither met.
              assertThat(recorder.lines())
                  .filteredOn(line -> line.startsWith("lose"))
                  .containsExactlyInAnyOrder("lose web met", "lose billing met");
            });
  }

  @Test
  void laterShutdownPhasesWaitForTheOfficesNoLongerThanTheShutdownPhaseTimeout() {
    this.contextRunner
        .withPropertyValues("spring.lifecycle.timeout-per-shutdown-phase=1s")
        .withBean(SlowLoseHook.class)
        .withBean(LaterPhase.class)
        .run(
            context -> {
              SlowLoseHook hook = context.getBean(SlowLoseHook.class);
              Recorder recorder = context.getBean(Recorder.class);
              awaitLeading(context.getBean(Elections.class).all());
              context.close();
              // The phase after conch's (the web server's graceful shutdown, in an application)
              // began while the lose hook still ran; it released the hook.
              assertThat(recorder.lines()).contains("later phase stopped, lose hook running");
              // The elections were closed only after their lose hooks ended.
              assertThat(hook.finished.getCount()).isZero();
            });
  }

  @Test
  void shutdownDuringAResignUnderWayWaitsForItsLoseHookAndItsEvent() {
    this.contextRunner
        .withBean(TimedLoseHook.class)
        .withBean(SlowLossListener.class)
        .withBean(NextPhase.class)
        .run(
            context -> {
              TimedLoseHook hook = context.getBean(TimedLoseHook.class);
              Recorder recorder = context.getBean(Recorder.class);
              awaitLeading(context.getBean(Elections.class).all());
              Election billing = context.getBean(Elections.class).get("billing");
              billing.resignAsync();
              assertThat(hook.started.await(WAIT.toMillis(), TimeUnit.MILLISECONDS)).isTrue();
              // The term is over, its lose hook still runs: state() says so already.
              assertThat(billing.state()).isEqualTo(State.RESIGNED);
              context.close();
              assertThat(hook.finished.getCount()).isZero();
              // The listener heard the resignation before the next shutdown phase began.
              assertThat(recorder.lines())
                  .containsSubsequence("heard billing RESIGNED", "next phase stopped");
            });
  }

  @Test
  void resigningTakesNoThreadPerOffice() {
    this.contextRunner
        .withBean(ThreadsSeenByLoseHooks.class)
        .run(
            context -> {
              ThreadsSeenByLoseHooks hooks = context.getBean(ThreadsSeenByLoseHooks.class);
              awaitLeading(context.getBean(Elections.class).all());
              context.close();
              // A resignation used to block a thread of its own ("conch-resign-<office>") until
              // the lose hooks had run; with a thousand offices, that was a thousand threads.
              assertThat(hooks.seen).containsExactlyInAnyOrder("web: []", "billing: []");
            });
  }

  private static void awaitLeading(List<Election> elections) {
    assertThat(elections).hasSize(2);
    await().atMost(WAIT).until(() -> elections.stream().allMatch(Election::isLeader));
  }

  /** A lose hook per office, each waiting (a while) for the other to run as well. */
  static class MeetingLoseHooks {

    private final CyclicBarrier meeting = new CyclicBarrier(2);

    private final Recorder recorder;

    MeetingLoseHooks(Recorder recorder) {
      this.recorder = recorder;
    }

    @OnLeadership(on = Transition.LOST)
    void web() {
      meet("web");
    }

    @OnLeadership(office = "billing", on = Transition.LOST)
    void billing() {
      meet("billing");
    }

    private void meet(String office) {
      try {
        this.meeting.await(5, TimeUnit.SECONDS);
        this.recorder.add("lose " + office + " met");
      } catch (TimeoutException | BrokenBarrierException ex) {
        this.recorder.add("lose " + office + " alone");
      } catch (InterruptedException ex) {
        Thread.currentThread().interrupt();
      }
    }
  }

  /** Lose hooks that record the resigning threads alive while they run. */
  static class ThreadsSeenByLoseHooks {

    final List<String> seen = new java.util.concurrent.CopyOnWriteArrayList<>();

    @OnLeadership(on = Transition.LOST)
    void web() {
      record("web");
    }

    @OnLeadership(office = "billing", on = Transition.LOST)
    void billing() {
      record("billing");
    }

    private void record(String office) {
      this.seen.add(
          office
              + ": "
              + Thread.getAllStackTraces().keySet().stream()
                  .map(Thread::getName)
                  .filter(name -> name.startsWith("conch-resign"))
                  .sorted()
                  .toList());
    }
  }

  /** A lose hook of the billing office that runs until released (at most 20 s). */
  static class SlowLoseHook {

    final CountDownLatch release = new CountDownLatch(1);

    final CountDownLatch finished = new CountDownLatch(1);

    @OnLeadership(office = "billing", on = Transition.LOST)
    void lost() throws InterruptedException {
      try {
        this.release.await(20, TimeUnit.SECONDS);
      } finally {
        this.finished.countDown();
      }
    }
  }

  /** A lose hook of the billing office that works for a while (300 ms). */
  static class TimedLoseHook {

    final CountDownLatch started = new CountDownLatch(1);

    final CountDownLatch finished = new CountDownLatch(1);

    @OnLeadership(office = "billing", on = Transition.LOST)
    void lost() throws InterruptedException {
      this.started.countDown();
      try {
        Thread.sleep(300); // simulates stopping work, not a wait for a state
      } finally {
        this.finished.countDown();
      }
    }
  }

  /** A listener that takes a while (500 ms) over a loss, then records it. */
  static class SlowLossListener {

    private final Recorder recorder;

    SlowLossListener(Recorder recorder) {
      this.recorder = recorder;
    }

    @EventListener
    void on(LeadershipLostEvent event) throws InterruptedException {
      Thread.sleep(500); // simulates a listener's work, not a wait for a state
      this.recorder.add("heard " + event.getOffice() + " " + event.getReason());
    }
  }

  /** A lifecycle that stops after conch's, as the web server's graceful shutdown does. */
  static class NextPhase implements SmartLifecycle {

    private final Recorder recorder;

    private volatile boolean running;

    NextPhase(Recorder recorder) {
      this.recorder = recorder;
    }

    @Override
    public void start() {
      this.running = true;
    }

    @Override
    public void stop() {
      this.running = false;
      this.recorder.add("next phase stopped");
    }

    @Override
    public boolean isRunning() {
      return this.running;
    }

    @Override
    public int getPhase() {
      return ConchLifecycle.PHASE - 512;
    }
  }

  /**
   * A lifecycle that stops after conch's, as the web server's graceful shutdown does: records
   * whether the lose hook still runs, then releases it.
   */
  static class LaterPhase implements SmartLifecycle {

    private final Recorder recorder;

    private final SlowLoseHook hook;

    private volatile boolean running;

    LaterPhase(Recorder recorder, SlowLoseHook hook) {
      this.recorder = recorder;
      this.hook = hook;
    }

    @Override
    public void start() {
      this.running = true;
    }

    @Override
    public void stop() {
      this.running = false;
      boolean hookRunning = this.hook.finished.getCount() > 0;
      this.recorder.add("later phase stopped, lose hook " + (hookRunning ? "running" : "done"));
      this.hook.release.countDown();
    }

    @Override
    public boolean isRunning() {
      return this.running;
    }

    @Override
    public int getPhase() {
      return ConchLifecycle.PHASE - 512;
    }
  }
}
