package dev.conch.spring.leaderonly;

import com.fasterxml.jackson.core.JsonFactory;
import com.fasterxml.jackson.core.JsonGenerator;
import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonToken;
import java.io.IOException;
import java.io.StringWriter;
import java.io.UncheckedIOException;
import java.time.Instant;
import java.time.format.DateTimeParseException;
import java.util.Locale;
import java.util.Optional;
import org.jspecify.annotations.Nullable;

/**
 * The last firing of a {@code @Scheduled} {@link LeaderOnly @LeaderOnly} job, as its office keeps
 * it: which term claimed it, for which scheduled time, and how it ended. Stored as JSON ({@code
 * {"office","job","token","holder","scheduled","started","ended","outcome"}}, times RFC 3339 UTC).
 *
 * @param office the office
 * @param job the job, as {@code Class.method()}
 * @param token the fencing token of the term that claimed the firing
 * @param holder the candidate id of that term's holder
 * @param scheduled the firing: when the schedule said the job was due
 * @param started when the run started
 * @param ended when the run ended (or was found interrupted), {@code null} while it runs
 * @param outcome how it ended, {@link Outcome#RUNNING} until then
 */
public record JobRecord(
    String office,
    String job,
    long token,
    String holder,
    Instant scheduled,
    Instant started,
    @Nullable Instant ended,
    Outcome outcome) {

  private static final JsonFactory JSON = new JsonFactory();

  /** How a claimed firing ended. */
  public enum Outcome {

    /** Claimed and running, or its holder stopped without saying how it ended. */
    RUNNING,

    /** Ran and returned. */
    DONE,

    /** Ran and threw. */
    FAILED,

    /**
     * Its term's stop interrupted it: it still ran when the stop's bound (the office's stop
     * timeout, or the safety margin before the lease deadline) was reached, and then threw. Not run
     * again.
     */
    INTERRUPTED,

    /**
     * Its holder never said how it ended (it crashed, or lost its key before it could): the next
     * leader found it so, and does not run the firing again (it may have done its work).
     */
    UNKNOWN
  }

  /** The same firing, ended at {@code time} with {@code how}. */
  public JobRecord ended(Instant time, Outcome how) {
    return new JobRecord(office, job, token, holder, scheduled, started, time, how);
  }

  /** Whether the run ended, one way or another. */
  public boolean finished() {
    return outcome != Outcome.RUNNING;
  }

  /** The record as stored. */
  public String toJson() {
    StringWriter out = new StringWriter();
    try (JsonGenerator json = JSON.createGenerator(out)) {
      json.writeStartObject();
      json.writeStringField("office", office);
      json.writeStringField("job", job);
      json.writeNumberField("token", token);
      json.writeStringField("holder", holder);
      json.writeStringField("scheduled", scheduled.toString());
      json.writeStringField("started", started.toString());
      json.writeStringField("ended", (ended != null) ? ended.toString() : null);
      json.writeStringField("outcome", outcome.name().toLowerCase(Locale.ROOT));
      json.writeEndObject();
    } catch (IOException ex) {
      throw new UncheckedIOException(ex);
    }
    return out.toString();
  }

  /** Reads a stored record; empty when {@code value} is not one (written by something else). */
  public static Optional<JobRecord> parse(String value) {
    String office = null;
    String job = null;
    String holder = "";
    long token = 0;
    Instant scheduled = null;
    Instant started = null;
    Instant ended = null;
    Outcome outcome = null;
    try (JsonParser json = JSON.createParser(value)) {
      if (json.nextToken() != JsonToken.START_OBJECT) {
        return Optional.empty();
      }
      while (json.nextToken() == JsonToken.FIELD_NAME) {
        String field = json.currentName();
        JsonToken kind = json.nextToken();
        if (kind == JsonToken.VALUE_NULL) {
          continue;
        }
        switch (field) {
          case "office" -> office = json.getText();
          case "job" -> job = json.getText();
          case "holder" -> holder = json.getText();
          case "token" -> token = json.getValueAsLong();
          case "scheduled" -> scheduled = Instant.parse(json.getText());
          case "started" -> started = Instant.parse(json.getText());
          case "ended" -> ended = Instant.parse(json.getText());
          case "outcome" -> outcome = Outcome.valueOf(json.getText().toUpperCase(Locale.ROOT));
          default -> json.skipChildren();
        }
      }
    } catch (IOException | DateTimeParseException | IllegalArgumentException ex) {
      return Optional.empty();
    }
    if (office == null || job == null || scheduled == null || started == null || outcome == null) {
      return Optional.empty();
    }
    return Optional.of(
        new JobRecord(office, job, token, holder, scheduled, started, ended, outcome));
  }
}
