package dev.conch.spring.boot.autoconfigure;

import dev.conch.Leadership;
import dev.conch.LeadershipHandler;
import dev.conch.LossReason;
import java.time.Duration;
import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.boot.availability.ApplicationAvailability;
import org.springframework.boot.availability.AvailabilityChangeEvent;
import org.springframework.boot.availability.ReadinessState;
import org.springframework.context.ApplicationEventPublisher;
import org.springframework.context.ApplicationListener;
import org.springframework.core.Ordered;

/**
 * Readiness that follows the leadership of the default office ({@code
 * conch.health.readiness-leader=true}), published as Boot's own {@link AvailabilityChangeEvent}s:
 * {@link ReadinessState#ACCEPTING_TRAFFIC} only while the application accepts traffic and this
 * instance leads, {@link ReadinessState#REFUSING_TRAFFIC} while the application accepts traffic and
 * this instance does not lead. The application's own refusals are never overridden.
 *
 * <p>It is the last handler of the office, so readiness comes after every acquire hook succeeded
 * and goes before any lose hook runs; handlers are never dropped, as events may be. When the
 * application declares itself ready (Boot does once it has started) while this instance follows,
 * the refusal is published at once, after Boot's availability bean has recorded the readiness.
 */
final class LeaderReadiness
    implements LeadershipHandler, ApplicationListener<AvailabilityChangeEvent<?>>, Ordered {

  private static final Log logger = LogFactory.getLog(LeaderReadiness.class);

  /** How long a late refusal waits for Boot's availability bean to record the readiness. */
  private static final Duration RECORDING_TIMEOUT = Duration.ofSeconds(5);

  private final ApplicationEventPublisher publisher;

  private final ObjectProvider<ApplicationAvailability> availability;

  // Guarded by this: what the application itself declares, and whether this instance leads.
  private boolean applicationAccepts;

  private boolean leading;

  LeaderReadiness(
      ApplicationEventPublisher publisher, ObjectProvider<ApplicationAvailability> availability) {
    this.publisher = publisher;
    this.availability = availability;
  }

  @Override
  public synchronized void acquired(Leadership leadership) {
    this.leading = true;
    follow();
  }

  @Override
  public synchronized void lost(Leadership leadership, LossReason reason) {
    this.leading = false;
    follow();
  }

  @Override
  public void onApplicationEvent(AvailabilityChangeEvent<?> event) {
    if (event.getSource() == this || !(event.getState() instanceof ReadinessState state)) {
      return;
    }
    synchronized (this) {
      this.applicationAccepts = state == ReadinessState.ACCEPTING_TRAFFIC;
      if (!this.applicationAccepts || this.leading) {
        return;
      }
      ApplicationAvailability recorder = this.availability.getIfAvailable();
      if (recorder == null || recorder.getLastChangeEvent(ReadinessState.class) == event) {
        // Recorded already: the refusal published now is the last word.
        publish(ReadinessState.REFUSING_TRAFFIC);
        return;
      }
    }
    // The availability bean hears of the event after this listener: refuse once it has.
    Thread late = new Thread(() -> refuseAfterRecorded(event), "conch-readiness");
    late.setDaemon(true);
    late.start();
  }

  private void refuseAfterRecorded(AvailabilityChangeEvent<?> event) {
    ApplicationAvailability recorder = this.availability.getObject();
    long deadline = System.nanoTime() + RECORDING_TIMEOUT.toNanos();
    while (recorder.getLastChangeEvent(ReadinessState.class) != event) {
      if (System.nanoTime() - deadline > 0) {
        logger.warn("Readiness " + event.getState() + " was not recorded in time");
        break;
      }
      try {
        Thread.sleep(5);
      } catch (InterruptedException ex) {
        Thread.currentThread().interrupt();
        return;
      }
    }
    synchronized (this) {
      follow();
    }
  }

  /** Publishes what leadership makes of the application's readiness; guarded by this. */
  private void follow() {
    if (!this.applicationAccepts) {
      return;
    }
    ReadinessState wanted =
        this.leading ? ReadinessState.ACCEPTING_TRAFFIC : ReadinessState.REFUSING_TRAFFIC;
    ApplicationAvailability recorder = this.availability.getIfAvailable();
    if (recorder == null || recorder.getReadinessState() != wanted) {
      publish(wanted);
    }
  }

  private void publish(ReadinessState state) {
    AvailabilityChangeEvent.publish(this.publisher, this, state);
  }

  /** After Boot's availability bean, which has no order: its record is then the one to correct. */
  @Override
  public int getOrder() {
    return Ordered.LOWEST_PRECEDENCE;
  }

  @Override
  public String toString() {
    return "LeaderReadiness[leading=" + this.leading + "]";
  }
}
