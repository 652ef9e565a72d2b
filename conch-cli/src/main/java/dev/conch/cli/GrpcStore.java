package dev.conch.cli;

import dev.conch.Durations;
import io.etcd.jetcd.ByteSequence;
import io.etcd.jetcd.Client;
import io.etcd.jetcd.KeyValue;
import io.etcd.jetcd.kv.GetResponse;
import io.etcd.jetcd.options.GetOption;
import io.etcd.jetcd.options.WatchOption;
import io.etcd.jetcd.watch.WatchEvent;
import java.io.IOException;
import java.net.SocketTimeoutException;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.function.Consumer;
import java.util.function.Supplier;

/**
 * The read forms over jetcd, for an etcd whose JSON gateway cannot serve them (see {@link
 * Gateway.EtcdError#gatewayUnusable()}). After a failed read it makes a new client: gRPC's
 * reconnect back-off grows towards two minutes while etcd is away, and would hold a watch's view
 * stale that long after etcd is back.
 */
final class GrpcStore implements Store {

  private final Supplier<Client> connect;
  private Client client;

  GrpcStore(Supplier<Client> connect) {
    this.connect = connect;
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
    if (client == null) {
      client = connect.get();
    }
    CompletableFuture<GetResponse> call = client.getKVClient().get(bytes(prefix), option.build());
    try {
      GetResponse response = call.get(timeout.toNanos(), TimeUnit.NANOSECONDS);
      List<Kv> kvs = new ArrayList<>();
      for (KeyValue kv : response.getKvs()) {
        kvs.add(kv(kv));
      }
      return new Range(response.getHeader().getRevision(), kvs);
    } catch (TimeoutException e) {
      reconnect();
      throw new SocketTimeoutException("etcd did not answer within " + Durations.format(timeout));
    } catch (ExecutionException e) {
      reconnect();
      throw new IOException(e.getCause());
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IOException(e);
    } finally {
      call.cancel(true);
    }
  }

  @Override
  public Store.Watch watch(
      String prefix, long fromRevision, Duration timeout, Consumer<Object> events) {
    if (client == null) {
      client = connect.get();
    }
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

  private void reconnect() {
    Client old = client;
    client = null;
    if (old != null) {
      old.close();
    }
  }

  @Override
  public void close() {
    reconnect();
  }

  private static Kv kv(KeyValue kv) {
    return new Kv(
        kv.getKey().toString(StandardCharsets.UTF_8),
        kv.getValue().toString(StandardCharsets.UTF_8),
        kv.getCreateRevision(),
        kv.getModRevision(),
        kv.getLease());
  }

  private static ByteSequence bytes(String text) {
    return ByteSequence.from(text, StandardCharsets.UTF_8);
  }
}
