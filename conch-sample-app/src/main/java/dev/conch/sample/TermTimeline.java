package dev.conch.sample;

import static org.springframework.web.util.HtmlUtils.htmlEscape;

import dev.conch.TermRecord;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneOffset;
import java.time.format.DateTimeFormatter;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.OptionalLong;
import org.jspecify.annotations.Nullable;

/**
 * An office's last terms as the status page draws them: inline SVG with one bar per term on a
 * shared time axis (oldest on top), coloured per holder, the vacancy before it hatched, how it
 * ended written at its end ({@link TermTable} has the same terms in words). Plain markup that a
 * browser renders without any script or anything loaded from elsewhere; every text from the history
 * is escaped.
 *
 * <p>The elements carry what a test reads: a {@code <g class="term ended|leading|unrecorded"
 * data-token data-holder data-reason data-began data-ended data-vacant-ms>} per term in {@code
 * svg#term-timeline}, with a {@code rect.held} (the term), a {@code rect.vacancy} (the vacancy
 * before it, when known) and a {@code text.reason} (how it ended).
 */
final class TermTimeline {

  static final int WIDTH = 1000;

  /** Left of the plot: each term's holder and token. */
  static final int PLOT_LEFT = 210;

  /** Right of the plot there is room for the reason written at a term's end. */
  static final int PLOT_WIDTH = 650;

  static final int AXIS_HEIGHT = 30;

  static final int ROW_HEIGHT = 26;

  static final int BAR_HEIGHT = 14;

  /** A term of a few milliseconds still shows. */
  static final double MIN_BAR = 2;

  /** The shortest axis, so that terms of a few milliseconds do not fill it. */
  static final Duration MIN_SPAN = Duration.ofSeconds(1);

  private static final String[] COLOURS = {
    "#4e79a7", "#f28e2b", "#59a14f", "#e15759", "#76b7b2", "#edc948", "#b07aa1", "#9c755f"
  };

  private static final int LABEL_CHARS = 24;

  /** At most this many marks on the axis. */
  static final int TICKS = 6;

  private static final long[] TICK_STEPS = {
    1, 2, 5, 10, 15, 30, 60, 120, 300, 600, 900, 1800, 3600, 7200, 10_800, 21_600, 43_200, 86_400
  };

  private static final DateTimeFormatter SECONDS =
      DateTimeFormatter.ofPattern("HH:mm:ss", Locale.ROOT).withZone(ZoneOffset.UTC);

  private static final DateTimeFormatter MINUTES =
      DateTimeFormatter.ofPattern("HH:mm", Locale.ROOT).withZone(ZoneOffset.UTC);

  private static final DateTimeFormatter DAYS =
      DateTimeFormatter.ofPattern("MM-dd HH:mm", Locale.ROOT).withZone(ZoneOffset.UTC);

  /** How a term shows: ended with a recorded reason, leading now, or open with no end recorded. */
  enum State {
    ENDED,
    LEADING,
    UNRECORDED
  }

  /**
   * One term laid out: its row, its bar from {@code x} to {@code x + width}, and the vacancy before
   * it from {@code vacancyX} to {@code x}.
   *
   * @param began the beginning, {@code null} when unknown (then no bar is drawn)
   * @param ended where the bar ends: the recorded end, now for the term that leads, else the next
   *     term's beginning or now
   */
  record Bar(
      TermRecord term,
      State state,
      @Nullable Instant began,
      Instant ended,
      int row,
      double x,
      double width,
      double vacancyX,
      String colour) {

    double y() {
      return AXIS_HEIGHT + this.row * ROW_HEIGHT + (ROW_HEIGHT - BAR_HEIGHT) / 2.0;
    }
  }

  private final Instant start;

  private final Instant end;

  private final List<Bar> bars = new ArrayList<>();

