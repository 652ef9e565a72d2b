package dev.conch;

import java.util.List;
import java.util.function.BooleanSupplier;
import java.util.function.Consumer;

/**
 * The offices that a set of instances campaign for together, shared fairly among them without a
 * coordinator: the members that can receive an office (they stand in some office's line) end up
 * leading within one of each other, whatever is led outside the group. Each member decides only
 * about the offices it leads, and gives the excess away by {@link Election#transfer(String)}, a
 * batch to one receiver at a time, matched so that the fewest offices move; a member of higher
 * priority is handed the offices of lower ones first (after their minimum tenure, and once it has
 * been in the group that long itself). Moves wait for a quiet spell after a membership change
 * ({@link GroupOptions#delay()}), nothing moves while the shares are within one of each other, and
 * a refused hand-over is tried again after the delay. A move runs on a thread of its own: the
 * member goes on publishing its count meanwhile.
 *
 * <p>Membership is one key per member on its session's lease, under the meta root, and one watch on
 * the group; so a group costs no etcd request per office while nothing changes. Obtain one from
 * {@code EtcdSession#group}.
 */
public interface OfficeGroup extends AutoCloseable {

  /** The group's name. */
  String name();

  /**
   * Adds an election to the group: its office is shared. {@code canMove} says whether the office's
   * stop is cheap now; the group moves an office only when it says yes. The move itself ends the
   * term at the one safe point every stop goes through (leader-only work awaited, lose hooks, then
   * the hand-over), whatever {@code canMove} said.
   */
  void add(Election election, BooleanSupplier canMove);

  /**
   * Adds an election whose office moves only while no leader-only work of its term runs ({@link
   * Leadership#isIdle()}): a move then does not wait for a running call.
   */
  default void add(Election election) {
    add(election, () -> election.leadership().map(Leadership::isIdle).orElse(true));
  }

  /** The live members as last seen, this one included, in id order. */
  List<Member> members();

  /**
   * Adds a listener of the moves this member makes (never blocks; called on the group's thread):
   * only hand-overs that happened, the term ended by the hand-over and the target leading next; a
   * transfer that failed, or a term lost meanwhile, is not a move.
   *
   * @return closing it removes the listener
   */
  AutoCloseable addListener(Consumer<Move> listener);

  /** Leaves the group (its member key is deleted); the elections are not touched. */
  @Override
  void close();

  /**
   * A live member of the group.
   *
   * @param id its candidate id (the {@link Holder#id()} of its elections)
   * @param priority its priority: higher leads first
   * @param leads how many of the group's offices it leads (an office it is handing over counts
   *     until the hand-over ended)
   * @param self whether it is this member
   * @param receiving whether it stands in the line of at least one of the group's offices
   *     (campaigning, following or leading; not denied by its gate, backing off or closed), so that
   *     an office can be handed to it: only receivers are given offices, and only they count in the
   *     fair share
   */
  record Member(String id, int priority, int leads, boolean self, boolean receiving) {

    /** A member that receives. */
    public Member(String id, int priority, int leads, boolean self) {
      this(id, priority, leads, self, true);
    }
  }

  /**
   * An office this member handed to another.
   *
   * @param office the office
   * @param to the candidate id that leads it next
   * @param token the token of the term that ended
   * @param reason why it moved
   */
  record Move(String office, String to, long token, Reason reason) {}

  /** Why an office moved. */
  enum Reason {
    /** This member led more than its fair share. */
    SHARE,
    /** A member of higher priority is live. */
    PRIORITY
  }
}
