package dev.conch.etcd;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.conch.Election;
import dev.conch.ElectionOptions;
import dev.conch.LossReason;
import dev.conch.State;
import dev.conch.TermRecord;
import dev.conch.test.EtcdExtension;
import io.etcd.jetcd.ByteSequence;
import io.etcd.jetcd.Client;
import io.etcd.jetcd.op.Op;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.Predicate;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * The flight recorder on a real etcd: each term is recorded by its holder (its beginning with the
 * win, its end with the release or hand-over that ends it), a term that ended without a word is
 * closed by its successor, and only the last N terms are kept.
 */
@Timeout(120)
class EtcdHistoryTest {

  private static final Duration WAIT = Duration.ofSeconds(20);

  @RegisterExtension static final EtcdExtension etcd = EtcdExtension.members(1);

  private final Etcds etcds = new Etcds();

  @AfterEach
  void close() {
    etcds.close();
  }

  private Election candidate(EtcdSession session, String office, String id) {
    Election election = session.election(ElectionOptions.builder(office).candidateId(id).build());
    etcds.track(election);
    election.start();
    return election;
  }

  private EtcdSession session(SessionOptions options) {
    return etcds.session(etcds.client(etcd.cluster()), options);
  }

  private static List<TermRecord> awaitTerms(Election reader, int closed) {
    return await()
        .atMost(WAIT)
        .until(
            () -> reader.history(100),
            terms -> terms.stream().filter(t -> !t.isOpen()).count() >= closed);
  }

  @Test
  void aResignAndANamedHandOverAreRecordedByTheHolderWithWhoAskedAndToWhom() throws Exception {
    String office = "history-voluntary";
    EtcdSession one = session(SessionOptions.defaults());
    EtcdSession two = session(SessionOptions.defaults());
    Election a = candidate(one, office, "a");
    assertThat(a.awaitLeadership(WAIT)).isTrue();
    long first = a.token().orElseThrow();
    Election b = candidate(two, office, "b");
    await().atMost(WAIT).until(() -> b.state() == State.FOLLOWING);
    await().atMost(WAIT).until(() -> a.history(10).size() == 1);

    a.transfer("b", "an operator asked");
    assertThat(b.awaitLeadership(WAIT)).isTrue();
    long second = b.token().orElseThrow();
    b.resign("by an operator through the actuator endpoint");
    assertThat(a.awaitLeadership(WAIT)).isTrue();
    long third = a.token().orElseThrow();

    List<TermRecord> terms = awaitTerms(a, 2);
    assertThat(terms).extracting(TermRecord::token).containsExactly(first, second, third);
    TermRecord handedOver = terms.get(0);
    assertThat(handedOver.holder().id()).isEqualTo("a");
    assertThat(handedOver.reason()).isEqualTo(LossReason.TRANSFERRED);
    assertThat(handedOver.detail()).isEqualTo("handed to 'b': an operator asked");
    assertThat(handedOver.recordedBy()).isEqualTo("a");
    assertThat(handedOver.ended()).isAfterOrEqualTo(handedOver.holder().since());
    TermRecord resigned = terms.get(1);
    assertThat(resigned.holder().id()).isEqualTo("b");
    assertThat(resigned.reason()).isEqualTo(LossReason.RESIGNED);
    assertThat(resigned.detail()).isEqualTo("by an operator through the actuator endpoint");
    assertThat(resigned.vacantBefore()).isNotNull();
    assertThat(terms.get(2).isOpen()).isTrue();
    assertThat(terms.get(2).holder().id()).isEqualTo("a");
    assertThat(terms.get(2).vacantBefore()).isNotNull().isLessThan(WAIT);
    // Anyone reads it, without a lease.
    EtcdSession reader = session(SessionOptions.defaults());
    assertThat(reader.history(office, 2))
        .extracting(TermRecord::token)
        .containsExactly(second, third);
  }

