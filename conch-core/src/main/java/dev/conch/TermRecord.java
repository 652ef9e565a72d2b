package dev.conch;

import com.fasterxml.jackson.core.JsonFactory;
import com.fasterxml.jackson.core.JsonGenerator;
import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonToken;
import java.io.IOException;
import java.io.StringWriter;
import java.io.UncheckedIOException;
import java.time.Duration;
import java.time.Instant;
import java.time.format.DateTimeParseException;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Optional;
import org.jspecify.annotations.Nullable;

/**
 * One term of an office as the office's history keeps it (DESIGN.md, "The flight recorder"): who
 * led, with which token, from when, and when and how the term ended.
 *
 * <p>The holder writes the term's beginning when it wins and its end with the release that ends it,
 * both under the guard of its key; a term that ended without a word (a crash, a partition, a frozen
 * process) is closed by its successor, from what the successor could see: {@link #recordedBy()} is
 * then the successor's id.
 *
 * @param holder who led: id, host, pid, lease, the token as {@link Holder#rev()} and the beginning
 *     as {@link Holder#since()}
 * @param ended when the term ended; {@code null} while it lasts, or when no one knows
 * @param reason how it ended ({@link #reasonCode(LossReason)}); {@code null} while it lasts
 * @param detail what ended it, in words: who asked, to whom it was handed, which error
 * @param recordedBy the candidate that wrote the end: the holder itself, or its successor
 * @param vacantBefore how long the office had no leader before this term: from the end of the term
 *     before, as recorded, to this one's beginning; {@code null} when either is unknown
 */
