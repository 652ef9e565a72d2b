package dev.conch.test;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.time.Duration;
import java.util.Arrays;
import java.util.Set;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import org.jspecify.annotations.Nullable;

/**
 * A TCP proxy on a free loopback port that forwards to one target and can cut its clients off, to
 * test what a client does when the network to etcd fails.
 *
 * <pre>{@code
 * try (TcpProxy proxy = TcpProxy.start("127.0.0.1", etcd.member(0).clientPort())) {
 *   client = connect(proxy.endpoint());
 *   proxy.blackhole(); // connections stay open, nothing flows: a silent partition
 *   proxy.restore();
 *   proxy.dropConnections(); // every connection reset: a crashed peer or a restarted router
 *   proxy.delayRequests(Duration.ofSeconds(3)); // requests arrive late, answers at once
 * }
 * }</pre>
 *
 * <p>Longer than most files here, on purpose: its faults (blackhole, reset, delay) act on the same
 * pairs of sockets and their pump threads, so each needs the others' state; apart they would share
 * it through a wider interface than this class's.
 */
public final class TcpProxy implements AutoCloseable {

  private static final int CONNECT_TIMEOUT_MILLIS = 2_000;
  private static final Duration JOIN_TIMEOUT = Duration.ofSeconds(5);

  private final String targetHost;
  private final int targetPort;
  private final ServerSocket server;
  private final Thread acceptor;
  private final Set<Link> links = ConcurrentHashMap.newKeySet();
  private final Set<Thread> threads = ConcurrentHashMap.newKeySet();
  private final AtomicInteger linkCount = new AtomicInteger();
  private final AtomicLong forwarded = new AtomicLong();

  // Guarded by "this"; pumps wait on "this" while black-holed.
  private boolean blackholed;
  private boolean closed;
  private long requestDelayNanos;

  private TcpProxy(String targetHost, int targetPort) throws IOException {
    this.targetHost = targetHost;
    this.targetPort = targetPort;
    this.server = new ServerSocket(0, 50, InetAddress.getLoopbackAddress());
    this.acceptor = thread("accept", this::acceptLoop);
  }

  /** Starts a proxy on a free loopback port forwarding every connection to host:port. */
  public static TcpProxy start(String host, int port) {
    try {
      TcpProxy proxy = new TcpProxy(host, port);
      proxy.acceptor.start();
      return proxy;
    } catch (IOException e) {
      throw new UncheckedIOException("Could not open a proxy port", e);
    }
  }

  /** Loopback port that clients connect to instead of the target. */
  public int port() {
    return server.getLocalPort();
  }

  /** URL to give a client instead of the target's, {@code http://127.0.0.1:<port>}. */
  public String endpoint() {
    return "http://127.0.0.1:" + port();
  }

  /**
   * Stops forwarding in both directions while keeping every connection open; new connections are
   * accepted but not forwarded either. Nothing is dropped: bytes wait until {@link #restore()}.
   */
  public synchronized void blackhole() {
    blackholed = true;
  }

  /** Forwards again, including whatever was held back while black-holed. */
  public synchronized void restore() {
    blackholed = false;
    notifyAll();
  }

  /**
   * Bytes forwarded so far, both directions and every connection together: which of several proxies
   * a client uses most, from the difference of two readings.
   */
  public long bytesForwarded() {
    return forwarded.get();
  }

  /**
   * Holds every chunk that a client sends for {@code delay} before it goes on to the target (zero:
   * at once), in order, while answers flow back at once: a slow link or member, where a request
   * reaches etcd after the client gave up on it. Applies to chunks read from now on. Each chunk is
   * held from when it was read, and reading goes on meanwhile: a request sent in two chunks arrives
   * one delay late, not two.
   */
  public synchronized void delayRequests(Duration delay) {
    requestDelayNanos = delay.toNanos();
    notifyAll();
  }

  /** Whether the proxy is black-holed. */
  public synchronized boolean isBlackholed() {
    return blackholed;
  }

  /** Resets every current connection on both sides (TCP RST); the proxy keeps accepting. */
  public void dropConnections() {
    for (Link link : links) {
      link.reset();
    }
    synchronized (this) {
      notifyAll(); // pumps held by a black-hole see their link is gone
    }
  }

  /** Resets every connection, stops accepting, and waits (bounded) for its threads to end. */
  @Override
  public void close() {
    synchronized (this) {
      closed = true;
      notifyAll();
    }
    try {
      server.close();
    } catch (IOException e) {
      // Closing is all we wanted; the accept loop ends either way.
    }
    dropConnections();
    long deadline = System.nanoTime() + JOIN_TIMEOUT.toNanos();
    join(acceptor, deadline);
    for (Thread thread : threads) {
      join(thread, deadline);
    }
  }

  @Override
  public String toString() {
    return "TcpProxy[" + port() + " -> " + targetHost + ":" + targetPort + "]";
  }

  private void acceptLoop() {
    while (true) {
      Socket client;
      try {
        client = server.accept();
      } catch (IOException e) {
        return; // the server socket was closed
      }
      Link link = new Link(client);
      links.add(link);
      synchronized (this) {
        if (closed) {
          link.reset();
          return;
        }
      }
      int id = linkCount.incrementAndGet();
      thread(id + "-up", () -> link.run(id)).start();
    }
  }

  /**
   * Waits while black-holed; false if the proxy or the link has been closed meanwhile. Called
   * before every read and every write, so a pump never reads while black-holed and never forwards
   * what it read just before.
   */
  private synchronized boolean awaitOpen(Link link) {
    while (blackholed && !closed && !link.isClosed()) {
      try {
        wait();
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        return false;
      }
    }
    return !closed && !link.isClosed();
  }

