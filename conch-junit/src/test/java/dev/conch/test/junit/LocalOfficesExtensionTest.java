package dev.conch.test.junit;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatIllegalStateException;

import dev.conch.Election;
import dev.conch.ElectionEvent;
import dev.conch.Holder;
import dev.conch.Leadership;
import dev.conch.LeadershipHandler;
import dev.conch.LossReason;
import dev.conch.State;
import dev.conch.local.LocalOffices;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;

/** What a user of conch-core scripts with the extension, seen by hooks and listeners. */
@Timeout(30)
class LocalOfficesExtensionTest {

  @RegisterExtension final LocalOfficesExtension offices = new LocalOfficesExtension();

  @Test
  void grantRevokeExpireAndFailedRenewalReachTheHooksAndListeners() {
    List<String> seen = new CopyOnWriteArrayList<>();
    Election a = this.offices.candidate("billing", "a");
    a.addHandler(
        new LeadershipHandler() {
          @Override
          public void acquired(Leadership leadership) {
            seen.add("acquired " + leadership.token());
          }

          @Override
          public void lost(Leadership leadership, LossReason reason) {
            seen.add("lost " + leadership.token() + " " + reason);
          }
        });
    a.addListener(
        event -> {
          if (event instanceof ElectionEvent.Lost lost) {
            seen.add("event " + lost.reason());
          }
        });
    Holder first = this.offices.awaitLeader("billing", "a");
    Election b = this.offices.candidate("billing", "b");
    this.offices.await(() -> b.state() == State.FOLLOWING, "b to follow");
    this.offices.store().grant("billing", "b");
    Holder second = this.offices.awaitLeader("billing", "b");
    assertThat(second.rev()).isGreaterThan(first.rev());
    // Each loser campaigns again after a random back-off: the next step waits until it is in line,
    // or the two candidates would race for the office once it is free.
    this.offices.await(() -> a.state() == State.FOLLOWING, "a to wait in line");
    this.offices.store().revoke("billing");
    this.offices.awaitLeader("billing", "a");
    this.offices.await(() -> b.state() == State.FOLLOWING, "b to wait in line");
    this.offices.store().failRenewal("billing");
    this.offices.awaitLeader("billing", "b");
    // a campaigns again after a back-off: it can be granted once it waits in the queue.
    this.offices.await(() -> this.offices.store().grant("billing", "a"), "a to wait in line");
    this.offices.awaitLeader("billing", "a");
    this.offices.store().expire("billing");
    this.offices.await(() -> seen.contains("event LEASE_EXPIRED"), "a's loss to be delivered");
    assertThat(seen)
        .containsSubsequence(
            "lost " + first.rev() + " KEY_DELETED",
            "event KEY_DELETED",
            "event RENEWAL_FAILED",
            "event LEASE_EXPIRED");
    assertThat(seen).anyMatch(line -> line.endsWith("RENEWAL_FAILED") && line.startsWith("lost"));
  }

  @Test
  void parameterIsTheStoreOfTheRunningTest(LocalOffices store) {
    assertThat(store).isSameAs(this.offices.store());
    Election a = this.offices.candidate("reports", "a");
    this.offices.awaitLeader("reports", "a");
    assertThat(a.guardedPut("/reports/last", "done")).isTrue();
    assertThat(store.value("/reports/last")).contains("done");
  }

  @Test
  void storeOutsideATestSaysHowToUseTheExtension() {
    assertThatIllegalStateException()
        .isThrownBy(() -> new LocalOfficesExtension().store())
        .withMessageContaining("@RegisterExtension");
  }
}
