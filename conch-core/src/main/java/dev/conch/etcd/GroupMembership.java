package dev.conch.etcd;

import static dev.conch.etcd.EtcdCalls.await;
import static dev.conch.etcd.EtcdCalls.bytes;
import static dev.conch.etcd.EtcdCalls.text;

import com.fasterxml.jackson.core.JsonFactory;
import com.fasterxml.jackson.core.JsonGenerator;
import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonToken;
import dev.conch.OfficeGroup.Member;
import io.etcd.jetcd.KeyValue;
import io.etcd.jetcd.Watch;
import io.etcd.jetcd.kv.GetResponse;
import io.etcd.jetcd.options.GetOption;
import io.etcd.jetcd.options.PutOption;
import io.etcd.jetcd.options.WatchOption;
import io.etcd.jetcd.watch.WatchEvent;
import java.io.IOException;
import java.io.StringWriter;
import java.io.UncheckedIOException;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Consumer;
import org.jspecify.annotations.Nullable;

/**
 * The members of one group in etcd, as one member sees and shows them. Each member has one key,
 * {@code <meta root>groups/<group>/members/<member id>}, on its session's lease (so it goes with
 * the session), whose value is {@code {"id","priority","leads"}}. The view is a full read of the
 * group's prefix, then the events of one watch of it (require-leader, so that a member cut off from
 * the quorum fails instead of falling silent); the owner reads again on every watch error and every
 * so often as a belt.
 *
 * <p>Not thread-safe: the group's thread alone uses it; only the watch's events arrive on another
 * thread, through the inbox given to {@link #resync}.
 */
final class GroupMembership {

  private static final JsonFactory JSON = new JsonFactory();

  /** One event batch of the watch of generation {@code generation}, or the watch's end. */
  record WatchItem(long generation, @Nullable List<WatchEvent> events) {}

  private final EtcdSession session;
  private final String prefix;
  private final String selfKey;
  private final String self;
  private final int priority;
  private final Map<String, Member> byKey = new HashMap<>();
  // When each member's count last changed as seen here (Ticker time), by member id.
  private final Map<String, Long> changedAt = new HashMap<>();
  private final AtomicLong requests = new AtomicLong();
  private Watch.@Nullable Watcher watcher;
  private long generation;

  // What the member key holds in etcd now: on which lease, with which count (-1: not written).
  private long putLease;
  private int putLeads = -1;

  GroupMembership(EtcdSession session, String group, String self, int priority) {
    this.session = session;
    this.prefix = prefix(session.options(), group);
    this.selfKey = prefix + self;
    this.self = self;
    this.priority = priority;
  }

  /** The prefix of a group's member keys: {@code <meta root>groups/<group>/members/}. */
  static String prefix(SessionOptions options, String group) {
    return options.metaRoot() + "groups/" + group + "/members/";
  }

  /** The key of this member. */
  String selfKey() {
    return selfKey;
  }

  /** How many etcd requests this view made (reads, puts, watches started, the delete). */
  long requests() {
    return requests.get();
  }

  /**
   * Reads every member anew and watches from that read on; events of the new watch go to {@code
   * inbox} as {@link WatchItem}s of {@link #generation()}, those of older ones must be ignored.
   */
  void resync(Consumer<Object> inbox) throws InterruptedException {
    closeWatch();
    requests.incrementAndGet();
    GetResponse all =
        await(
            session
                .client()
                .getKVClient()
                .get(bytes(prefix), GetOption.builder().isPrefix(true).build()),
            session.timeout(),
            "reading the members of '" + prefix + "'");
    byKey.clear();
    for (KeyValue kv : all.getKvs()) {
      put(kv);
    }
    long mine = ++generation;
    requests.incrementAndGet();
    watcher =
        session
            .client()
            .getWatchClient()
            .watch(
                bytes(prefix),
                WatchOption.builder()
                    .isPrefix(true)
                    .withRevision(all.getHeader().getRevision() + 1)
                    .withRequireLeader(true)
                    .build(),
                Watch.listener(
                    response -> inbox.accept(new WatchItem(mine, response.getEvents())),
                    error -> inbox.accept(new WatchItem(mine, null)),
                    () -> inbox.accept(new WatchItem(mine, null))));
  }

