package dev.conch.sample;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;

import dev.conch.Holder;
import dev.conch.Leadership;
import dev.conch.jdbc.StaleTokenException;
import dev.conch.spring.boot.test.AutoConfigureTestOffices;
import dev.conch.spring.boot.test.TestOffices;
import java.time.Instant;
import java.util.List;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.jdbc.core.simple.JdbcClient;

/**
 * The sample's rows in its own database (H2 in memory, as by default), written through the fence,
 * with the test kit deciding who leads: a row carries its term's token and holder, and a stale
 * term's row is refused by the database once a newer leader wrote one.
 */
@SpringBootTest(properties = {"sample.report.interval=1h", "conch.candidate.id=me"})
@AutoConfigureTestOffices
@Timeout(60)
class ReportStoreTest {

  @Autowired TestOffices offices;

  @Autowired ReportStore store;

  @Autowired JdbcClient jdbc;

  @BeforeEach
  void grant() {
    this.offices.grant(this.offices.defaultOffice());
    this.jdbc.sql("DELETE FROM sample_report").update();
  }

  @Test
  void rowCarriesTheTokenAndHolderOfItsTerm() throws InterruptedException {
    Leadership term = this.offices.awaitLeading(this.offices.defaultOffice());
    this.store.store(new Report(1, "me", term.token(), Instant.now(), false), term);
    assertThat(rows()).containsExactly("1 " + term.token() + " me");
  }

  @Test
  void staleTermsRowIsRefusedOnceANewerLeaderWroteOne() throws InterruptedException {
    String office = this.offices.defaultOffice();
    Leadership old = this.offices.awaitLeading(office);
    Holder newer = this.offices.electOther(office, "other-instance");
    Leadership newerTerm = new Leadership(office, newer.rev(), 0, newer);
    this.store.store(new Report(7, "other-instance", newer.rev(), Instant.now(), false), newerTerm);

    assertThatExceptionOfType(StaleTokenException.class)
        .isThrownBy(
            () -> this.store.store(new Report(2, "me", old.token(), Instant.now(), false), old))
        .satisfies(
            refusal -> {
              assertThat(refusal.token()).isEqualTo(old.token());
              assertThat(refusal.currentToken()).isEqualTo(newer.rev());
            });
    assertThat(rows()).containsExactly("7 " + newer.rev() + " other-instance");
  }

  private List<String> rows() {
    return this.jdbc
        .sql("SELECT report, token, holder FROM sample_report ORDER BY report")
        .query((row, i) -> row.getLong(1) + " " + row.getLong(2) + " " + row.getString(3))
        .list();
  }
}
