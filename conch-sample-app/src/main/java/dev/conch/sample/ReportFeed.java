package dev.conch.sample;

import dev.conch.Leadership;
import dev.conch.spring.LeaderLifecycle;
import dev.conch.spring.leaderonly.CurrentLeadership;
import dev.conch.spring.leaderonly.LeaderOnly;
import dev.conch.spring.leaderonly.Misfire;
import java.util.concurrent.atomic.AtomicLong;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.boot.autoconfigure.condition.ConditionalOnProperty;
import org.springframework.context.SmartLifecycle;
import org.springframework.scheduling.annotation.Scheduled;
import org.springframework.stereotype.Component;

/**
 * The two shortest ways to run something on the leader only: a lifecycle bean bound to the default
 * office (a stand-in for a message listener container: it is not started with the context, it is
 * started when this instance wins and stopped when it stops leading), and a {@code @LeaderOnly}
 * scheduled method that is skipped on the other instances.
 */
@Component
// Off with conch (conch.enabled=false): the same app without leader election, which the benchmark
// uses to measure what the starter adds to start-up.
@ConditionalOnProperty(name = "conch.enabled", havingValue = "true", matchIfMissing = true)
@LeaderLifecycle
public class ReportFeed implements SmartLifecycle {

  private static final Logger log = LoggerFactory.getLogger(ReportFeed.class);

  private final AtomicLong ticks = new AtomicLong();

  private volatile boolean running;

  @Override
  public void start() {
    this.running = true;
    log.info("Report feed started: this instance leads");
  }

  @Override
  public void stop() {
    this.running = false;
    log.info("Report feed stopped: this instance no longer leads");
  }

  @Override
  public boolean isRunning() {
    return this.running;
  }

  /** Not with the context: conch starts it when this instance wins the office. */
  @Override
  public boolean isAutoStartup() {
    return false;
  }

  /**
   * Runs on the leader only; a term that ends mid-run shows in {@code term.isValid()}. A tick that
   * was due while the office was vacant (the leader crashed) runs once on the next leader.
   */
  @Scheduled(fixedDelayString = "${sample.report.interval}")
  @LeaderOnly(misfire = Misfire.RUN_ONCE)
  public void tick() {
    Leadership term = CurrentLeadership.get();
    if (term.isValid()) {
      log.debug("Feed tick {} with token {}", this.ticks.incrementAndGet(), term.token());
    }
  }

  /** How many ticks ran here. */
  public long ticks() {
    return this.ticks.get();
  }
}