  /** The generation of the current watch. */
  long generation() {
    return generation;
  }

  /** Applies the events of the current watch, in order. */
  void apply(List<WatchEvent> events) {
    for (WatchEvent event : events) {
      if (event.getEventType() == WatchEvent.EventType.DELETE) {
        byKey.remove(text(event.getKeyValue().getKey()));
      } else {
        put(event.getKeyValue());
      }
    }
  }

  private void put(KeyValue kv) {
    String key = text(kv.getKey());
    parse(text(kv.getValue()), key.equals(selfKey))
        .ifPresent(
            member -> {
              Member before = byKey.put(key, member);
              if (before == null || before.leads() != member.leads()) {
                changedAt.put(member.id(), session.ticker().nanoTime());
              }
            });
  }

  /**
   * When the count of member {@code id} last changed as seen here ({@link dev.conch.Ticker} time),
   * or {@code Long.MIN_VALUE} if never.
   */
  long changedAt(String id) {
    return changedAt.getOrDefault(id, Long.MIN_VALUE);
  }

  /** The members as seen, in id order. */
  List<Member> members() {
    List<Member> members = new ArrayList<>(byKey.values());
    members.sort(Comparator.comparing(Member::id));
    return members;
  }

  /**
   * Writes this member's key when it is not on {@code lease} with {@code leads} yet (a new lease, a
   * new count); one put, bounded by the session's timeout.
   *
   * @return whether it wrote
   */
  boolean publish(LeaseKeeper.Lease lease, int leads) throws InterruptedException {
    if (lease.id == putLease && leads == putLeads) {
      return false;
    }
    requests.incrementAndGet();
    await(
        session
            .client()
            .getKVClient()
            .put(
                bytes(selfKey),
                bytes(json(self, priority, leads)),
                PutOption.builder().withLeaseId(lease.id).build()),
        session.timeout(),
        "writing the group member '" + selfKey + "'");
    putLease = lease.id;
    putLeads = leads;
    return true;
  }

  /** What the member key holds: the lease it was written on (0 for none) and its count. */
  long putLease() {
    return putLease;
  }

  int putLeads() {
    return putLeads;
  }

  /** Forgets what was written, so that the next {@link #publish} writes again. */
  void unpublished() {
    putLease = 0;
    putLeads = -1;
  }

  /** Deletes this member's key and ends the watch; bounded by the session's timeout. */
  void leave() throws InterruptedException {
    closeWatch();
    if (putLease != 0) {
      requests.incrementAndGet();
      await(
          session.client().getKVClient().delete(bytes(selfKey)),
          session.timeout(),
          "deleting the group member '" + selfKey + "'");
      unpublished();
    }
  }

  void closeWatch() {
    Watch.@Nullable Watcher open = watcher;
    watcher = null;
    generation++;
    if (open != null) {
      open.close();
    }
  }

  /** The stored value of a member: {@code {"id":…,"priority":…,"leads":…}}. */
  static String json(String id, int priority, int leads) {
    StringWriter out = new StringWriter();
    try (JsonGenerator json = JSON.createGenerator(out)) {
      json.writeStartObject();
      json.writeStringField("id", id);
      json.writeNumberField("priority", priority);
      json.writeNumberField("leads", leads);
      json.writeEndObject();
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    return out.toString();
  }

  /** A member read from its value; empty for a value that is not one (written by hand, say). */
  static Optional<Member> parse(String value, boolean self) {
    @Nullable String id = null;
    int priority = 0;
    int leads = 0;
    try (JsonParser json = JSON.createParser(value)) {
      if (json.nextToken() != JsonToken.START_OBJECT) {
        return Optional.empty();
      }
      while (json.nextToken() == JsonToken.FIELD_NAME) {
        String field = json.currentName();
        json.nextToken();
        switch (field) {
          case "id" -> id = json.getValueAsString();
          case "priority" -> priority = json.getValueAsInt();
          case "leads" -> leads = json.getValueAsInt();
          default -> json.skipChildren();
        }
      }
    } catch (IOException e) {
      return Optional.empty();
    }
    return id == null ? Optional.empty() : Optional.of(new Member(id, priority, leads, self));
  }
}