  /**
   * Lays out {@code terms} (oldest first, as {@code Election.history} returns them) up to {@code
   * now}; {@code leading} is the token of the term that leads now, read from etcd, if any.
   */
  TermTimeline(List<TermRecord> terms, Instant now, OptionalLong leading) {
    List<@Nullable Instant> begins = new ArrayList<>();
    Instant earliest = now;
    Instant latest = now;
    for (int i = 0; i < terms.size(); i++) {
      TermRecord term = terms.get(i);
      @Nullable Instant began = term.holder().since();
      if (began == null && i > 0) {
        began = terms.get(i - 1).ended();
      }
      begins.add(began);
      if (began != null) {
        Duration vacancy = term.vacantBefore() == null ? Duration.ZERO : term.vacantBefore();
        earliest = min(earliest, began.minus(vacancy));
      }
      if (term.ended() != null) {
        latest = max(latest, term.ended());
      }
    }
    this.end = latest;
    this.start = min(earliest, latest.minus(MIN_SPAN));
    Map<String, String> colours = new LinkedHashMap<>();
    for (int i = 0; i < terms.size(); i++) {
      TermRecord term = terms.get(i);
      State state =
          !term.isOpen()
              ? State.ENDED
              : leading.isPresent() && leading.getAsLong() == term.token()
                  ? State.LEADING
                  : State.UNRECORDED;
      @Nullable Instant began = begins.get(i);
      @Nullable Instant ended = term.ended();
      if (ended == null) {
        @Nullable Instant next = i + 1 < terms.size() ? begins.get(i + 1) : null;
        ended = state == State.LEADING || next == null ? now : next;
      }
      String colour =
          colours.computeIfAbsent(
              String.valueOf(term.holder().id()), id -> COLOURS[colours.size() % COLOURS.length]);
      double x = began == null ? PLOT_LEFT : x(began);
      double width = began == null ? 0 : Math.max(MIN_BAR, x(ended) - x);
      double vacancyX =
          began == null || term.vacantBefore() == null ? x : x(began.minus(term.vacantBefore()));
      this.bars.add(new Bar(term, state, began, ended, i, x, width, vacancyX, colour));
    }
  }

  /** Where {@code instant} lies on the axis, in the SVG's units; clamped to the plot. */
  double x(Instant instant) {
    double span = Duration.between(this.start, this.end).toMillis();
    double at = Duration.between(this.start, instant).toMillis();
    return PLOT_LEFT + PLOT_WIDTH * Math.min(1, Math.max(0, at / span));
  }

  /** The terms laid out, oldest first. */
  List<Bar> bars() {
    return this.bars;
  }

  /** The SVG's height: the axis and a row per term. */
  int height() {
    return AXIS_HEIGHT + this.bars.size() * ROW_HEIGHT + 6;
  }

  /** The timeline as an inline {@code <svg id="term-timeline">}. */
  String svg() {
    StringBuilder svg = new StringBuilder(512 + 700 * this.bars.size());
    svg.append("<svg id=\"term-timeline\" xmlns=\"http://www.w3.org/2000/svg\" width=\"")
        .append(WIDTH)
        .append("\" height=\"")
        .append(height())
        .append("\" viewBox=\"0 0 ")
        .append(WIDTH)
        .append(' ')
        .append(height())
        .append("\" role=\"img\" aria-label=\"terms of office, oldest on top\"")
        .append(" style=\"max-width: 100%; height: auto; font: 12px sans-serif\">\n")
        .append("<defs><pattern id=\"vacancy-hatch\" width=\"6\" height=\"6\"")
        .append(" patternUnits=\"userSpaceOnUse\" patternTransform=\"rotate(45)\">")
        .append("<rect width=\"6\" height=\"6\" fill=\"#eee\"/>")
        .append("<line x1=\"0\" y1=\"0\" x2=\"0\" y2=\"6\" stroke=\"#999\" stroke-width=\"2\"/>")
        .append("</pattern></defs>\n");
    axis(svg);
    for (Bar bar : this.bars) {
      term(svg, bar);
    }
    return svg.append("</svg>\n").toString();
  }

  /**
   * Where the axis is marked: at whole multiples (in UTC) of the shortest of 1, 2, 5, 10, 15, 30 s,
   * 1, 2, 5, 10, 15, 30 min, 1, 2, 3, 6, 12 h or whole days that makes at most {@value #TICKS}
   * marks.
   */
  List<Instant> ticks() {
    long span = Duration.between(this.start, this.end).toSeconds();
    long step = (span / TICKS / 86_400 + 1) * 86_400; // whole days, unless a shorter step fits
    for (long candidate : TICK_STEPS) {
      if (span / candidate < TICKS) {
        step = candidate;
        break;
      }
    }
    List<Instant> ticks = new ArrayList<>();
    long from = this.start.getEpochSecond() + (this.start.getNano() > 0 ? 1 : 0);
    long first = Math.floorDiv(from + step - 1, step) * step;
    for (long at = first; !Instant.ofEpochSecond(at).isAfter(this.end); at += step) {
      ticks.add(Instant.ofEpochSecond(at));
    }
    return ticks;
  }

