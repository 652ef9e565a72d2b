package dev.conch.spring.support;

import static org.assertj.core.api.Assertions.assertThat;

import dev.conch.Election;
import dev.conch.ElectionEvent;
import dev.conch.ElectionOptions;
import dev.conch.LossReason;
import dev.conch.local.LocalOffices;
import dev.conch.spring.CampaigningEvent;
import dev.conch.spring.LeadershipEvent;
import dev.conch.spring.LeadershipLostEvent;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * What the leadership events say that the raw election events said: each campaign, whether it is
 * the first since joining, and the work a term's stop interrupted. conch's meters read these events
 * only.
 */
@Timeout(30)
class ElectionEventPublisherTest {

  private final List<Object> published = new CopyOnWriteArrayList<>();

  @Test
  void eachCampaignIsPublishedAndOnlyTheFirstSinceJoiningSaysJoined() throws Exception {
    try (Election election = election()) {
      ElectionEventPublisher publisher = new ElectionEventPublisher(election, this.published::add);

      publisher.onEvent(new ElectionEvent.Joined("reports"));
      publisher.onEvent(new ElectionEvent.Campaigning("reports"));
      publisher.onEvent(new ElectionEvent.Campaigning("reports"));
      publisher.onEvent(new ElectionEvent.Resigned("reports", 0));
      publisher.onEvent(new ElectionEvent.Joined("reports"));
      publisher.onEvent(new ElectionEvent.Campaigning("reports"));

      assertThat(leadershipEvents())
          .map(CampaigningEvent.class::cast)
          .extracting(CampaigningEvent::isJoined)
          .containsExactly(true, false, true);
    }
  }

  @Test
  void theLostEventOfATermCarriesTheWorkItsStopInterrupted() throws Exception {
    try (Election election = election()) {
      ElectionEventPublisher publisher = new ElectionEventPublisher(election, this.published::add);

      publisher.onEvent(new ElectionEvent.WorkInterrupted("reports", 5, List.of("Jobs.run()")));
      publisher.onEvent(new ElectionEvent.Lost("reports", 5, LossReason.LEASE_EXPIRED));
      publisher.onEvent(new ElectionEvent.Transferred("reports", 6));

      assertThat(leadershipEvents())
          .map(LeadershipLostEvent.class::cast)
          .satisfiesExactly(
              lost -> {
                assertThat(lost.getReason()).isEqualTo(LossReason.LEASE_EXPIRED);
                assertThat(lost.getInterruptedWork()).containsExactly("Jobs.run()");
              },
              transferred -> {
                assertThat(transferred.getReason()).isEqualTo(LossReason.TRANSFERRED);
                assertThat(transferred.getInterruptedWork()).isEmpty();
              });
    }
  }

  private static Election election() {
    return new LocalOffices().election(ElectionOptions.builder("reports").build());
  }

  private List<LeadershipEvent> leadershipEvents() {
    return this.published.stream()
        .filter(LeadershipEvent.class::isInstance)
        .map(LeadershipEvent.class::cast)
        .toList();
  }
}
