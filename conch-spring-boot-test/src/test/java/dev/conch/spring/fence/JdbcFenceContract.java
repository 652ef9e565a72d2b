package dev.conch.spring.fence;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;
import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import dev.conch.Holder;
import dev.conch.Leadership;
import dev.conch.jdbc.JdbcFence;
import dev.conch.jdbc.StaleTokenException;
import dev.conch.spring.boot.test.AutoConfigureTestOffices;
import dev.conch.spring.boot.test.TestOffices;
import dev.conch.spring.fence.FenceTestApplication.ReportJob;
import dev.conch.spring.fence.FenceTestApplication.Reports;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.MeterRegistry;
import java.sql.Connection;
import java.sql.SQLException;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import javax.sql.DataSource;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.jdbc.datasource.DataSourceTransactionManager;
import org.springframework.transaction.PlatformTransactionManager;

/**
 * What a fenced Spring transaction does, written with JdbcTemplate, on the in-memory offices that
 * {@link TestOffices} scripts (who leads is not the subject here, the database is): a current term
 * commits with its token; a stale one is refused by the database and its own writes roll back, even
 * when the caller swallows the refusal; without a transaction or a term nothing is written. Each
 * subclass runs it on one database and one transaction manager.
 */
@SpringBootTest(
    classes = FenceTestApplication.class,
    properties = {"spring.application.name=reports", "conch.offices.billing.hook-timeout=5s"})
@AutoConfigureTestOffices
@Timeout(60)
abstract class JdbcFenceContract {

  static final String OFFICE = "reports";

  @Autowired TestOffices offices;

  @Autowired JdbcTemplate jdbc;

  @Autowired Reports reports;

  @Autowired ReportJob job;

  @Autowired TransactionFence fence;

  @Autowired JdbcFence jdbcFence;

  @Autowired MeterRegistry meters;

  @Autowired DataSource dataSource;

  @Autowired PlatformTransactionManager transactionManager;

  private final ExecutorService executor = Executors.newSingleThreadExecutor();

  /** The transaction manager this database's variant must run with. */
  abstract Class<? extends PlatformTransactionManager> expectedTransactionManager();

  @BeforeEach
  void cleanTables() {
    this.jdbc.execute(FenceTestApplication.REPORT_TABLE);
    this.jdbc.update("DELETE FROM report");
    this.jdbc
        .queryForList("SELECT office FROM " + this.jdbcFence.table(), String.class)
        .forEach(
            office ->
                this.jdbc.execute(
                    (org.springframework.jdbc.core.ConnectionCallback<Boolean>)
                        c ->
                            dev.conch.jdbc.FenceSchema.forTable(this.jdbcFence.table())
                                .retire(c, office)));
    this.offices.grant(OFFICE);
  }

  @AfterEach
  void stopExecutor() {
    this.job.release();
    this.executor.shutdownNow();
  }

  @Test
  void runsWithTheExpectedTransactionManager() {
    assertThat(this.transactionManager).isInstanceOf(expectedTransactionManager());
  }

  @Test
  void currentTermsWriteCommitsAndTheFenceHoldsItsToken() {
    Leadership term = this.offices.awaitLeading(OFFICE);
    double passed = count("passed");
    this.reports.store("a", term.token());
    assertThat(reports()).containsExactly("a@" + term.token());
    assertThat(fenceToken(OFFICE)).isEqualTo(term.token());
    assertThat(count("passed")).isEqualTo(passed + 1);
  }

