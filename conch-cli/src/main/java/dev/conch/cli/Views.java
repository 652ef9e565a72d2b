package dev.conch.cli;

import com.fasterxml.jackson.core.io.JsonStringEncoder;
import dev.conch.Holder;
import java.util.Optional;

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
