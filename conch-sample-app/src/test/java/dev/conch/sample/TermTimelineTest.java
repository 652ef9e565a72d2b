package dev.conch.sample;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

import dev.conch.Holder;
import dev.conch.LossReason;
import dev.conch.TermRecord;
import dev.conch.sample.TermTimeline.Bar;
import dev.conch.sample.TermTimeline.State;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.OptionalLong;
import org.junit.jupiter.api.Test;

/** The status page's timeline and table of terms: where each term is drawn, and what is written. */
class TermTimelineTest {

  private static final Instant T0 = Instant.parse("2026-12-03T12:00:00Z");

  /** 650 units of plot over the 10 s from T0 to now: 65 units a second. */
  private static final Instant NOW = T0.plusSeconds(10);

  private static final double PER_SECOND = TermTimeline.PLOT_WIDTH / 10.0;

  @Test
  void axisRunsFromTheEarliestBeginningToNowAcrossThePlot() {
    TermTimeline timeline = new TermTimeline(threeTerms(), NOW, OptionalLong.of(9));

    assertThat(timeline.x(T0)).isEqualTo(TermTimeline.PLOT_LEFT);
    assertThat(timeline.x(NOW)).isEqualTo(TermTimeline.PLOT_LEFT + TermTimeline.PLOT_WIDTH);
    assertThat(timeline.x(T0.plusSeconds(5))).isCloseTo(at(5), within(0.01));
    assertThat(timeline.x(T0.minusSeconds(60))).as("clamped").isEqualTo(TermTimeline.PLOT_LEFT);
  }

  @Test
  void axisIsMarkedAtRoundTimes() {
    assertThat(new TermTimeline(threeTerms(), NOW, OptionalLong.of(9)).ticks())
        .containsExactly(
            T0, T0.plusSeconds(2), T0.plusSeconds(4), T0.plusSeconds(6), T0.plusSeconds(8), NOW);
    TermRecord late =
        ended(term("app-1", 2, T0.plusMillis(134)), T0.plusSeconds(4), LossReason.CLOSED);
    assertThat(new TermTimeline(List.of(late), T0.plusSeconds(5), OptionalLong.empty()).ticks())
        .as("none before the first beginning")
        .containsExactly(
            T0.plusSeconds(1),
            T0.plusSeconds(2),
            T0.plusSeconds(3),
            T0.plusSeconds(4),
            T0.plusSeconds(5));
    TermRecord closed =
        ended(term("app-1", 2, T0.plusSeconds(7)), T0.plusSeconds(2950), LossReason.CLOSED);
    assertThat(
            new TermTimeline(List.of(closed), T0.plusSeconds(3000), OptionalLong.empty()).ticks())
        .containsExactly(
            T0.plusSeconds(600),
            T0.plusSeconds(1200),
            T0.plusSeconds(1800),
            T0.plusSeconds(2400),
            T0.plusSeconds(3000));
  }

  @Test
  void eachTermIsABarFromItsBeginningToItsEndAfterTheVacancyBeforeIt() {
    List<Bar> bars = new TermTimeline(threeTerms(), NOW, OptionalLong.of(9)).bars();

    assertThat(bars).extracting(Bar::row).containsExactly(0, 1, 2);
    assertThat(bars)
        .extracting(Bar::state)
        .containsExactly(State.ENDED, State.ENDED, State.LEADING);
    Bar first = bars.get(0);
    assertThat(first.x()).isCloseTo(at(0), within(0.01));
    assertThat(first.width()).isCloseTo(4 * PER_SECOND, within(0.01));
    assertThat(first.vacancyX()).as("no vacancy known").isEqualTo(first.x());
    Bar second = bars.get(1);
    assertThat(second.vacancyX()).isCloseTo(at(4), within(0.01));
    assertThat(second.x()).isCloseTo(at(5), within(0.01));
    assertThat(second.width()).isCloseTo(3 * PER_SECOND, within(0.01));
    Bar leading = bars.get(2);
    assertThat(leading.vacancyX()).isCloseTo(at(8), within(0.01));
    assertThat(leading.x()).isCloseTo(at(8.5), within(0.01));
    assertThat(leading.x() + leading.width()).as("leads until now").isCloseTo(at(10), within(0.01));
    assertThat(second.y() - first.y()).isEqualTo(TermTimeline.ROW_HEIGHT);
  }

  @Test
  void termOfAFewMillisecondsIsStillDrawn() {
    TermRecord blink = ended(term("app-1", 3, T0), T0.plusMillis(2), LossReason.ACQUIRE_FAILED);

    Bar bar = new TermTimeline(List.of(blink), NOW, OptionalLong.empty()).bars().get(0);

    assertThat(bar.width()).isEqualTo(TermTimeline.MIN_BAR);
  }

  @Test
  void openTermThatDoesNotLeadNowEndsWhereTheNextBeganWithNoEndRecorded() {
    TermRecord crashed = term("app-1", 3, T0);
    TermRecord next = term("app-2", 5, T0.plusSeconds(6));

    List<Bar> bars = new TermTimeline(List.of(crashed, next), NOW, OptionalLong.of(5)).bars();

    assertThat(bars.get(0).state()).isEqualTo(State.UNRECORDED);
    assertThat(bars.get(0).ended()).isEqualTo(T0.plusSeconds(6));
    assertThat(bars.get(1).state()).isEqualTo(State.LEADING);
    String svg = new TermTimeline(List.of(crashed, next), NOW, OptionalLong.of(5)).svg();
    assertThat(svg)
        .contains("<g class=\"term unrecorded\" id=\"term-3\" data-token=\"3\"")
        .contains(">no end recorded</text>")
        .contains(">leads now</text>");
  }

