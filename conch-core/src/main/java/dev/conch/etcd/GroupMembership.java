package dev.conch.etcd;

import static dev.conch.etcd.EtcdCalls.await;
import static dev.conch.etcd.EtcdCalls.bytes;
import static dev.conch.etcd.EtcdCalls.text;

import com.fasterxml.jackson.core.JsonFactory;
import com.fasterxml.jackson.core.JsonGenerator;
import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonToken;
import dev.conch.ConchException;
import dev.conch.OfficeGroup.Member;
import io.etcd.jetcd.ByteSequence;
import io.etcd.jetcd.KeyValue;
import io.etcd.jetcd.Watch;
import io.etcd.jetcd.kv.GetResponse;
import io.etcd.jetcd.kv.TxnResponse;
import io.etcd.jetcd.op.Cmp;
import io.etcd.jetcd.op.CmpTarget;
import io.etcd.jetcd.op.Op;
import io.etcd.jetcd.options.DeleteOption;
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
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Consumer;
import org.jspecify.annotations.Nullable;

/**
 * The members of one group in etcd, as one member sees and shows them. Each member has one key,
 * {@code <meta root>groups/<group>/members/<member id>}, on its session's lease (so it goes with
 * the session), whose value is {@code {"id","priority","leads","receiving","to"}} ({@code to}: the
 * members it is handing an office to, from before the hand-over until their counts show it, so that
 * the others know those counts are about to change). The key is written only where it is absent or
 * was written by this member last (one Txn each time), so that a second process with the same id
 * cannot take it over, nor delete it when it leaves: it is refused by name ({@link Taken}). The
 * view is a full read of the group's prefix, then the events of one watch of it (require-leader, so
 * that a member cut off from the quorum fails instead of falling silent); the owner reads again on
 * every watch error and every so often as a belt.
 *
 * <p>Not thread-safe: the group's thread alone uses it; only the watch's events arrive on another
 * thread, through the inbox given to {@link #resync}.
 *
 * <p>Longer than most files here, on purpose: the view, the watch that keeps it and the writes of
 * this member's key share what was last read and last written (the generation, the {@code put}
 * fields), and the key's value format ({@link #json}, {@link #parse}) is read nowhere else.
 */
final class GroupMembership {

  private static final JsonFactory JSON = new JsonFactory();

  /**
   * The member key is held by another writer: a second process with this member's id, or this
   * member's own key of a lease from before a restart, which goes when that lease does.
   */
  static final class Taken extends ConchException {
    Taken(String message) {
      super(message);
    }
  }

  /** A member's stored value: the member, and whom it is handing an office to. */
  record Value(Member member, List<String> to) {}

  /** One event batch of the watch of generation {@code generation}, or the watch's end. */
  record WatchItem(long generation, @Nullable List<WatchEvent> events) {}

  private final EtcdSession session;
  private final String group;
  private final String prefix;
  private final String selfKey;
  private final String self;
  private final int priority;
  private final Map<String, Member> byKey = new HashMap<>();
  // The members each member is handing an office to, by member id (absent: none).
  private final Map<String, List<String>> toById = new HashMap<>();
  // When each member's count last changed as seen here (Ticker time), by member id.
  private final Map<String, Long> changedAt = new HashMap<>();
  // Each member's key as first seen here: its create revision and when (Ticker time), by member id.
  private final Map<String, long[]> firstSeen = new HashMap<>();
  // When any count (or who is in the group) last changed as seen here (Ticker time).
  private long countsChangedAt;
  private final AtomicLong requests = new AtomicLong();
  private Watch.@Nullable Watcher watcher;
  private long generation;

  // What the member key holds in etcd now: on which lease, with which count (-1: not written),
  // whether receiving, and the revision of that write (0: none known to be ours).
  private long putLease;
  private int putLeads = -1;
  private boolean putReceiving;
  private List<String> putTo = List.of();
  private long putRevision;