  private synchronized long requestDelayNanos() {
    return requestDelayNanos;
  }

  /** Waits until {@code dueAt} ({@link System#nanoTime}); false if closed meanwhile. */
  private synchronized boolean awaitDue(Link link, long dueAt) {
    while (!closed && !link.isClosed()) {
      long left = dueAt - System.nanoTime();
      if (left <= 0) {
        return true;
      }
      try {
        TimeUnit.NANOSECONDS.timedWait(this, left);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        return false;
      }
    }
    return false;
  }

  private Thread thread(String name, Runnable body) {
    Thread thread =
        new Thread(
            () -> {
              try {
                body.run();
              } finally {
                threads.remove(Thread.currentThread());
              }
            },
            "conch-proxy-" + port() + "-" + name);
    thread.setDaemon(true);
    threads.add(thread);
    return thread;
  }

  private static void join(Thread thread, long deadlineNanos) {
    try {
      thread.join(Math.max(1, Processes.remainingMillis(deadlineNanos)));
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }

  /** One client connection and its upstream connection, pumped by one thread per direction. */
  private final class Link {

    private final Socket client;
    private @Nullable Socket upstream; // guarded by "this" Link
    private boolean linkClosed; // guarded by "this" Link
    private final AtomicInteger openDirections = new AtomicInteger(2);
    private final BlockingQueue<Chunk> requests = new LinkedBlockingQueue<>();

    Link(Socket client) {
      this.client = client;
    }

    /** Connects upstream once forwarding is allowed, then pumps client to upstream. */
    void run(int id) {
      // The upstream connection waits for restore() too: a black-holed proxy stands for a
      // network where nothing, not even a SYN, gets through.
      if (!awaitOpen(this)) {
        reset();
        return;
      }
      Socket target = new Socket();
      try {
        target.connect(new InetSocketAddress(targetHost, targetPort), CONNECT_TIMEOUT_MILLIS);
      } catch (IOException e) {
        closeQuietly(target);
        reset();
        return;
      }
      synchronized (this) {
        if (linkClosed) {
          closeQuietly(target);
          return;
        }
        upstream = target;
      }
      thread(id + "-down", () -> pump(target, client)).start();
      thread(id + "-up-send", () -> send(target)).start();
      read(client);
    }

    /** Answers: forwarded as they come. */
    private void pump(Socket from, Socket to) {
      byte[] buffer = new byte[16 * 1024];
      try {
        InputStream in = from.getInputStream();
        OutputStream out = to.getOutputStream();
        while (awaitOpen(this)) {
          int n = in.read(buffer);
          if (n < 0) {
            halfClose(to);
            return;
          }
          if (!awaitOpen(this)) {
            return;
          }
          out.write(buffer, 0, n);
          out.flush();
          forwarded.addAndGet(n);
        }
      } catch (IOException e) {
        close(false);
      }
    }

    /**
     * Requests: read as they come, each stamped with when it is due, and handed to {@link #send}.
     * Reading never waits for a held chunk, so the next chunk's delay runs from when it came.
     */
    private void read(Socket from) {
      byte[] buffer = new byte[16 * 1024];
      try {
        InputStream in = from.getInputStream();
        while (awaitOpen(this)) {
          int n = in.read(buffer);
          if (n < 0) {
            requests.add(Chunk.END);
            return;
          }
          requests.add(
              new Chunk(System.nanoTime() + requestDelayNanos(), Arrays.copyOf(buffer, n)));
        }
      } catch (IOException e) {
        close(false);
      } finally {
        requests.add(Chunk.END); // a second END after the first is never taken
      }
    }

    /** Sends each request chunk to the target when it is due, in order. */
    private void send(Socket to) {
      try {
        OutputStream out = to.getOutputStream();
        while (true) {
          Chunk chunk = requests.take();
          if (chunk == Chunk.END) {
            if (!isClosed()) {
              halfClose(to);
            }
            return;
          }
          if (!awaitDue(this, chunk.dueAt()) || !awaitOpen(this)) {
            return;
          }
          out.write(chunk.bytes());
          out.flush();
          forwarded.addAndGet(chunk.bytes().length);
        }
      } catch (IOException e) {
        close(false);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
      }
    }

    /** Passes a half-close on: the other direction may still flow. */
    private void halfClose(Socket to) throws IOException {
      to.shutdownOutput();
      if (openDirections.decrementAndGet() == 0) {
        close(false);
      }
    }

    synchronized boolean isClosed() {
      return linkClosed;
    }

    void reset() {
      close(true);
    }

    private void close(boolean abortive) {
      Socket target;
      synchronized (this) {
        linkClosed = true;
        target = upstream;
      }
      links.remove(this);
      requests.add(Chunk.END); // the sender stops waiting
      for (Socket socket : new Socket[] {client, target}) {
        if (socket != null) {
          if (abortive) {
            try {
              socket.setSoLinger(true, 0); // close() then sends RST instead of FIN
            } catch (IOException e) {
              // Already closed: nothing to reset.
            }
          }
          closeQuietly(socket);
        }
      }
    }

    private void closeQuietly(Socket socket) {
      try {
        socket.close();
      } catch (IOException e) {
        // Closing is best effort; the peer sees the connection end either way.
      }
    }
  }

  /** A request chunk read from a client, and when it may go on to the target. */
  private record Chunk(long dueAt, byte[] bytes) {
    static final Chunk END = new Chunk(0, new byte[0]);
  }
}
