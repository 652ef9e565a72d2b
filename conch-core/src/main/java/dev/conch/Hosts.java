package dev.conch;

import java.net.InetAddress;
import java.net.UnknownHostException;

/** This machine's name as candidates report it, the same the CLI's {@code --assert} compares. */
public final class Hosts {

  private Hosts() {}

  /**
   * The host name: {@code $HOSTNAME} when set, else what the resolver says, else "localhost". Read
   * once per call; cheap enough for the few places that need it.
   */
  public static String localName() {
    String env = System.getenv("HOSTNAME");
    if (env != null && !env.isBlank()) {
      return env.trim();
    }
    try {
      return InetAddress.getLocalHost().getHostName();
    } catch (UnknownHostException e) {
      return "localhost";
    }
  }
}
