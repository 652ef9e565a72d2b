package dev.conch.sample;

import static org.springframework.web.util.HtmlUtils.htmlEscape;

import dev.conch.TermRecord;
import dev.conch.sample.TermTimeline.Bar;
import dev.conch.sample.TermTimeline.State;
import java.time.Duration;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.List;
import java.util.Locale;
import java.util.Objects;
import org.jspecify.annotations.Nullable;

/**
 * The terms of the status page's {@link TermTimeline} in words, as a {@code <table
 * id="term-table">} with a {@code <tr class="term" data-token ...>} per term: token, holder,
 * beginning, end, how long it was held, the vacancy before it, and how it ended. Every text from
 * the history is escaped.
 */
final class TermTable {

  private TermTable() {}

  /** The table of the terms laid out in {@code bars}, oldest first. */
  static String html(List<Bar> bars) {
    StringBuilder html = new StringBuilder(256 + 400 * bars.size());
    html.append("<table id=\"term-table\" border=\"1\" cellpadding=\"3\"")
        .append(" style=\"border-collapse: collapse; white-space: nowrap\">\n")
        .append("<tr><th>token</th><th>holder</th>")
        .append("<th>began</th><th>ended</th><th>held</th><th>vacant before</th>")
        .append("<th>how it ended</th></tr>\n");
    for (Bar bar : bars) {
      TermRecord term = bar.term();
      html.append("<tr class=\"term\"");
      attributes(html, bar);
      html.append("><td>")
          .append(term.token())
          .append("</td><td><span style=\"color: ")
          .append(bar.colour())
          .append("\">&#9632;</span> ")
          .append(htmlEscape(String.valueOf(term.holder().id())))
          .append("</td><td>")
          .append(htmlEscape(time(bar.began())))
          .append("</td><td>")
          .append(htmlEscape(bar.state() == State.ENDED ? time(term.ended()) : "-"))
          .append("</td><td>")
          .append(htmlEscape(held(bar)))
          .append("</td><td>")
          .append(htmlEscape(term.vacantBefore() == null ? "?" : duration(term.vacantBefore())))
          .append("</td><td class=\"ending\" style=\"white-space: normal\">")
          .append(htmlEscape(howItEnded(bar)))
          .append("</td></tr>\n");
    }
    return html.append("</table>\n").toString();
  }

  /** The data attributes of a term's element: what a test reads. */
  static void attributes(StringBuilder html, Bar bar) {
    TermRecord term = bar.term();
    html.append(" data-token=\"")
        .append(term.token())
        .append("\" data-holder=\"")
        .append(htmlEscape(String.valueOf(term.holder().id())))
        .append("\" data-reason=\"")
        .append(term.reason() == null ? "" : TermRecord.reasonCode(term.reason()))
        .append("\" data-began=\"")
        .append(bar.began() == null ? "" : bar.began())
        .append("\" data-ended=\"")
        .append(term.ended() == null ? "" : term.ended())
        .append("\" data-vacant-ms=\"")
        .append(term.vacantBefore() == null ? "" : term.vacantBefore().toMillis())
        .append('"');
  }

  /** A term in one line, as the timeline's tooltip shows it. */
  static String title(Bar bar) {
    return bar.term().holder().id()
        + ", token "
        + bar.term().token()
        + ": began "
        + time(bar.began())
        + ", held "
        + held(bar)
        + ", "
        + howItEnded(bar);
  }

  /** What the timeline writes at a term's end: its reason code, or that it lasts. */
  static String ending(Bar bar) {
    return switch (bar.state()) {
      case ENDED -> TermRecord.reasonCode(Objects.requireNonNull(bar.term().reason()));
      case LEADING -> "leads now";
      case UNRECORDED -> "no end recorded";
    };
  }

  /** How a term ended, with what ended it and who recorded it when that was its successor. */
  static String howItEnded(Bar bar) {
    TermRecord term = bar.term();
    if (bar.state() != State.ENDED) {
      return ending(bar);
    }
    String how = ending(bar) + (term.detail() == null ? "" : ": " + term.detail());
    boolean bySuccessor =
        term.recordedBy() != null && !term.recordedBy().equals(term.holder().id());
    return bySuccessor ? how + " (recorded by " + term.recordedBy() + ")" : how;
  }

  /** How long a term was held, {@code ?} when unknown. */
  static String held(Bar bar) {
    if (bar.began() == null || bar.state() == State.UNRECORDED) {
      return "?";
    }
    Duration held = duration(bar.began(), bar.ended());
    return bar.state() == State.LEADING ? duration(held) + " so far" : duration(held);
  }

  private static Duration duration(Instant from, Instant to) {
    Duration between = Duration.between(from, to);
    return between.isNegative() ? Duration.ZERO : between;
  }

  /** A duration as people read it: {@code 850 ms}, {@code 4.2 s}, {@code 3 min 4 s}, ... */
  static String duration(Duration duration) {
    long ms = duration.toMillis();
    if (ms < 1000) {
      return ms + " ms";
    }
    if (ms < 60_000) {
      return String.format(Locale.ROOT, "%.1f s", ms / 1000.0);
    }
    long s = ms / 1000;
    if (s < 3600) {
      return s / 60 + " min " + s % 60 + " s";
    }
    if (s < 86_400) {
      return s / 3600 + " h " + s % 3600 / 60 + " min";
    }
    return s / 86_400 + " d " + s % 86_400 / 3600 + " h";
  }

  /** An instant as the page shows it, to the millisecond, {@code ?} when unknown. */
  static String time(@Nullable Instant instant) {
    return instant == null ? "?" : instant.truncatedTo(ChronoUnit.MILLIS).toString();
  }
}
