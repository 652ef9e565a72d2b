package dev.conch.etcd;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.conch.Election;
import dev.conch.ElectionOptions;
import dev.conch.Holder;
import dev.conch.TransferRefusedException;
import dev.conch.test.EtcdExtension;
import io.etcd.jetcd.ByteSequence;
import io.etcd.jetcd.Client;
import io.etcd.jetcd.options.PutOption;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * A named hand-over past more candidates than etcd's default {@code --max-txn-ops} (128) takes in
 * one transaction (its compares and deletes, and the history's two writes): refused before the term
 * ends, so the leader still leads. With one more between than fits (an older limit allowed it),
 * etcd refused the transaction after the term had ended, and the office was released plainly
 * instead.
 */
@Timeout(120)
class EtcdHandOverLimitTest {

  private static final Duration WAIT = Duration.ofSeconds(20);

  @RegisterExtension static final EtcdExtension etcd = EtcdExtension.members(1);

  private final Etcds etcds = new Etcds();

  @AfterEach
  void close() {
    etcds.close();
  }

  @Test
  void aHandOverPastOneCandidateTooManyIsRefusedUpFrontAndTheLeaderLeadsOn() throws Exception {
    String office = "hand-over-limit";
    Client client = etcds.client(etcd.cluster());
    EtcdSession session = etcds.session(client, SessionOptions.defaults());
    Election a = session.election(ElectionOptions.builder(office).candidateId("a").build());
    etcds.track(a);
    a.start();
    assertThat(a.awaitLeadership(WAIT)).isTrue();
    long token = a.token().orElseThrow();
    List<String> ids = new ArrayList<>();
    for (int i = 0; i < 126; i++) {
      ids.add("c" + i);
    }
    ids.add("t");
    queue(client, office, ids);

    assertThatThrownBy(() -> a.transfer("t"))
        .isInstanceOf(TransferRefusedException.class)
        .hasMessageContaining("126 candidates stand between")
        .hasMessageContaining("take 129 operations")
        .hasMessageContaining("at most 128");

    assertThat(a.isLeader()).isTrue();
    assertThat(a.token()).hasValue(token);
  }

  /**
   * Puts a conch candidate key for each of {@code ids}, in this order, each on a lease of its own,
   * as that many candidates would: cheaper than that many sessions.
   */
  static void queue(Client client, String office, List<String> ids) throws Exception {
    for (String id : ids) {
      long lease = client.getLeaseClient().grant(120).get(10, TimeUnit.SECONDS).getID();
      String key = SessionOptions.DEFAULT_PREFIX + office + "/" + Long.toHexString(lease);
      String value = Holder.of(office, "elsewhere", 1, null, id).toValueJson();
      CompletableFuture<?> put =
          client
              .getKVClient()
              .put(bytes(key), bytes(value), PutOption.builder().withLeaseId(lease).build());
      put.get(10, TimeUnit.SECONDS);
    }
  }

  private static ByteSequence bytes(String text) {
    return ByteSequence.from(text, StandardCharsets.UTF_8);
  }
}
