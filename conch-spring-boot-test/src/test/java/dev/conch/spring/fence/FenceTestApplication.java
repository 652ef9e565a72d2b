package dev.conch.spring.fence;

import dev.conch.Leadership;
import dev.conch.jdbc.StaleTokenException;
import dev.conch.spring.leaderonly.CurrentLeadership;
import dev.conch.spring.leaderonly.LeaderOnly;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.function.Supplier;
import org.springframework.boot.SpringBootConfiguration;
import org.springframework.boot.autoconfigure.EnableAutoConfiguration;
import org.springframework.context.annotation.Bean;
import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.transaction.annotation.Propagation;
import org.springframework.transaction.annotation.Transactional;

/**
 * An application that writes reports through the fence: each report is a row of {@code report} with
 * the token of the term that wrote it. No component scan: the JPA tests add their beans.
 */
@SpringBootConfiguration
@EnableAutoConfiguration
class FenceTestApplication {

  /** The report table, the same on H2 and PostgreSQL. */
  static final String REPORT_TABLE =
      "CREATE TABLE IF NOT EXISTS report (text VARCHAR(100) NOT NULL, token BIGINT NOT NULL)";

  @Bean
  SimpleMeterRegistry meterRegistry() {
    return new SimpleMeterRegistry();
  }

  @Bean
  Reports reports(JdbcTemplate jdbc, TransactionFence fence) {
    return new Reports(jdbc, fence);
  }

  @Bean
  ReportJob reportJob(Reports reports) {
    return new ReportJob(reports);
  }

  /** Writes reports, fenced in every way the fence offers. */
  static class Reports {

    private final JdbcTemplate jdbc;

    private final TransactionFence fence;

    Reports(JdbcTemplate jdbc, TransactionFence fence) {
      this.jdbc = jdbc;
      this.fence = fence;
    }

    /** Fenced on entry, with the default office's (or the running @LeaderOnly) term. */
    @Transactional
    @Fenced
    public void store(String text, long token) {
      insert(text, token);
    }

    /** All three on one method: leadership checked first, then the transaction, then the fence. */
    @LeaderOnly
    @Transactional
    @Fenced
    public boolean storeIfLeading(String text) {
      insert(text, CurrentLeadership.get().token());
      return true;
    }

    /** Fenced on entry with the office the annotation names. */
    @Transactional
    @Fenced("${fence-test.other-office:billing}")
    public void storeForOtherOffice(String text) {
      insert(text, 0);
    }

    /** Writes first, then fences with {@code term}: a refusal must undo the write. */
    @Transactional
    public void storeThenFence(String text, Leadership term) {
      insert(text, term.token());
      this.fence.fence(term);
    }

    /** Writes, then fences with {@code term} and swallows a refusal: still must not commit. */
    @Transactional
    public void storeAndSwallowRefusal(String text, Leadership term) {
      insert(text, term.token());
      try {
        this.fence.fence(term);
      } catch (StaleTokenException ex) {
        // What a careless caller does; the transaction must roll back all the same.
      }
    }

    /** Fenced, writes, then fails: the fence's raise must roll back with the write. */
    @Transactional
    @Fenced
    public void storeAndFail(String text) {
      insert(text, 0);
      throw new IllegalStateException("the work after the write failed");
    }

    /** A fence with no transaction around it. */
    public void storeWithoutTransaction(String text) {
      Leadership term = this.fence.fence();
      insert(text, term.token());
    }

    /**
     * @Fenced, but SUPPORTS runs without a transaction when the caller has none.
     */
    @Transactional(propagation = Propagation.SUPPORTS)
    @Fenced
    public void storeIfInTransaction(String text) {
      insert(text, 0);
    }

    /** Fences with {@code term}, lets {@code between} run, then writes: the check is at commit. */
    @Transactional
    public void fenceThenWrite(Leadership term, Runnable between, String text) {
      this.fence.fence(term);
      between.run();
      insert(text, term.token());
    }

    /** Reads the reports first, then fences with the default office's term and writes. */
    @Transactional
    public void readThenFence(String text) {
      this.jdbc.queryForObject("SELECT COUNT(*) FROM report", Integer.class);
      Leadership term = this.fence.fence();
      insert(text, term.token());
    }

    /** Reads the reports first, then fences with {@code term} and writes. */
    @Transactional
    public void readThenFence(String text, Leadership term) {
      this.jdbc.queryForObject("SELECT COUNT(*) FROM report", Integer.class);
      this.fence.fence(term);
      insert(text, term.token());
    }

    /** A fenced savepoint (NESTED) that writes and fails: its caller goes on. */
    @Transactional(propagation = Propagation.NESTED)
    @Fenced
    public void nestedStoreAndFail(String text) {
      insert(text, 0);
      throw new IllegalStateException("the nested work failed");
    }

    /**
     * Calls {@code self}'s fenced NESTED method, swallows its failure, lets {@code between} run,
     * then writes in the outer transaction.
     */
    @Transactional
    public void outerAroundAFailedNestedFence(Reports self, Runnable between, String text) {
      try {
        self.nestedStoreAndFail("inner");
      } catch (IllegalStateException ex) {
        // the savepoint rolled back; the outer transaction goes on
      }
      between.run();
      insert(text, 0);
    }

    /**
     * Fenced on entry; deadlocks with another transaction, swallows its own statement's failure,
     * lets {@code between} run, then writes: careless code the fence must still hold.
     */
    @Transactional
    @Fenced
    public void storeSwallowingADeadlock(
        String text, Deadlock deadlock, boolean callerWaitsFirst, Runnable between)
        throws Exception {
      deadlock.inCallersTransaction(callerWaitsFirst);
      between.run();
      insert(text, 0);
    }

    /** Runs {@code work} in one transaction (for a newer leader's write). */
    @Transactional
    public <T> T inTransaction(Supplier<T> work) {
      return work.get();
    }

    void insert(String text, long token) {
      this.jdbc.update("INSERT INTO report (text, token) VALUES (?, ?)", text, token);
    }
  }

  /** A leader's job whose write is held until the test lets it go. */
  static class ReportJob {

    private final Reports reports;

    private volatile CountDownLatch entered = new CountDownLatch(1);

    private volatile CountDownLatch release = new CountDownLatch(1);

    ReportJob(Reports reports) {
      this.reports = reports;
    }

    /**
     * Writes {@code text} with the token of the term it was let in by, once released. Held, it
     * stands for a frozen process: deaf to the interrupt of its term's stop (a paused process takes
     * none), it writes when it thaws, and the fence is what must refuse it.
     */
    @LeaderOnly
    public void write(String text) {
      long token = CurrentLeadership.get().token();
      this.entered.countDown();
      long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
      boolean interrupted = false;
      while (this.release.getCount() > 0) {
        long left = deadline - System.nanoTime();
        if (left <= 0) {
          throw new IllegalStateException("the test never released the held write");
        }
        try {
          this.release.await(left, TimeUnit.NANOSECONDS);
        } catch (InterruptedException ex) {
          interrupted = true;
        }
      }
      try {
        this.reports.store(text, token);
      } finally {
        if (interrupted) {
          Thread.currentThread().interrupt();
        }
      }
    }

    /** Holds the next write (the test calls it through the proxy: fields are the target's). */
    public void hold() {
      this.entered = new CountDownLatch(1);
      this.release = new CountDownLatch(1);
    }

    /** Waits until the held write entered its term. */
    public boolean awaitEntered() throws InterruptedException {
      return this.entered.await(30, TimeUnit.SECONDS);
    }

    /** Lets the held write go on. */
    public void release() {
      this.release.countDown();
    }
  }
}
