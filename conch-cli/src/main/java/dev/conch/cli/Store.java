package dev.conch.cli;

import java.io.IOException;
import java.time.Duration;
import java.util.List;
import java.util.function.Consumer;

/**
 * What the read forms ask of etcd: a range read and a watch of an election's keys. {@link Gateway}
 * asks etcd's JSON gateway (no gRPC to start); {@link GrpcStore} asks over jetcd, where the gateway
 * cannot serve.
 */
interface Store extends AutoCloseable {

  /** One key: its text, value and revisions. */
  record Kv(String key, String value, long createRevision, long modRevision, long lease) {}

  /** A range read: the store's revision when it was read, and the keys. */
  record Range(long revision, List<Kv> kvs) {}

  /** One event of a watch; {@code deleted} marks a DELETE. */
  record Event(boolean deleted, Kv kv) {}

  /** An open watch; {@link #close()} ends it. */
  interface Watch extends AutoCloseable {
    @Override
    void close();
  }

  /**
   * Reads the keys under {@code prefix}; {@code firstCreated}: only the one with the smallest
   * create revision (the leader of an election).
   *
   * @throws IOException when etcd did not answer; a {@link java.net.SocketTimeoutException} when it
   *     did not within {@code timeout}
   */
  Range range(String prefix, boolean firstCreated, Duration timeout) throws IOException;

  /**
   * Watches the keys under {@code prefix} from {@code fromRevision}. {@code events} gets each
   * response's events as a {@code List<Event>}, on another thread, then one {@link IOException}
   * when the watch ends for any reason (never a silent end).
   */
  Watch watch(String prefix, long fromRevision, Duration timeout, Consumer<Object> events)
      throws IOException;

  @Override
  void close();
}
