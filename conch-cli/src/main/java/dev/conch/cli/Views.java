package dev.conch.cli;

import com.fasterxml.jackson.core.io.JsonStringEncoder;
import dev.conch.Durations;
import dev.conch.Holder;
import dev.conch.LossReason;
import dev.conch.TermRecord;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Optional;
import org.jspecify.annotations.Nullable;

/**
 * The lines {@code conch elect} prints on stdout. Their shapes are part of the spec: scripts parse
 * them, so every change here is a breaking change.
 */
final class Views {

  private Views() {}

  /**
   * The holder as one line: {@code <office> <host> pid=<pid> since=<since> rev=<rev>}; a value that
   * another tool wrote (an {@code etcdctl elect} proposal) as {@code <office> <value> rev=<rev>},
   * the value on one line ({@code ""} when empty, as {@code etcdctl lock} leaves it).
   */
  static String holderLine(Holder holder) {
    String raw = holder.raw(); // set exactly when another tool wrote the value
    if (raw != null) {
      return holder.office() + " " + oneLine(raw) + " rev=" + holder.rev();
    }
    return holder.office()
        + " "
        + holder.host()
        + " pid="
        + holder.pid()
        + " since="
        + (holder.since() == null ? "-" : holder.since().toString())
        + " rev="
        + holder.rev();
  }

  /** The holder as a line of JSON: the holder JSON with {@code rev} and {@code lease}. */
  static String holderJson(Holder holder) {
    return holder.toJson();
  }

  /** The holder, or the vacancy, in the chosen format. */
  static String leader(String office, Optional<Holder> holder, boolean json) {
    if (holder.isPresent()) {
      return json ? holderJson(holder.get()) : holderLine(holder.get());
    }
    return json ? "{\"office\": " + quote(office) + ", \"vacant\": true}" : office + " -";
  }

  /** The answer of {@code --assert --json}: {@code {"held": b, "rev": n|null, "host": h|null}}. */
  static String assertion(boolean held, Optional<Holder> holder) {
    String rev = holder.map(h -> Long.toString(h.rev())).orElse("null");
    String host = holder.map(Holder::host).map(Views::quote).orElse("null");
    return "{\"held\": " + held + ", \"rev\": " + rev + ", \"host\": " + host + "}";
  }

  /**
   * A term of the office's history as one line: {@code <office> token=<t> id=<id> host=<host>
   * pid=<pid> began=<time> ended=<time|-> held=<duration|-> vacant-before=<duration|-> <how>},
   * where {@code <how>} is the reason's code and, after {@code ": "}, what ended the term, or
   * {@code open} for a term with no recorded end.
   */
  static String termLine(TermRecord term) {
    Holder holder = term.holder();
    LossReason reason = term.reason();
    return term.office()
        + " token="
        + term.token()
        + " id="
        + oneLine(String.valueOf(holder.id()))
        + " host="
        + holder.host()
        + " pid="
        + holder.pid()
        + " began="
        + orDash(holder.since())
        + " ended="
        + orDash(term.ended())
        + " held="
        + held(term).map(Durations::format).orElse("-")
        + " vacant-before="
        + (term.vacantBefore() == null ? "-" : Durations.format(term.vacantBefore()))
        + " "
        + (reason == null
            ? "open"
            : TermRecord.reasonCode(reason)
                + (term.detail() == null ? "" : ": " + oneLine(term.detail())));
  }

  /**
   * The office's last change in one plain sentence, with its figures, checked against the leader
   * read now: a term whose end is not recorded is said to lead only while its key still does.
   */
  static String why(String office, List<TermRecord> terms, Optional<Holder> leader) {
    TermRecord last = terms.get(terms.size() - 1);
    TermRecord before = terms.size() > 1 ? terms.get(terms.size() - 2) : null;
    boolean leads = leader.isPresent() && leader.get().rev() == last.token();
    if (last.isOpen() && leads) {
      return office
          + ": "
          + who(last)
          + " leads with token "
          + last.token()
          + " since "
          + orDash(last.holder().since())
          + (before == null
              ? ", the first recorded term."
              : ", after "
                  + ended(before)
                  + (last.vacantBefore() == null
                      ? "."
                      : "; the office was vacant for "
                          + Durations.format(last.vacantBefore())
                          + " in between."));
    }
    String now =
        leader.isEmpty()
            ? "the office is vacant"
            : leader.get().rev() > last.token() && leader.get().isConch()
                ? who(leader.get())
                    + " leads with token "
                    + leader.get().rev()
                    + " (not recorded yet)"
                : "the office is held by "
                    + holderLine(leader.get())
                    + ", whose term is not recorded";
    if (last.isOpen()) {
      return office
          + ": "
          + who(last)
          + " began a term with token "
          + last.token()
          + " at "
          + orDash(last.holder().since())
          + " that ended without a recorded end (a crash or a partition no successor has closed"
          + " yet); "
          + now
          + ".";
    }
    return office + ": " + ended(last) + "; " + now + ".";
  }

  /** The answer of {@code --why --json}: the sentence and the last two terms as records. */
  static String whyJson(
      String office, String sentence, List<TermRecord> terms, Optional<Holder> leader) {
    StringBuilder json = new StringBuilder(512);
    json.append("{\"office\": ")
        .append(quote(office))
        .append(", \"why\": ")
        .append(quote(sentence))
        .append(", \"leader\": ")
        .append(leader.map(Holder::toJson).orElse("null"))
        .append(", \"terms\": [");
    for (int i = 0; i < terms.size(); i++) {
      json.append(i == 0 ? "" : ", ").append(terms.get(i).toViewJson());
    }
    return json.append("]}").toString();
  }

  private static String who(Holder holder) {
    return "'" + holder.id() + "' (host " + holder.host() + ", pid " + holder.pid() + ")";
  }

  private static String who(TermRecord term) {
    return who(term.holder());
  }

  /** "'a' (host …) ended its term with token t after 5m at T: resigned (what ended it)". */
  private static String ended(TermRecord term) {
    LossReason reason = term.reason();
    return who(term)
        + " ended its term with token "
        + term.token()
        + held(term).map(d -> " after " + Durations.format(d)).orElse("")
        + " at "
        + orDash(term.ended())
        + ": "
        + (reason == null ? "open" : TermRecord.reasonCode(reason))
        + (term.detail() == null ? "" : " (" + oneLine(term.detail()) + ")");
  }

  private static Optional<Duration> held(TermRecord term) {
    Instant began = term.holder().since();
    Instant ended = term.ended();
    return began == null || ended == null || ended.isBefore(began)
        ? Optional.empty()
        : Optional.of(Duration.between(began, ended));
  }

  private static String orDash(@Nullable Instant instant) {
    return instant == null ? "-" : instant.toString();
  }

  private static String quote(String text) {
    return "\"" + new String(JsonStringEncoder.getInstance().quoteAsString(text)) + "\"";
  }

  private static String oneLine(String text) {
    if (text.isEmpty()) {
      return "\"\"";
    }
    return text.replace("\\", "\\\\").replace("\n", "\\n").replace("\r", "\\r");
  }
}