  @Test
  void aTermThatEndedWithoutAWordIsClosedByItsSuccessorFromWhatItSaw() throws Exception {
    String office = "history-silent";
    Client client = etcds.client(etcd.cluster());
    EtcdSession one =
        etcds.session(client, SessionOptions.defaults().withTtl(Duration.ofSeconds(2)));
    EtcdSession two = session(SessionOptions.defaults());
    Election a = candidate(one, office, "a");
    assertThat(a.awaitLeadership(WAIT)).isTrue();
    long first = a.token().orElseThrow();
    Election b = candidate(two, office, "b");
    await().atMost(WAIT).until(() -> a.history(10).size() == 1);

    // Someone else revokes a's lease: its key goes with it, and a's own release finds it gone.
    Client other = etcds.client(etcd.cluster());
    other.getLeaseClient().revoke(one.leaseId()).get(10, TimeUnit.SECONDS);
    assertThat(b.awaitLeadership(WAIT)).isTrue();

    List<TermRecord> terms = awaitTerms(b, 1);
    TermRecord silent = terms.get(0);
    assertThat(silent.token()).isEqualTo(first);
    assertThat(silent.reason()).isEqualTo(LossReason.LEASE_EXPIRED);
    assertThat(silent.recordedBy()).isEqualTo("b");
    assertThat(silent.detail()).contains("expired").contains("closed by its successor 'b'");
    assertThat(terms.get(1).holder().id()).isEqualTo("b");
  }

  @Test
  void onlyTheLastTermsAreKeptAndADamagedRecordIsSkipped() throws Exception {
    String office = "history-trim";
    EtcdSession session = session(SessionOptions.defaults().withHistoryTerms(3));
    Client client = session.client();
    String prefix = TermHistory.prefix(session.options().metaRoot(), office);
    client
        .getKVClient()
        .put(bytes(prefix + "0000000000000000001"), bytes("not a record"))
        .get(10, TimeUnit.SECONDS);
    Election a = candidate(session, office, "a");
    long last = 0;
    for (int i = 0; i < 5; i++) {
      assertThat(a.awaitLeadership(WAIT)).isTrue();
      last = a.token().orElseThrow();
      long term = last;
      await().atMost(WAIT).until(() -> a.history(10).stream().anyMatch(t -> t.token() == term));
      a.resign("round " + i);
      a.start();
    }
    assertThat(a.awaitLeadership(WAIT)).isTrue();
    long now = a.token().orElseThrow();
    await().atMost(WAIT).until(() -> a.history(100).stream().anyMatch(t -> t.token() == now));

    List<TermRecord> terms = a.history(100);
    // The last three terms and the one under way; the damaged record was trimmed with the oldest.
    assertThat(terms).hasSize(4);
    assertThat(terms.get(2).token()).isEqualTo(last);
    assertThat(terms.get(2).detail()).isEqualTo("round 4");
    assertThat(terms.get(3).token()).isEqualTo(now);
    long stored =
        client.getKVClient().get(bytes(prefix), prefixed()).get(10, TimeUnit.SECONDS).getCount();
    assertThat(stored).isEqualTo(4);
  }

  @Test
  void aRecordThatIsNotConchsIsSkippedWhenRead() throws Exception {
    String office = "history-foreign";
    EtcdSession session = session(SessionOptions.defaults());
    String prefix = TermHistory.prefix(session.options().metaRoot(), office);
    session
        .client()
        .getKVClient()
        .put(bytes(prefix + "0000000000000000002"), bytes("{\"office\":\"elsewhere\"}"))
        .get(10, TimeUnit.SECONDS);
    Election a = candidate(session, office, "a");
    assertThat(a.awaitLeadership(WAIT)).isTrue();
    long token = a.token().orElseThrow();
    await().atMost(WAIT).until(() -> !a.history(10).isEmpty());
    assertThat(a.history(10)).extracting(TermRecord::token).containsExactly(token);
    assertThat(session.history("never-led", 10)).isEmpty();
  }