  @Test
  void heldWriteOfAnEndedTermIsRefusedOnceTheNewerLeaderWrote() throws Exception {
    long oldToken = this.offices.awaitLeading(OFFICE).token();
    this.job.hold();
    Future<?> held = this.executor.submit(() -> run(() -> this.job.write("old")));
    assertThat(this.job.awaitEntered()).isTrue();

    Holder newer = this.offices.electOther(OFFICE, "node-b");
    writeAsNewerLeader("new", newer);
    double stale = count("stale");
    this.job.release();

    assertThatExceptionOfType(ExecutionException.class)
        .isThrownBy(() -> held.get(30, TimeUnit.SECONDS))
        .havingCause()
        .isInstanceOfSatisfying(
            StaleTokenException.class,
            refusal -> {
              assertThat(refusal.token()).isEqualTo(oldToken);
              assertThat(refusal.currentToken()).isEqualTo(newer.rev());
              assertThat(refusal.currentHolder()).isEqualTo("node-b");
            });
    assertThat(reports()).containsExactly("new@" + newer.rev());
    assertThat(count("stale")).isEqualTo(stale + 1);
  }

  @Test
  void staleTokenRollsBackTheWritesMadeBeforeTheFence() {
    Leadership old = this.offices.awaitLeading(OFFICE);
    Holder newer = this.offices.electOther(OFFICE, "node-b");
    writeAsNewerLeader("new", newer);

    assertThatExceptionOfType(StaleTokenException.class)
        .isThrownBy(() -> this.reports.storeThenFence("old", old))
        .withMessageContaining("stale fencing token " + old.token())
        .withMessageContaining("token " + newer.rev());
    assertThat(reports()).containsExactly("new@" + newer.rev());
  }

  @Test
  void staleWriteDoesNotCommitEvenWhenTheCallerSwallowsTheRefusal() {
    Leadership old = this.offices.awaitLeading(OFFICE);
    Holder newer = this.offices.electOther(OFFICE, "node-b");
    writeAsNewerLeader("new", newer);

    assertThatExceptionOfType(StaleTokenException.class)
        .isThrownBy(() -> this.reports.storeAndSwallowRefusal("old", old))
        .satisfies(refusal -> assertThat(refusal.currentToken()).isEqualTo(newer.rev()));
    assertThat(reports()).containsExactly("new@" + newer.rev());
  }

  @Test
  void fenceOutsideATransactionFailsAtOnceAndWritesNothing() {
    assertThatExceptionOfType(FenceUnavailableException.class)
        .isThrownBy(() -> this.reports.storeWithoutTransaction("x"))
        .withMessageContaining("No transaction is active")
        .withMessageContaining("office 'reports'")
        .withMessageContaining("protects nothing");
    assertThatExceptionOfType(FenceUnavailableException.class)
        .isThrownBy(() -> this.reports.storeIfInTransaction("y"))
        .withMessageContaining("No transaction is active");
    assertThat(reports()).isEmpty();
    assertThat(fenceRows()).isZero();
  }

  @Test
  void followerFailsAtOnceAndWritesNothing() {
    this.offices.electOther(OFFICE, "node-c");
    assertThatExceptionOfType(FenceUnavailableException.class)
        .isThrownBy(() -> this.reports.store("x", 0))
        .withMessageContaining("does not lead office 'reports'");
    assertThat(reports()).isEmpty();
  }

  @Test
  void leaderOnlyFencedMethodIsSkippedOnAFollowerAndFencedOnTheLeader() {
    this.offices.electOther(OFFICE, "node-c");
    assertThat(this.reports.storeIfLeading("skipped")).isFalse();
    assertThat(fenceRows()).isZero();

    Leadership term = this.offices.grant(OFFICE);
    assertThat(this.reports.storeIfLeading("stored")).isTrue();
    assertThat(reports()).containsExactly("stored@" + term.token());
    assertThat(fenceToken(OFFICE)).isEqualTo(term.token());
  }

  @Test
  void newTermsRaiseCommitsOnItsOwnWhenTheWorkFails() {
    Leadership first = this.offices.awaitLeading(OFFICE);
    this.reports.store("first", first.token());
    this.offices.revoke(OFFICE);
    Leadership second = this.offices.grant(OFFICE);
    assertThat(second.token()).isGreaterThan(first.token());

    assertThatExceptionOfType(IllegalStateException.class)
        .isThrownBy(() -> this.reports.storeAndFail("second"));
    // The raise ran in a transaction of its own before the work: the first term is fenced off
    // even though the work rolled back.
    assertThat(fenceToken(OFFICE)).isEqualTo(second.token());
    assertThat(reports()).containsExactly("first@" + first.token());
  }