public record TermRecord(
    Holder holder,
    @Nullable Instant ended,
    @Nullable LossReason reason,
    @Nullable String detail,
    @Nullable String recordedBy,
    @Nullable Duration vacantBefore) {

  private static final JsonFactory JSON = new JsonFactory();

  /** A term that has just begun. */
  public static TermRecord begun(Holder holder) {
    return new TermRecord(holder, null, null, null, null, null);
  }

  /** The office. */
  public String office() {
    return holder.office();
  }

  /** The term's fencing token: its key's create revision. */
  public long token() {
    return holder.rev();
  }

  /** Whether no end is recorded: the term lasts, or ended without a word and was not closed. */
  public boolean isOpen() {
    return reason == null;
  }

  /** The same term, ended. */
  public TermRecord end(
      Instant at, LossReason why, @Nullable String whatEndedIt, @Nullable String recorder) {
    return new TermRecord(holder, at, why, whatEndedIt, recorder, vacantBefore);
  }

  /** The same term, with the vacancy before it. */
  public TermRecord withVacantBefore(@Nullable Duration vacancy) {
    return new TermRecord(holder, ended, reason, detail, recordedBy, vacancy);
  }

  /**
   * The same terms, oldest first, each with the vacancy before it: from the recorded end of the
   * term before to its own beginning ({@code null} where either is unknown).
   */
  public static List<TermRecord> withVacancies(List<TermRecord> oldestFirst) {
    List<TermRecord> terms = new ArrayList<>(oldestFirst);
    for (int i = 1; i < terms.size(); i++) {
      Instant before = terms.get(i - 1).ended();
      Instant began = terms.get(i).holder().since();
      if (before != null && began != null) {
        Duration vacancy = Duration.between(before, began);
        terms.set(i, terms.get(i).withVacantBefore(vacancy.isNegative() ? Duration.ZERO : vacancy));
      }
    }
    return terms;
  }

  /**
   * The code of a reason as the history stores and shows it: the {@link LossReason} in lower case
   * with '-' ({@code resigned}, {@code transferred}, {@code closed}, {@code acquire-failed}, {@code
   * renewal-failed}, {@code lease-expired}, {@code key-deleted}).
   */
  public static String reasonCode(LossReason reason) {
    return reason.name().toLowerCase(Locale.ROOT).replace('_', '-');
  }

  /** The reason of a code written by {@link #reasonCode}; empty for any other text. */
  public static Optional<LossReason> reasonOf(@Nullable String code) {
    if (code == null) {
      return Optional.empty();
    }
    for (LossReason reason : LossReason.values()) {
      if (reasonCode(reason).equals(code)) {
        return Optional.of(reason);
      }
    }
    return Optional.empty();
  }

  /**
   * The stored value: {@code {"office","token","id","host","pid","lease","began"}}, and once ended
   * {@code "ended","reason","detail","by"}. A few hundred bytes.
   */
  public String toJson() {
    return write(false);
  }

  /**
   * The record as views show it (a line of {@code conch elect --history --json}): the stored fields
   * plus {@code "vacantBeforeMs"}, {@code null} when unknown.
   */
  public String toViewJson() {
    return write(true);
  }

  private String write(boolean view) {
    StringWriter out = new StringWriter(256);
    try (JsonGenerator json = JSON.createGenerator(out)) {
      json.writeStartObject();
      json.writeStringField("office", holder.office());
      json.writeNumberField("token", holder.rev());
      json.writeStringField("id", holder.id());
      json.writeStringField("host", holder.host());
      json.writeNumberField("pid", holder.pid());
      json.writeStringField("lease", holder.leaseHex());
      json.writeStringField("began", text(holder.since()));
      if (reason != null) {
        json.writeStringField("ended", text(ended));
        json.writeStringField("reason", reasonCode(reason));
        json.writeStringField("detail", detail);
        json.writeStringField("by", recordedBy);
      }
      if (view) {
        json.writeFieldName("vacantBeforeMs");
        if (vacantBefore == null) {
          json.writeNull();
        } else {
          json.writeNumber(vacantBefore.toMillis());
        }
      }
      json.writeEndObject();
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    return out.toString();
  }

  private static @Nullable String text(@Nullable Instant instant) {
    return instant == null ? null : instant.toString();
  }

  /**
   * Reads a stored value of {@code office}; empty when it is not a term record of that office (a
   * damaged or foreign entry), never an error.
   */
  public static Optional<TermRecord> parse(String office, String value) {
    String id = null;
    String host = null;
    String lease = null;
    String reason = null;
    String detail = null;
    String by = null;
    String owner = null;
    Instant began = null;
    Instant ended = null;
    long token = 0;
    long pid = 0;
    try (JsonParser json = JSON.createParser(value)) {
      if (json.nextToken() != JsonToken.START_OBJECT) {
        return Optional.empty();
      }
      while (json.nextToken() == JsonToken.FIELD_NAME) {
        String field = json.currentName();
        JsonToken token0 = json.nextToken();
        if (token0 == JsonToken.VALUE_NULL) {
          continue;
        }
        switch (field) {
          case "office" -> owner = json.getValueAsString();
          case "token" -> token = json.getValueAsLong();
          case "id" -> id = json.getValueAsString();
          case "host" -> host = json.getValueAsString();
          case "pid" -> pid = json.getValueAsLong();
          case "lease" -> lease = json.getValueAsString();
          case "began" -> began = Instant.parse(json.getText());
          case "ended" -> ended = Instant.parse(json.getText());
          case "reason" -> reason = json.getValueAsString();
          case "detail" -> detail = json.getValueAsString();
          case "by" -> by = json.getValueAsString();
          default -> json.skipChildren();
        }
      }
      Optional<LossReason> why = reasonOf(reason);
      if (!office.equals(owner)
          || token <= 0
          || id == null
          || host == null
          || lease == null
          || (reason != null && why.isEmpty())) {
        return Optional.empty();
      }
      Holder holder =
          Holder.of(office, host, pid, began, id).at(token, Long.parseUnsignedLong(lease, 16));
      return Optional.of(new TermRecord(holder, ended, why.orElse(null), detail, by, null));
    } catch (IOException | DateTimeParseException | NumberFormatException e) {
      return Optional.empty();
    }
  }
}
