package dev.conch.test;

import static dev.conch.test.Commands.get;
import static dev.conch.test.Commands.put;
import static java.nio.charset.StandardCharsets.UTF_8;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import java.io.IOException;
import java.io.InputStream;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.net.SocketException;
import java.net.SocketTimeoutException;
import java.time.Duration;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

class TcpProxyTest {

  @RegisterExtension static final EtcdExtension etcd = EtcdExtension.members(1);

  private EchoServer echo;

  @BeforeEach
  void startEchoServer() throws IOException {
    echo = new EchoServer();
  }

  @AfterEach
  void stopEchoServer() throws IOException {
    echo.close();
  }

  @Test
  void forwardsEtcdctlTraffic(EtcdCluster cluster) {
    try (TcpProxy proxy = TcpProxy.start("127.0.0.1", cluster.member(0).clientPort())) {
      assertThat(put(proxy.endpoint(), "/t/proxied", "yes").succeeded()).isTrue();
      assertThat(get(cluster.endpoints(), "/t/proxied").stdout().strip()).isEqualTo("yes");
    }
  }

  @Test
  void blackholeMakesEtcdctlTimeOutAndRestoreHealsIt(EtcdCluster cluster) {
    try (TcpProxy proxy = TcpProxy.start("127.0.0.1", cluster.member(0).clientPort())) {
      proxy.blackhole();
      assertThat(proxy.isBlackholed()).isTrue();
      assertThat(put(proxy.endpoint(), "/t/cut", "x").succeeded()).isFalse();

      proxy.restore();

      assertThat(proxy.isBlackholed()).isFalse();
      assertThat(put(proxy.endpoint(), "/t/cut", "x").succeeded()).isTrue();
    }
  }

  @Test
  void holdsBytesWhileBlackholedAndDeliversThemOnRestore() throws IOException {
    try (TcpProxy proxy = TcpProxy.start("127.0.0.1", echo.port());
        Socket client = new Socket(InetAddress.getLoopbackAddress(), proxy.port())) {
      proxy.blackhole();
      client.getOutputStream().write("ping".getBytes(UTF_8));
      client.setSoTimeout(300);

      // Asserts an absence, so a short fixed window is the test, not a wait for a state.
      assertThatThrownBy(() -> client.getInputStream().read())
          .isInstanceOf(SocketTimeoutException.class);

      proxy.restore();
      client.setSoTimeout(5_000);
      assertThat(readExactly(client.getInputStream(), 4)).isEqualTo("ping");
    }
  }

  @Test
  void connectsUpstreamOnlyOnceRestored() throws IOException {
    try (TcpProxy proxy = TcpProxy.start("127.0.0.1", echo.port())) {
      proxy.blackhole();
      try (Socket client = new Socket(InetAddress.getLoopbackAddress(), proxy.port())) {
        client.getOutputStream().write("held".getBytes(UTF_8));
        client.setSoTimeout(300);
        assertThatThrownBy(() -> client.getInputStream().read())
            .isInstanceOf(SocketTimeoutException.class);
        assertThat(echo.accepted()).isZero();

        proxy.restore();

        client.setSoTimeout(5_000);
        assertThat(readExactly(client.getInputStream(), 4)).isEqualTo("held");
        assertThat(echo.accepted()).isEqualTo(1);
      }
    }
  }

  @Test
  void countsTheBytesItForwardsInBothDirections() throws IOException {
    try (TcpProxy proxy = TcpProxy.start("127.0.0.1", echo.port());
        Socket client = new Socket(InetAddress.getLoopbackAddress(), proxy.port())) {
      assertThat(proxy.bytesForwarded()).isZero();
      client.setSoTimeout(5_000);
      client.getOutputStream().write("ping".getBytes(UTF_8));
      assertThat(readExactly(client.getInputStream(), 4)).isEqualTo("ping");

      // The reply is counted just after it is written to the client, so wait for the count.
      await().atMost(Duration.ofSeconds(5)).until(proxy::bytesForwarded, n -> n == 8);
    }
  }