  @Test
  void theCheckIsAtCommitSoANewerLeaderWhoRaisedAfterTheFenceCallRefusesTheCommit() {
    Leadership old = this.offices.awaitLeading(OFFICE);
    Holder newer = this.offices.electOther(OFFICE, "node-b");
    double passed = count("passed");
    // The old term's transaction fenced, then the newer leader raised and wrote, then the old one
    // wrote: nothing in between touched the fence, and the commit is still refused.
    assertThatExceptionOfType(StaleTokenException.class)
        .isThrownBy(
            () ->
                this.reports.fenceThenWrite(
                    old, () -> inOtherThread(() -> writeAsNewerLeader("new", newer)), "old"))
        .satisfies(refusal -> assertThat(refusal.currentToken()).isEqualTo(newer.rev()));
    assertThat(reports()).containsExactly("new@" + newer.rev());
    assertThat(count("passed")).as("only the newer leader's commit").isEqualTo(passed + 1);
  }

  @Test
  void aFailedNestedFenceLeavesTheOuterTransactionFencedAtItsCommit() {
    // NESTED is a savepoint of the JDBC transaction managers; JPA's allows none by default.
    assumeTrue(
        this.transactionManager instanceof DataSourceTransactionManager,
        "NESTED needs a DataSourceTransactionManager");
    this.offices.awaitLeading(OFFICE);
    // The nested @Fenced call raised the term and registered the check; its savepoint rolled back
    // (on every database that undoes locks taken in it), then a newer leader came.
    AtomicReference<Holder> newest = new AtomicReference<>();
    Runnable newestLeaderWrites =
        () -> {
          newest.set(this.offices.electOther(OFFICE, "node-c"));
          inOtherThread(() -> writeAsNewerLeader("newest", newest.get()));
        };
    assertThatExceptionOfType(StaleTokenException.class)
        .isThrownBy(
            () ->
                this.reports.outerAroundAFailedNestedFence(
                    this.reports, newestLeaderWrites, "outer"));
    assertThat(reports()).containsExactly("newest@" + newest.get().rev());
  }

  @Test
  void aFencedMethodThatSwallowsADeadlockStillCommitsNothingAfterTheNewerLeader() throws Exception {
    for (boolean callerWaitsFirst : new boolean[] {true, false}) {
      this.offices.grant(OFFICE);
      this.offices.awaitLeading(OFFICE);
      try (Deadlock deadlock = new Deadlock(this.jdbc, this.transactionManager, this.dataSource)) {
        deadlock.prepare();
        AtomicReference<Holder> newer = new AtomicReference<>();
        Runnable newerLeaderWrites =
            () -> {
              newer.set(this.offices.electOther(OFFICE, "node-b"));
              inOtherThread(() -> writeAsNewerLeader("new", newer.get()));
            };
        // Whichever transaction the database made the victim, the write after it (on InnoDB and
        // H2 in a new transaction, with no fence lock of the old one) must not commit after the
        // newer leader's: the check at the commit refuses it (PostgreSQL refuses the aborted
        // transaction's commit itself).
        assertThatExceptionOfType(Exception.class)
            .as("callerWaitsFirst=%s", callerWaitsFirst)
            .isThrownBy(
                () ->
                    this.reports.storeSwallowingADeadlock(
                        "old", deadlock, callerWaitsFirst, newerLeaderWrites));
        assertThat(reports())
            .as("callerWaitsFirst=%s", callerWaitsFirst)
            .containsExactly("new@" + newer.get().rev());
        this.jdbc.update("DELETE FROM report");
      }
    }
  }

