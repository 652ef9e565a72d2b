package dev.conch.etcd;

import static org.assertj.core.api.Assertions.assertThat;

import dev.conch.test.EtcdCluster;
import dev.conch.test.Etcdctl;
import io.etcd.jetcd.Client;
import io.etcd.jetcd.KV;
import io.etcd.jetcd.Txn;
import io.etcd.jetcd.kv.TxnResponse;
import io.etcd.jetcd.op.Cmp;
import io.etcd.jetcd.op.Op;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Proxy;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.function.Function;

/** Clients and sessions on a test cluster, all closed together. */
final class Etcds implements AutoCloseable {

  private final List<AutoCloseable> open = new ArrayList<>();

  Client client(String endpoints) {
    Client client =
        EtcdClients.builder(EtcdClients.parseEndpoints(endpoints), Duration.ofSeconds(2)).build();
    open.add(client);
    return client;
  }

  Client client(EtcdCluster cluster) {
    return client(cluster.endpoints());
  }

  EtcdSession session(Client client, SessionOptions options) {
    EtcdSession session = EtcdSession.open(client, options);
    open.add(0, session);
    return session;
  }

  /** Closes {@code closeable} first, with the sessions. */
  void track(AutoCloseable closeable) {
    open.add(0, closeable);
  }

  /**
   * {@code real}, except that calls of {@code method} get what {@code instead} makes of their
   * arguments: how a test routes or counts one kind of call of a jetcd interface.
   */
  @SuppressWarnings("unchecked")
  static <T> T intercept(Class<T> type, T real, String method, Function<Object[], Object> instead) {
    return (T)
        Proxy.newProxyInstance(
            type.getClassLoader(),
            new Class<?>[] {type},
            (self, called, args) -> {
              if (called.getName().equals(method)) {
                return instead.apply(args);
              }
              try {
                return called.invoke(real, args);
              } catch (InvocationTargetException e) {
                throw e.getCause();
              }
            });
  }

  /**
   * {@code client} with every transaction of its KV client recorded as it is built and committed by
   * {@code commit}: a test holds one back, or sends it over another link ({@link
   * RecordedTxn#send}).
   */
  static Client interceptTxns(
      Client client, Function<RecordedTxn, CompletableFuture<TxnResponse>> commit) {
    KV kv = intercept(KV.class, client.getKVClient(), "txn", args -> new RecordedTxn(commit));
    return intercept(Client.class, client, "getKVClient", args -> kv);
  }

  /** A transaction as conch built it, sent only when its test says ({@link #interceptTxns}). */
  static final class RecordedTxn implements Txn {
    final List<Cmp> cmps = new ArrayList<>();
    final List<Op> thens = new ArrayList<>();
    final List<Op> elses = new ArrayList<>();
    private final Function<RecordedTxn, CompletableFuture<TxnResponse>> commit;

    private RecordedTxn(Function<RecordedTxn, CompletableFuture<TxnResponse>> commit) {
      this.commit = commit;
    }

    @Override
    public Txn If(Cmp... compares) {
      cmps.addAll(Arrays.asList(compares));
      return this;
    }

    @Override
    public Txn Then(Op... ops) {
      thens.addAll(Arrays.asList(ops));
      return this;
    }

    @Override
    public Txn Else(Op... ops) {
      elses.addAll(Arrays.asList(ops));
      return this;
    }

    @Override
    public CompletableFuture<TxnResponse> commit() {
      return commit.apply(this);
    }

    /** Sends the transaction as it was built, over {@code client}. */
    CompletableFuture<TxnResponse> send(Client client) {
      return client
          .getKVClient()
          .txn()
          .If(cmps.toArray(Cmp[]::new))
          .Then(thens.toArray(Op[]::new))
          .Else(elses.toArray(Op[]::new))
          .commit();
    }
  }

  /** How many leases etcd has granted and not yet revoked or expired, as etcdctl lists them. */
  static int leases(EtcdCluster cluster) {
    Etcdctl.Result list = Etcdctl.run(cluster.endpoints(), Duration.ofSeconds(30), "lease", "list");
    assertThat(list.succeeded()).as(list.stderr()).isTrue();
    return (int) list.stdout().lines().filter(line -> line.matches("[0-9a-f]+")).count();
  }

  /** How many candidate keys the election of {@code office} has, as etcdctl reads them. */
  static int candidateKeys(EtcdCluster cluster, String office) {
    Etcdctl.Result keys =
        Etcdctl.run(
            cluster.endpoints(),
            Duration.ofSeconds(30),
            "get",
            "--prefix",
            "--keys-only",
            "/conch/v1/elect/" + office + "/");
    assertThat(keys.succeeded()).as(keys.stderr()).isTrue();
    return (int) keys.stdout().lines().filter(line -> !line.isBlank()).count();
  }

  @Override
  public void close() {
    for (AutoCloseable closeable : open) {
      try {
        closeable.close();
      } catch (Exception e) {
        // closing everything matters more than one failure
      }
    }
    open.clear();
  }
}