  @Test
  void eachHolderKeepsOneColourAndTwoHoldersHaveTwo() {
    List<Bar> bars = new TermTimeline(threeTerms(), NOW, OptionalLong.of(9)).bars();

    assertThat(bars.get(0).colour()).isEqualTo(bars.get(2).colour());
    assertThat(bars.get(0).colour()).isNotEqualTo(bars.get(1).colour());
  }

  @Test
  void svgCarriesEachTermsTokenHolderAndReasonForATestToRead() {
    String svg = new TermTimeline(threeTerms(), NOW, OptionalLong.of(9)).svg();

    assertThat(svg)
        .startsWith("<svg id=\"term-timeline\"")
        .contains(
            "<g class=\"term ended\" id=\"term-4\" data-token=\"4\" data-holder=\"app-2\""
                + " data-reason=\"transferred\" data-began=\"2026-12-03T12:00:05Z\""
                + " data-ended=\"2026-12-03T12:00:08Z\" data-vacant-ms=\"1000\">")
        .contains("<text class=\"holder\" x=\"4\" y=\"73.0\">app-2 (4)</text>")
        .contains("<rect class=\"vacancy\" x=\"470.0\"")
        .contains(">transferred</text>")
        .contains(">resigned</text>")
        .contains(">12:00:00</text>", ">12:00:02</text>", ">12:00:10</text>")
        .doesNotContain("<script", "href=", "src=", "@import");
    assertThat(svg.replace("url(#vacancy-hatch)", ""))
        .as("nothing from elsewhere")
        .doesNotContain("url(");
  }

  @Test
  void tableSaysHowEachTermEndedAndWhoRecordedItWhenItWasTheSuccessor() {
    TermRecord lost =
        term("app-1", 3, T0)
            .end(T0.plusSeconds(4), LossReason.LEASE_EXPIRED, "the lease is gone in etcd", "app-2");
    TermTimeline timeline =
        new TermTimeline(List.of(lost, threeTerms().get(1)), NOW, OptionalLong.empty());

    String table = TermTable.html(timeline.bars());

    assertThat(table)
        .startsWith("<table id=\"term-table\"")
        .contains("<tr class=\"term\" data-token=\"3\" data-holder=\"app-1\"")
        .contains(
            "<td>2026-12-03T12:00:04Z</td><td>4.0 s</td><td>?</td><td class=\"ending\" style=\"white-space: normal\">"
                + "lease-expired: the lease is gone in etcd (recorded by app-2)</td>")
        .contains(
            "<td>3.0 s</td><td>1.0 s</td><td class=\"ending\" style=\"white-space: normal\">"
                + "transferred: handed to &#39;app-1&#39;</td>");
  }

  @Test
  void everyTextFromTheHistoryIsEscaped() {
    String evil = "<script>alert(\"x\")</script>";
    TermRecord term =
        term(evil, 3, T0).end(T0.plusSeconds(1), LossReason.RESIGNED, "by <b>" + evil, evil);
    TermTimeline timeline = new TermTimeline(List.of(term), NOW, OptionalLong.empty());

    String html = timeline.svg() + TermTable.html(timeline.bars());

    assertThat(html)
        .doesNotContain("<script", "<b>", "\"x\"")
        .contains("data-holder=\"&lt;script&gt;alert(&quot;x&quot;)&lt;/script&gt;\"")
        .contains("&#9632;</span> &lt;script&gt;alert(&quot;x&quot;)&lt;/script&gt;</td>")
        .contains("resigned: by &lt;b&gt;&lt;script&gt;");
  }

  @Test
  void durationsReadAsPeopleSayThem() {
    assertThat(TermTable.duration(Duration.ofMillis(850))).isEqualTo("850 ms");
    assertThat(TermTable.duration(Duration.ofMillis(4240))).isEqualTo("4.2 s");
    assertThat(TermTable.duration(Duration.ofSeconds(184))).isEqualTo("3 min 4 s");
    assertThat(TermTable.duration(Duration.ofMinutes(125))).isEqualTo("2 h 5 min");
    assertThat(TermTable.duration(Duration.ofHours(27))).isEqualTo("1 d 3 h");
  }

  /**
   * app-1 from T0, resigned at 4 s; app-2 from 5 s (1 s vacant), handed back at 8 s; app-1 from 8.5
   * s (0.5 s vacant), leading.
   */
  private static List<TermRecord> threeTerms() {
    return List.of(
        ended(term("app-1", 2, T0), T0.plusSeconds(4), LossReason.RESIGNED),
        term("app-2", 4, T0.plusSeconds(5))
            .end(T0.plusSeconds(8), LossReason.TRANSFERRED, "handed to 'app-1'", "app-2")
            .withVacantBefore(Duration.ofSeconds(1)),
        term("app-1", 9, T0.plusMillis(8500)).withVacantBefore(Duration.ofMillis(500)));
  }

  private static TermRecord term(String id, long token, Instant since) {
    return TermRecord.begun(Holder.of("reports", "host", 42, since, id).at(token, 0x1f));
  }

  private static TermRecord ended(TermRecord term, Instant at, LossReason reason) {
    return term.end(at, reason, "resign() was called", term.holder().id());
  }

  private static double at(double seconds) {
    return TermTimeline.PLOT_LEFT + seconds * PER_SECOND;
  }
}