  @Test
  void aNewTermRaisesItsFenceRowAsItBeginsBeforeAnyTransaction() {
    Leadership first = this.offices.awaitLeading(OFFICE);
    this.reports.store("first", first.token());
    this.offices.revoke(OFFICE);
    Leadership second = this.offices.grant(OFFICE);
    // No transaction of the second term ran: its acquire hook raised the row.
    await()
        .atMost(Duration.ofSeconds(20))
        .untilAsserted(() -> assertThat(fenceToken(OFFICE)).isEqualTo(second.token()));
    this.reports.readThenFence("read-first"); // no raise left to do: nothing to run again
    assertThat(reports()).containsExactly("first@" + first.token(), "read-first@" + second.token());
  }

  @Test
  void aTransactionThatReadBeforeItRaisedANewTermIsToldToRunAgain() {
    Leadership first = this.offices.awaitLeading(OFFICE);
    this.reports.store("first", first.token());
    // A term this instance's hooks never saw (handed over from elsewhere): the transaction that
    // read first raises the row itself.
    Holder newer = this.offices.electOther(OFFICE, "node-b");
    Leadership term = new Leadership(OFFICE, newer.rev(), 0, newer);

    assertThatExceptionOfType(TermBeganException.class)
        .isThrownBy(() -> this.reports.readThenFence("read-first", term))
        .satisfies(
            e -> {
              assertThat(e.earlierToken()).isEqualTo(first.token());
              assertThat(e.token()).isEqualTo(newer.rev());
            });
    assertThat(fenceToken(OFFICE)).isEqualTo(newer.rev());
    this.reports.readThenFence("again", term); // the raise is done: the retry passes
    assertThat(reports()).containsExactly("first@" + first.token(), "again@" + newer.rev());
  }

  @Test
  void officeNamedOnTheAnnotationIsTheOneFenced() {
    Leadership billing = this.offices.awaitLeading("billing");
    this.reports.storeForOtherOffice("invoice");
    assertThat(fenceToken("billing")).isEqualTo(billing.token());
    assertThat(fenceRows()).isEqualTo(1);
  }

  /**
   * What node-b, the newer leader, does in its own process: its term's raise, then a fenced write
   * with its token.
   */
  void writeAsNewerLeader(String text, Holder newer) {
    Leadership term = new Leadership(OFFICE, newer.rev(), 0, newer);
    try (Connection own = this.dataSource.getConnection()) {
      this.jdbcFence.raise(own, term);
    } catch (SQLException ex) {
      throw new IllegalStateException("the newer leader's raise failed", ex);
    }
    this.reports.inTransaction(
        () -> {
          this.fence.fence(term);
          this.reports.insert(text, term.token());
          return null;
        });
  }

  /** Runs {@code work} on another thread (so it is not part of the caller's transaction). */
  void inOtherThread(Runnable work) {
    try {
      this.executor.submit(work).get(30, TimeUnit.SECONDS);
    } catch (Exception ex) {
      throw new IllegalStateException("the other thread's work failed", ex);
    }
  }

  List<String> reports() {
    return this.jdbc.query(
        "SELECT text, token FROM report ORDER BY token, text",
        (row, i) -> row.getString(1) + "@" + row.getLong(2));
  }

  long fenceToken(String office) {
    Long token =
        this.jdbc.queryForObject(
            "SELECT token FROM " + this.jdbcFence.table() + " WHERE office = ?",
            Long.class,
            office);
    return (token != null) ? token : 0;
  }

  int fenceRows() {
    Integer rows =
        this.jdbc.queryForObject("SELECT COUNT(*) FROM " + this.jdbcFence.table(), Integer.class);
    return (rows != null) ? rows : 0;
  }

  double count(String outcome) {
    Counter counter =
        this.meters
            .find("conch.fence")
            .tag("conch.office", OFFICE)
            .tag("conch.outcome", outcome)
            .counter();
    return (counter != null) ? counter.count() : 0;
  }

  private static Void run(Work work) throws Exception {
    work.run();
    return null;
  }

  @FunctionalInterface
  interface Work {
    void run() throws Exception;
  }
}
