package dev.conch.sample;

import dev.conch.Leadership;
import dev.conch.spring.fence.TransactionFence;
import java.sql.Timestamp;
import java.time.Duration;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.beans.factory.annotation.Value;
import org.springframework.boot.autoconfigure.condition.ConditionalOnProperty;
import org.springframework.jdbc.core.simple.JdbcClient;
import org.springframework.stereotype.Component;
import org.springframework.transaction.annotation.Transactional;

/**
 * Stores each report as a row of {@code sample_report}, in a transaction fenced by the term that
 * made it: the database itself refuses the write once a newer leader of the office has written
 * through the fence, however late this one arrives.
 *
 * <p>{@code sample.report.hold-write} holds the transaction open before the fence, so that a term
 * can end while its write is in flight (what {@code bin/demo} shows). The fence runs last, just
 * before the insert: a fence at the start of a long transaction would lock the office's row for all
 * of it. Where that does not matter, {@code @Fenced} on the method says the same in one word.
 */
@Component
@ConditionalOnProperty(name = "conch.enabled", havingValue = "true", matchIfMissing = true)
public class ReportStore {

  private static final Logger log = LoggerFactory.getLogger(ReportStore.class);

  private final JdbcClient jdbc;

  private final TransactionFence fence;

  private final Duration holdWrite;

  /**
   * @param jdbc the application's database
   * @param fence the fence of its transactions
   * @param holdWrite how long each write is held open before the fence ({@code
   *     sample.report.hold-write}, 0 by default)
   */
  public ReportStore(
      JdbcClient jdbc,
      TransactionFence fence,
      @Value("${sample.report.hold-write:0s}") Duration holdWrite) {
    this.jdbc = jdbc;
    this.fence = fence;
    this.holdWrite = holdWrite;
  }

  /**
   * Inserts {@code report} if no newer leader than {@code term} wrote through the fence.
   *
   * @throws dev.conch.jdbc.StaleTokenException when one did: nothing is written
   * @throws InterruptedException when the held write was interrupted (shutdown): nothing is written
   */
  @Transactional(rollbackFor = InterruptedException.class)
  public void store(Report report, Leadership term) throws InterruptedException {
    if (!this.holdWrite.isZero() && !this.holdWrite.isNegative()) {
      log.info(
          "Report {} with token {}: write held open for {} ms",
          report.number(),
          term.token(),
          this.holdWrite.toMillis());
      Thread.sleep(this.holdWrite.toMillis());
    }
    this.fence.fence(term);
    this.jdbc
        .sql("INSERT INTO sample_report (report, token, holder, made_at) VALUES (?, ?, ?, ?)")
        .params(report.number(), term.token(), report.by(), Timestamp.from(report.at()))
        .update();
  }
}