  /**
   * Each chunk is held for the delay from when the client sent it, not from when the chunk before
   * it went on: a request that reaches the proxy in two reads (gRPC's headers, then its data) must
   * not arrive one delay late in part and two delays late in part. etcd starts a request's deadline
   * when its headers arrive, and a data frame two delays late came after it had given the request
   * up: EtcdLatePutTest's delayed put then never landed.
   */
  @Test
  void delaysEachChunkFromWhenItWasSentNotOneAfterAnother() throws Exception {
    Duration delay = Duration.ofSeconds(1);
    try (TcpProxy proxy = TcpProxy.start("127.0.0.1", echo.port());
        Socket client = new Socket(InetAddress.getLoopbackAddress(), proxy.port())) {
      client.setSoTimeout(10_000);
      client.getOutputStream().write("warm".getBytes(UTF_8));
      assertThat(readExactly(client.getInputStream(), 4)).isEqualTo("warm");
      proxy.delayRequests(delay);

      long sent = System.nanoTime();
      client.getOutputStream().write("head".getBytes(UTF_8));
      client.getOutputStream().flush();
      // A separate read for the proxy: the first chunk is already held when the second comes.
      Thread.sleep(200);
      client.getOutputStream().write("data".getBytes(UTF_8));
      client.getOutputStream().flush();

      assertThat(readExactly(client.getInputStream(), 8)).isEqualTo("headdata");
      Duration took = Duration.ofNanos(System.nanoTime() - sent);
      assertThat(took).isGreaterThanOrEqualTo(delay).isLessThan(delay.multipliedBy(2));
    }
  }

  @Test
  void dropConnectionsResetsClientsAndKeepsAccepting() throws IOException {
    try (TcpProxy proxy = TcpProxy.start("127.0.0.1", echo.port())) {
      try (Socket client = new Socket(InetAddress.getLoopbackAddress(), proxy.port())) {
        client.setSoTimeout(5_000);
        client.getOutputStream().write("one".getBytes(UTF_8));
        assertThat(readExactly(client.getInputStream(), 3)).isEqualTo("one");

        proxy.dropConnections();

        assertThatThrownBy(() -> client.getInputStream().read())
            .isInstanceOf(SocketException.class)
            .hasMessageContaining("reset");
      }
      try (Socket again = new Socket(InetAddress.getLoopbackAddress(), proxy.port())) {
        again.setSoTimeout(5_000);
        again.getOutputStream().write("two".getBytes(UTF_8));
        assertThat(readExactly(again.getInputStream(), 3)).isEqualTo("two");
      }
    }
  }

  @Test
  void closeEndsEveryProxyThread() throws IOException {
    TcpProxy proxy = TcpProxy.start("127.0.0.1", echo.port());
    Socket client = new Socket(InetAddress.getLoopbackAddress(), proxy.port());
    client.setSoTimeout(5_000);
    client.getOutputStream().write("x".getBytes(UTF_8));
    assertThat(readExactly(client.getInputStream(), 1)).isEqualTo("x");
    proxy.blackhole(); // pumps now wait on the gate, and close must still end them

    proxy.close();
    client.close();

    String prefix = "conch-proxy-" + proxy.port() + "-";
    assertThat(Thread.getAllStackTraces().keySet())
        .noneMatch(thread -> thread.getName().startsWith(prefix) && thread.isAlive());
  }

  private static String readExactly(InputStream in, int length) throws IOException {
    return new String(in.readNBytes(length), UTF_8);
  }

  /** Echoes every byte back, one thread per connection, and counts connections. */
  private static final class EchoServer implements AutoCloseable {

    private final ServerSocket server = new ServerSocket(0, 50, InetAddress.getLoopbackAddress());
    private final AtomicInteger accepted = new AtomicInteger();

    EchoServer() throws IOException {
      Thread acceptor = new Thread(this::acceptLoop, "echo-accept");
      acceptor.setDaemon(true);
      acceptor.start();
    }

    int port() {
      return server.getLocalPort();
    }

    int accepted() {
      return accepted.get();
    }

    private void acceptLoop() {
      while (true) {
        try {
          Socket socket = server.accept();
          accepted.incrementAndGet();
          Thread echo = new Thread(() -> echo(socket), "echo-" + socket.getPort());
          echo.setDaemon(true);
          echo.start();
        } catch (IOException closed) {
          return;
        }
      }
    }

    private static void echo(Socket socket) {
      try (socket) {
        socket.getInputStream().transferTo(socket.getOutputStream());
      } catch (IOException ended) {
        // The proxy reset or closed the connection.
      }
    }

    @Override
    public void close() throws IOException {
      server.close();
    }
  }
}
