package dev.conch;

import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;

/** Records what a candidate went through, with monotonic timestamps, for tests to assert on. */
public final class EventLog implements ElectionListener, LeadershipHandler {

  /** One recorded entry: an event, or a hook call ("acquired"/"lost") with its token. */
  public record Entry(long nanos, String what, ElectionEvent event, long token) {}

  private final List<Entry> entries = new CopyOnWriteArrayList<>();

  /** Records events and hooks of {@code election}. */
  public static EventLog of(Election election) {
    EventLog log = new EventLog();
    election.addListener(log);
    election.addHandler(log);
    return log;
  }

  @Override
  public void onEvent(ElectionEvent event) {
    entries.add(new Entry(System.nanoTime(), event.getClass().getSimpleName(), event, 0));
  }

  @Override
  public void acquired(Leadership leadership) {
    entries.add(new Entry(System.nanoTime(), "acquired", null, leadership.token()));
  }

  @Override
  public void lost(Leadership leadership, LossReason reason) {
    entries.add(new Entry(System.nanoTime(), "lost:" + reason, null, leadership.token()));
  }

  public List<Entry> entries() {
    return List.copyOf(entries);
  }

  /** The events of one type, in order. */
  public <T extends ElectionEvent> List<T> events(Class<T> type) {
    return entries.stream().map(Entry::event).filter(type::isInstance).map(type::cast).toList();
  }

  /** When the first entry named {@code what} was recorded, or -1. */
  public long firstNanos(String what) {
    return entries.stream()
        .filter(e -> e.what().equals(what))
        .mapToLong(Entry::nanos)
        .findFirst()
        .orElse(-1);
  }

  /** The names of the hook calls, in order ("acquired", "lost:RESIGNED", ...). */
  public List<String> hooks() {
    return entries.stream().filter(e -> e.event() == null).map(Entry::what).toList();
  }
}
