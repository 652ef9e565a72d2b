package dev.conch;

/**
 * Receives {@link ElectionEvent}s on the election's event thread. A listener that throws is logged
 * and keeps receiving events.
 */
@FunctionalInterface
public interface ElectionListener {

  /** Called for each event, in order, unless the buffer overflowed (see {@link Election}). */
  void onEvent(ElectionEvent event);
}