  private void axis(StringBuilder svg) {
    List<Instant> ticks = ticks();
    long step = ticks.size() < 2 ? 1 : Duration.between(ticks.get(0), ticks.get(1)).toSeconds();
    DateTimeFormatter format = step < 60 ? SECONDS : step < 86_400 ? MINUTES : DAYS;
    svg.append("<g class=\"axis\">");
    for (Instant at : ticks) {
      String x = number(x(at));
      svg.append("<line x1=\"")
          .append(x)
          .append("\" y1=\"")
          .append(AXIS_HEIGHT - 8)
          .append("\" x2=\"")
          .append(x)
          .append("\" y2=\"")
          .append(height())
          .append("\" stroke=\"#ddd\"/>")
          .append("<text class=\"tick\" x=\"")
          .append(x)
          .append("\" y=\"")
          .append(AXIS_HEIGHT - 12)
          .append("\" text-anchor=\"middle\">")
          .append(format.format(at))
          .append("</text>");
    }
    svg.append("<text x=\"4\" y=\"")
        .append(AXIS_HEIGHT - 12)
        .append("\" fill=\"#666\">holder (token), UTC</text></g>\n");
  }

  private void term(StringBuilder svg, Bar bar) {
    TermRecord term = bar.term();
    String holder = String.valueOf(term.holder().id());
    double textY = AXIS_HEIGHT + bar.row() * ROW_HEIGHT + ROW_HEIGHT / 2.0 + 4;
    svg.append("<g class=\"term ")
        .append(bar.state().name().toLowerCase(Locale.ROOT))
        .append("\" id=\"term-")
        .append(term.token())
        .append('"');
    TermTable.attributes(svg, bar);
    svg.append("><title>").append(htmlEscape(TermTable.title(bar))).append("</title>");
    svg.append("<text class=\"holder\" x=\"4\" y=\"")
        .append(number(textY))
        .append("\">")
        .append(htmlEscape(shorten(holder) + " (" + term.token() + ")"))
        .append("</text>");
    if (bar.began() != null) {
      if (term.vacantBefore() != null) {
        rect(svg, "vacancy", bar.vacancyX(), bar.y(), bar.x() - bar.vacancyX())
            .append(" fill=\"url(#vacancy-hatch)\"/>");
      }
      rect(svg, "held", bar.x(), bar.y(), bar.width())
          .append(" fill=\"")
          .append(bar.colour())
          .append(bar.state() == State.UNRECORDED ? "\" fill-opacity=\"0.4\"/>" : "\"/>");
    }
    svg.append("<text class=\"reason\" x=\"")
        .append(number(bar.began() == null ? PLOT_LEFT : bar.x() + bar.width() + 4))
        .append("\" y=\"")
        .append(number(textY))
        .append("\">")
        .append(htmlEscape(TermTable.ending(bar)))
        .append("</text></g>\n");
  }

  private static StringBuilder rect(
      StringBuilder svg, String type, double x, double y, double width) {
    return svg.append("<rect class=\"")
        .append(type)
        .append("\" x=\"")
        .append(number(x))
        .append("\" y=\"")
        .append(number(y))
        .append("\" width=\"")
        .append(number(Math.max(0, width)))
        .append("\" height=\"")
        .append(BAR_HEIGHT)
        .append('"');
  }

  private static String shorten(String text) {
    return text.length() <= LABEL_CHARS ? text : text.substring(0, LABEL_CHARS - 3) + "...";
  }

  private static String number(double value) {
    return String.format(Locale.ROOT, "%.1f", value);
  }

  private static Instant min(Instant a, Instant b) {
    return a.isBefore(b) ? a : b;
  }

  private static Instant max(Instant a, Instant b) {
    return a.isAfter(b) ? a : b;
  }
}
