package dev.conch.etcd;

import static dev.conch.etcd.EtcdCalls.bytes;
import static dev.conch.etcd.EtcdCalls.text;

import dev.conch.EtcdUnavailableException;
import io.etcd.jetcd.Client;
import io.etcd.jetcd.KeyValue;
import io.etcd.jetcd.kv.GetResponse;
import io.etcd.jetcd.options.GetOption;
import io.etcd.jetcd.options.WatchOption;
import io.etcd.jetcd.watch.WatchEvent;
import java.io.IOException;
import java.io.InterruptedIOException;
import java.net.SocketTimeoutException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeoutException;
import java.util.function.Consumer;

/**
 * {@link LeaderWatcher.Source} over jetcd. Every read is bounded ({@link EtcdCalls#await}); after a
 * failed one, gRPC's reconnect back-off is cut short ({@link ConnectBackoff}), since it grows
 * towards two minutes while etcd is away and would hold a watcher's view stale that long after etcd
 * is back.
 */
final class EtcdLeaderSource implements LeaderWatcher.Source {

  private final Client client;
  private final ConnectBackoff backoff;

  EtcdLeaderSource(Client client) {
    this.client = client;
    this.backoff = new ConnectBackoff(client);
  }

  @Override
  public Range range(String prefix, boolean firstCreated, Duration timeout) throws IOException {
    GetOption.Builder option = GetOption.builder().isPrefix(true);
    if (firstCreated) {
      option
          .withSortField(GetOption.SortTarget.CREATE)
          .withSortOrder(GetOption.SortOrder.ASCEND)
          .withLimit(1);
    }
    return read(prefix, option.build(), timeout);
  }

  @Override
  public Range newest(String prefix, int limit, Duration timeout) throws IOException {
    return read(
        prefix,
        GetOption.builder()
            .isPrefix(true)
            .withSortField(GetOption.SortTarget.KEY)
            .withSortOrder(GetOption.SortOrder.DESCEND)
            .withLimit(limit)
            .build(),
        timeout);
  }

  private Range read(String prefix, GetOption option, Duration timeout) throws IOException {
    GetResponse response;
    try {
      response =
          EtcdCalls.await(
              client.getKVClient().get(bytes(prefix), option), timeout, "reading '" + prefix + "'");
    } catch (EtcdUnavailableException e) {
      backoff.reset();
      if (e.getCause() instanceof TimeoutException) {
        throw (IOException) new SocketTimeoutException(e.getMessage()).initCause(e.getCause());
      }
      throw new IOException(e.getCause() == null ? e : e.getCause());
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw (IOException) new InterruptedIOException("interrupted").initCause(e);
    }
    List<Kv> kvs = new ArrayList<>();
    for (KeyValue kv : response.getKvs()) {
      kvs.add(kv(kv));
    }
    return new Range(response.getHeader().getRevision(), kvs);
  }

  @Override
  public Watch watch(String prefix, long fromRevision, Duration timeout, Consumer<Object> events) {
    io.etcd.jetcd.Watch.Watcher watcher =
        client
            .getWatchClient()
            .watch(
                bytes(prefix),
                WatchOption.builder().isPrefix(true).withRevision(fromRevision).build(),
                io.etcd.jetcd.Watch.listener(
                    response -> {
                      List<Event> batch = new ArrayList<>();
                      for (WatchEvent event : response.getEvents()) {
                        batch.add(
                            new Event(
                                event.getEventType() == WatchEvent.EventType.DELETE,
                                kv(event.getKeyValue())));
                      }
                      events.accept(batch);
                    },
                    error -> events.accept(new IOException(error)),
                    () -> events.accept(new IOException("the watch ended"))));
    return watcher::close;
  }

  /** Leaves the client open: it belongs to the caller. */
  @Override
  public void close() {}

  private static Kv kv(KeyValue kv) {
    return new Kv(
        text(kv.getKey()),
        text(kv.getValue()),
        kv.getCreateRevision(),
        kv.getModRevision(),
        kv.getLease());
  }
}
