package dev.conch.etcd;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import ch.qos.logback.classic.Level;
import ch.qos.logback.classic.Logger;
import ch.qos.logback.classic.spi.ILoggingEvent;
import ch.qos.logback.core.read.ListAppender;
import dev.conch.Election;
import dev.conch.ElectionOptions;
import io.etcd.jetcd.Client;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Proxy;
import java.net.ServerSocket;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.slf4j.LoggerFactory;

/**
 * A session that cannot get its lease (nothing listens at the endpoint) says so once per call
 * timeout, for all its offices, naming them and the endpoint: not once per office.
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class CampaignFailureLogTest {

  private static final Duration TIMEOUT = Duration.ofMillis(500);

  private final Etcds etcds = new Etcds();

  private final ListAppender<ILoggingEvent> logged = new ListAppender<>();

  private final Logger logger = (Logger) LoggerFactory.getLogger(EtcdSession.class);

  @AfterEach
  void close() {
    etcds.close();
    logger.detachAppender(logged);
  }

  @Test
  void aLeaseThatCannotBeHadIsSaidOncePerAttemptForAllOffices() throws Exception {
    String nowhere = "http://127.0.0.1:" + closedPort();
    logged.start();
    logger.addAppender(logged);
    EtcdSession session =
        etcds.session(
            named(etcds.client(nowhere), nowhere + " (test)"),
            SessionOptions.defaults().withTimeout(TIMEOUT));
    List<Election> elections =
        List.of("billing", "reports", "sync").stream()
            .map(office -> session.election(ElectionOptions.forOffice(office)))
            .toList();
    elections.forEach(Election::start);

    long[] firstAndFourth = new long[2];
    await()
        .atMost(Duration.ofSeconds(30))
        .pollInterval(Duration.ofMillis(10))
        .until(
            () -> {
              int lines = warnings().size();
              if (lines >= 1 && firstAndFourth[0] == 0) {
                firstAndFourth[0] = System.nanoTime();
              }
              firstAndFourth[1] = System.nanoTime();
              return lines >= 4;
            });
    elections.forEach(Election::close);

    // Three lines per call timeout, were it said per office; one at most, said for the session.
    assertThat(Duration.ofNanos(firstAndFourth[1] - firstAndFourth[0]))
        .isGreaterThanOrEqualTo(TIMEOUT.multipliedBy(3).minusMillis(100));
    assertThat(warnings())
        .allSatisfy(
            line ->
                assertThat(line)
                    .startsWith("offices billing, reports, sync: campaign failed, will retry:")
                    .contains("could not get a lease from etcd at " + nowhere + " (test)"));
  }

  private List<String> warnings() {
    List<ILoggingEvent> events;
    synchronized (logged) { // the appender appends under its own lock, from the session's threads
      events = List.copyOf(logged.list);
    }
    return events.stream()
        .filter(event -> event.getLevel() == Level.WARN)
        .map(ILoggingEvent::getFormattedMessage)
        .filter(message -> message.contains("campaign failed"))
        .toList();
  }

  /** {@code client}, saying where it connects, as the Spring module's client does. */
  private static Client named(Client client, String endpoints) {
    return (Client)
        Proxy.newProxyInstance(
            ForwardingClient.class.getClassLoader(),
            new Class<?>[] {ForwardingClient.class},
            (self, method, args) ->
                switch (method.getName()) {
                  case "endpoints" -> Optional.of(endpoints);
                  case "delegate" -> Optional.of(client);
                  default -> {
                    try {
                      yield method.invoke(client, args);
                    } catch (InvocationTargetException e) {
                      throw e.getCause();
                    }
                  }
                });
  }

  private static int closedPort() throws Exception {
    try (ServerSocket socket = new ServerSocket(0)) {
      return socket.getLocalPort();
    }
  }
}