  /**
   * A release etcd did not answer, then a campaign on the same lease that finds the old key: it
   * deletes the key with the term's end, as the release would have. (It deleted it bare, and the
   * next term closed the old one as key-deleted, seen in the chaos soak after an etcd fault.)
   */
  @Test
  void anOldKeyDeletedByTheNextCampaignOfItsLeaseGoesWithItsTermsEnd() throws Exception {
    String office = "history-unanswered-release";
    AtomicBoolean failed = new AtomicBoolean();
    Client client =
        failingOnce(
            failed,
            txn ->
                txn.thens.stream().anyMatch(op -> op instanceof Op.DeleteOp)
                    && txn.thens.stream().anyMatch(op -> op instanceof Op.PutOp)
                    && txn.thens.stream().noneMatch(op -> op instanceof Op.GetOp),
            "etcd did not answer the release");
    EtcdSession session = etcds.session(client, SessionOptions.defaults());
    Election a = candidate(session, office, "a");
    assertThat(a.awaitLeadership(WAIT)).isTrue();
    long first = a.token().orElseThrow();
    await().atMost(WAIT).until(() -> a.history(10).size() == 1);

    a.transfer(); // nobody else in line: it campaigns again, on the same lease, and leads again
    await().atMost(WAIT).until(() -> a.token().orElse(first) > first);

    assertThat(failed).isTrue();
    List<TermRecord> terms = awaitTerms(a, 1);
    assertThat(terms.get(0).token()).isEqualTo(first);
    assertThat(terms.get(0).reason()).isEqualTo(LossReason.TRANSFERRED);
    assertThat(terms.get(0).detail()).isEqualTo("handed to the next in line");
    assertThat(terms.get(0).recordedBy()).isEqualTo("a");
  }

  /**
   * The beginning of a term is written until etcd answers: a term whose first write was lost, and
   * that then ended without a word, is still in the history, closed by its successor. (It was
   * missing altogether, and its successor closed the term before it instead.)
   */
  @Test
  void aTermWhoseFirstWriteWasLostIsStillRecordedAndClosed() throws Exception {
    String office = "history-lost-beginning";
    AtomicBoolean lost = new AtomicBoolean();
    Client client =
        failingOnce(
            lost,
            txn -> txn.thens.stream().filter(op -> op instanceof Op.PutOp).count() == 2,
            "the write of the win was lost");
    EtcdSession one = etcds.session(client, SessionOptions.defaults());
    EtcdSession two = session(SessionOptions.defaults());
    Election a = candidate(one, office, "a");
    assertThat(a.awaitLeadership(WAIT)).isTrue();
    long first = a.token().orElseThrow();
    Election b = candidate(two, office, "b");
    await().atMost(WAIT).until(() -> b.state() == State.FOLLOWING);
    await().atMost(WAIT).until(() -> a.history(10).size() == 1);
    assertThat(lost).isTrue();

    etcds.client(etcd.cluster()).getLeaseClient().revoke(one.leaseId()).get(10, TimeUnit.SECONDS);
    assertThat(b.awaitLeadership(WAIT)).isTrue();

    TermRecord silent = awaitTerms(b, 1).get(0);
    assertThat(silent.token()).isEqualTo(first);
    assertThat(silent.reason()).isEqualTo(LossReason.LEASE_EXPIRED);
    assertThat(silent.recordedBy()).isEqualTo("b");
  }

  /**
   * A client whose first transaction that {@code which} picks fails without reaching etcd, as one
   * etcd did not answer; {@code failed} says when it did.
   */
  private Client failingOnce(
      AtomicBoolean failed, Predicate<Etcds.RecordedTxn> which, String what) {
    Client real = etcds.client(etcd.cluster());
    return Etcds.interceptTxns(
        real,
        txn ->
            which.test(txn) && failed.compareAndSet(false, true)
                ? CompletableFuture.failedFuture(new IllegalStateException("injected: " + what))
                : txn.send(real));
  }

  private static io.etcd.jetcd.options.GetOption prefixed() {
    return io.etcd.jetcd.options.GetOption.builder().isPrefix(true).withCountOnly(true).build();
  }

  private static ByteSequence bytes(String text) {
    return ByteSequence.from(text, StandardCharsets.UTF_8);
  }
}