  GroupMembership(EtcdSession session, String group, String self, int priority) {
    this.session = session;
    this.group = group;
    this.prefix = prefix(session.options(), group);
    this.selfKey = prefix + self;
    this.self = self;
    this.priority = priority;
    this.countsChangedAt = session.ticker().nanoTime();
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
    int before = byKey.size();
    byKey.clear();
    toById.clear();
    for (KeyValue kv : all.getKvs()) {
      put(kv);
    }
    if (byKey.size() != before) {
      countsChangedAt = session.ticker().nanoTime();
    }
    firstSeen.keySet().retainAll(byKey.values().stream().map(Member::id).toList());
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
        Member gone = byKey.remove(text(event.getKeyValue().getKey()));
        if (gone != null) {
          firstSeen.remove(gone.id());
          toById.remove(gone.id());
          countsChangedAt = session.ticker().nanoTime();
        }
      } else {
        put(event.getKeyValue());
      }
    }
  }

  private void put(KeyValue kv) {
    String key = text(kv.getKey());
    parse(text(kv.getValue()), key.equals(selfKey))
        .ifPresent(
            value -> {
              Member member = value.member();
              if (value.to().isEmpty()) {
                toById.remove(member.id());
              } else {
                toById.put(member.id(), value.to());
              }
              long now = session.ticker().nanoTime();
              Member before = byKey.put(key, member);
              if (before == null || before.leads() != member.leads()) {
                changedAt.put(member.id(), now);
                countsChangedAt = now;
              }
              long[] seen = firstSeen.get(member.id());
              if (seen == null || seen[0] != kv.getCreateRevision()) {
                firstSeen.put(member.id(), new long[] {kv.getCreateRevision(), now});
              }
            });
  }

  /**
   * How long the key of member {@code id} has existed as seen here (since this member first saw
   * that key, by its create revision; a key seen at this member's start counts from then), or -1
   * when it is not in the view.
   */
  long keyAge(String id, long now) {
    long[] seen = firstSeen.get(id);
    return seen == null ? -1 : now - seen[1];
  }

  /** The create revision of member {@code id}'s key as seen here, or 0 when it is not in view. */
  long createRevision(String id) {
    long[] seen = firstSeen.get(id);
    return seen == null ? 0 : seen[0];
  }

  /**
   * The members whose counts are about to change, as the others (not this one) published: those
   * handing an office over, and those they hand to.
   */
  Set<String> moving() {
    Set<String> moving = new TreeSet<>();
    toById.forEach(
        (id, to) -> {
          if (!id.equals(self)) {
            moving.add(id);
            moving.addAll(to);
          }
        });
    return moving;
  }

  /** When a count, or who is in the group, last changed as seen here ({@link dev.conch.Ticker}). */
  long countsChangedAt() {
    return countsChangedAt;
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
   * Writes this member's key when it is not on {@code lease} with {@code leads} and {@code
   * receiving} and {@code to} yet (a new lease, a new count); one Txn, bounded by the session's
   * timeout, that writes only where the key is absent or was written by this member last; a second
   * when that fails only because this member's own write was answered too late to learn its
   * revision.
   *
   * @return whether it wrote
   * @throws Taken when the key is held by another writer: nothing was written
   */
  boolean publish(LeaseKeeper.Lease lease, int leads, boolean receiving, List<String> to)
      throws InterruptedException {
    if (lease.id == putLease
        && leads == putLeads
        && receiving == putReceiving
        && to.equals(putTo)) {
      return false;
    }
    ByteSequence key = bytes(selfKey);
    Op put =
        Op.put(
            key,
            bytes(json(self, priority, leads, receiving, to)),
            PutOption.builder().withLeaseId(lease.id).build());
    TxnResponse written = write(key, ours(key, putRevision), put, "writing");
    if (!written.isSucceeded()) {
      List<KeyValue> held = written.getGetResponses().get(0).getKvs();
      long holder = held.isEmpty() ? 0 : held.get(0).getModRevision();
      if (!held.isEmpty() && held.get(0).getLease() != lease.id) {
        throw new Taken(
            "member id '"
                + self
                + "' of group '"
                + group
                + "' is held by another writer (lease "
                + Long.toHexString(held.get(0).getLease())
                + "): is a second process running with candidate id '"
                + self
                + "'? This one takes no part in the group until that key is gone");
      }
      // Absent, or on this member's lease (a write of ours whose answer was lost): take it.
      written = write(key, ours(key, holder), put, "writing");
      if (!written.isSucceeded()) {
        throw new Taken(
            "member id '" + self + "' of group '" + group + "': its key changed as it was written");
      }
    }
    putLease = lease.id;
    putLeads = leads;
    putReceiving = receiving;
    putTo = List.copyOf(to);
    putRevision = written.getHeader().getRevision();
    return true;
  }

  /** The key is where this member left it: absent ({@code revision} 0), or at that revision. */
  private static Cmp ours(ByteSequence key, long revision) {
    return revision == 0
        ? new Cmp(key, Cmp.Op.EQUAL, CmpTarget.version(0))
        : new Cmp(key, Cmp.Op.EQUAL, CmpTarget.modRevision(revision));
  }

  /**
   * One conditional write of this member's key, bounded by the session's timeout: {@code then} when
   * {@code when} holds, else a read of the key (what holds it).
   */
  private TxnResponse write(ByteSequence key, Cmp when, Op then, String doing)
      throws InterruptedException {
    requests.incrementAndGet();
    return await(
        session
            .client()
            .getKVClient()
            .txn()
            .If(when)
            .Then(then)
            .Else(Op.get(key, GetOption.DEFAULT))
            .commit(),
        session.timeout(),
        doing + " the group member '" + selfKey + "'");
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

  /**
   * Deletes this member's key, if it is still as this member wrote it (never another writer's), and
   * ends the watch; one Txn, bounded by the session's timeout.
   */
  void leave() throws InterruptedException {
    closeWatch();
    if (putRevision != 0) {
      ByteSequence key = bytes(selfKey);
      write(key, ours(key, putRevision), Op.delete(key, DeleteOption.DEFAULT), "deleting");
      unpublished();
      putRevision = 0;
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

  /**
   * The stored value of a member: {@code {"id":…,"priority":…,"leads":…,"receiving":…}}, and {@code
   * "to":[…]} while it hands an office over.
   */
  static String json(String id, int priority, int leads, boolean receiving, List<String> to) {
    StringWriter out = new StringWriter();
    try (JsonGenerator json = JSON.createGenerator(out)) {
      json.writeStartObject();
      json.writeStringField("id", id);
      json.writeNumberField("priority", priority);
      json.writeNumberField("leads", leads);
      json.writeBooleanField("receiving", receiving);
      if (!to.isEmpty()) {
        json.writeArrayFieldStart("to");
        for (String target : to) {
          json.writeString(target);
        }
        json.writeEndArray();
      }
      json.writeEndObject();
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    return out.toString();
  }

  /**
   * A member read from its value; empty for a value that is not one (written by hand, say). A value
   * without {@code receiving} (written by an older version) receives.
   */
  static Optional<Value> parse(String value, boolean self) {
    @Nullable String id = null;
    int priority = 0;
    int leads = 0;
    boolean receiving = true;
    List<String> to = new ArrayList<>();
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
          case "receiving" -> receiving = json.getValueAsBoolean(true);
          case "to" -> {
            if (json.currentToken() == JsonToken.START_ARRAY) {
              while (json.nextToken() == JsonToken.VALUE_STRING) {
                to.add(json.getText());
              }
            }
            json.skipChildren();
          }
          default -> json.skipChildren();
        }
      }
    } catch (IOException e) {
      return Optional.empty();
    }
    return id == null
        ? Optional.empty()
        : Optional.of(new Value(new Member(id, priority, leads, self, receiving), List.copyOf(to)));
  }
}
