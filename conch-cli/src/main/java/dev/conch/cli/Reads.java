package dev.conch.cli;

import dev.conch.Holder;
import dev.conch.Hosts;
import dev.conch.etcd.EtcdSession;
import java.io.PrintStream;
import java.util.Optional;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/** {@code --who} and {@code --assert}: one read of the leader, without a lease. */
final class Reads {

  private static final Logger log = LoggerFactory.getLogger(Reads.class);

  private Reads() {}

  /** Prints the leader; 1 when the office is vacant (nothing printed). */
  static int who(EtcdSession session, String office, boolean json, PrintStream out) {
    Optional<Holder> leader = session.leader(office);
    if (leader.isEmpty()) {
      log.info("office {}: vacant", office);
      return ExitStatus.NO;
    }
    out.println(Views.leader(office, leader, json));
    return ExitStatus.OK;
  }

  /**
   * 0 when this host holds the office with a create revision of at least {@code minRev}, else 1;
   * prints the answer only with {@code --json}. Any process on this host counts: the question is
   * "is the work of this office being done here".
   */
  static int assertHeld(
      EtcdSession session, String office, long minRev, boolean json, PrintStream out) {
    Optional<Holder> leader = session.leader(office);
    String me = Hosts.localName();
    boolean here = leader.filter(h -> h.isConch() && me.equals(h.host())).isPresent();
    boolean held = here && leader.get().rev() >= minRev;
    if (json) {
      out.println(Views.assertion(held, leader));
    }
    if (!held) {
      String why =
          leader.isEmpty()
              ? "vacant"
              : here
                  ? "held here at rev " + leader.get().rev() + ", below --min-rev " + minRev
                  : "held elsewhere: " + Views.holderLine(leader.get());
      log.info("office {}: not held by {}: {}", office, me, why);
    }
    return held ? ExitStatus.OK : ExitStatus.NO;
  }
}
