package dev.conch;

import com.fasterxml.jackson.core.JsonFactory;
import com.fasterxml.jackson.core.JsonGenerator;
import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonToken;
import java.io.IOException;
import java.io.StringWriter;
import java.io.UncheckedIOException;
import java.time.Instant;
import java.time.format.DateTimeParseException;
import java.util.Objects;
import java.util.Optional;
import org.jspecify.annotations.Nullable;

/**
 * Who holds (or campaigns for) an office: the value of its key, the holder JSON {@code
 * {"office","host","pid","since","id"}}, plus the create revision ({@code rev}, the fencing token
 * when this holder leads) and the lease of its key.
 *
 * <p>A key written by another tool (an {@code etcdctl elect} proposal, an {@code etcdctl lock} key)
 * has no holder JSON: then {@link #raw()} carries the value as it is and the other fields are
 * empty.
 *
 * @param office the office
 * @param host the host name of the candidate
 * @param pid the process id of the candidate, 0 when unknown
 * @param since when this holder won (or joined, while it campaigns); {@code null} when unknown
 * @param id the candidate id, unique per candidate ({@code host:pid} by default)
 * @param rev the create revision of the key, 0 before it is written
 * @param lease the lease of the key, 0 before it is written
 * @param raw the stored value when it is not conch's holder JSON, else {@code null}
 * @param priority the candidate's priority ({@code "priority"} in the JSON, written only when it is
 *     not 0, so that the values of candidates without one stay as they were); higher leads first
 */
public record Holder(
    String office,
    @Nullable String host,
    long pid,
    @Nullable Instant since,
    @Nullable String id,
    long rev,
    long lease,
    @Nullable String raw,
    int priority) {

  private static final JsonFactory JSON = new JsonFactory();

  /** A holder of priority 0 (what every holder was before priorities). */
  public Holder(
      String office,
      @Nullable String host,
      long pid,
      @Nullable Instant since,
      @Nullable String id,
      long rev,
      long lease,
      @Nullable String raw) {
    this(office, host, pid, since, id, rev, lease, raw, 0);
  }

  /** A holder described by conch's own fields, not yet written to a store. */
  public static Holder of(
      String office, String host, long pid, @Nullable Instant since, String id) {
    return new Holder(office, host, pid, since, id, 0, 0, null, 0);
  }

  /** This candidate in this process: host name, pid, and the given id (or {@code host:pid}). */
  public static Holder self(String office, @Nullable String id, @Nullable Instant since) {
    String host = Hosts.localName();
    long pid = ProcessHandle.current().pid();
    return of(office, host, pid, since, id == null || id.isBlank() ? host + ":" + pid : id);
  }

  /** The same holder as stored under a key with this create revision and lease. */
  public Holder at(long rev, long lease) {
    return new Holder(office, host, pid, since, id, rev, lease, raw, priority);
  }

  /** The same holder with this priority. */
  public Holder withPriority(int newPriority) {
    return new Holder(office, host, pid, since, id, rev, lease, raw, newPriority);
  }

  /** The same holder, now leading since the given instant. */
  public Holder since(Instant instant) {
    return new Holder(office, host, pid, instant, id, rev, lease, raw, priority);
  }

  /** Whether this holder was written by conch (its value is the holder JSON). */
  public boolean isConch() {
    return raw == null;
  }

  /** The lease as etcd and the key show it: lowercase hex, unpadded. */
  public String leaseHex() {
    return Long.toHexString(lease);
  }

  /**
   * The value conch stores under a candidate's key: {@code {"office","host","pid","since","id"}},
   * and {@code "priority"} when it is not 0.
   */
  public String toValueJson() {
    return write(false);
  }

  /** The holder as views show it: the stored fields plus {@code rev} and {@code lease} (hex). */
  public String toJson() {
    return write(true);
  }

  private String write(boolean view) {
    StringWriter out = new StringWriter();
    try (JsonGenerator json = JSON.createGenerator(out)) {
      json.writeStartObject();
      json.writeStringField("office", office);
      if (raw != null) {
        json.writeStringField("value", raw);
      } else {
        json.writeStringField("host", host);
        json.writeNumberField("pid", pid);
        json.writeStringField("since", since == null ? null : since.toString());
        json.writeStringField("id", id);
        if (priority != 0) {
          json.writeNumberField("priority", priority);
        }
      }
      if (view) {
        json.writeNumberField("rev", rev);
        json.writeStringField("lease", leaseHex());
      }
      json.writeEndObject();
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    return out.toString();
  }

  /**
   * Reads a stored value. A value that is not conch's holder JSON is kept as {@link #raw()}, never
   * an error: other tools share the election.
   */
  public static Holder parse(String office, String value, long rev, long lease) {
    return parseJson(office, value)
        .map(h -> h.at(rev, lease))
        .orElseGet(() -> new Holder(office, null, 0, null, null, rev, lease, value, 0));
  }

  private static Optional<Holder> parseJson(String office, String value) {
    @Nullable String host = null;
    @Nullable String id = null;
    @Nullable Instant since = null;
    long pid = 0;
    int priority = 0;
    try (JsonParser json = JSON.createParser(value)) {
      if (json.nextToken() != JsonToken.START_OBJECT) {
        return Optional.empty();
      }
      while (json.nextToken() == JsonToken.FIELD_NAME) {
        String field = json.currentName();
        JsonToken token = json.nextToken();
        switch (field) {
          case "host" -> host = json.getValueAsString();
          case "id" -> id = json.getValueAsString();
          case "pid" -> pid = json.getValueAsLong();
          case "priority" -> priority = json.getValueAsInt();
          case "since" ->
              since = token == JsonToken.VALUE_NULL ? null : Instant.parse(json.getText());
          default -> json.skipChildren();
        }
      }
    } catch (IOException | DateTimeParseException e) {
      return Optional.empty();
    }
    return host == null || id == null
        ? Optional.empty()
        : Optional.of(of(office, host, pid, since, id).withPriority(priority));
  }

  /** Whether both describe the same candidate (same id), whatever their revisions. */
  public boolean sameCandidate(Holder other) {
    return other != null && Objects.equals(id, other.id) && raw == null && other.raw == null;
  }
}
