package dev.conch.chaos;

import dev.conch.Leadership;
import dev.conch.LossReason;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.jspecify.annotations.Nullable;

/**
 * Every term of every member of the balance soak, in one JVM: the acquire hook records the start,
 * the lose hook the end, both by {@link System#nanoTime()}, so that all members' intervals are on
 * one clock and can be compared directly.
 */
final class TermLog {

  /** A term as the hooks saw it; {@code end} is {@link Long#MAX_VALUE} while it lasts. */
  record Term(
      String office,
      String member,
      long token,
      long start,
      long end,
      @Nullable LossReason reason) {}

  /** The terms still lasting, by member, office and token: their index in {@link #terms}. */
  private final Map<String, Integer> open = new HashMap<>();

  private final List<Term> terms = new ArrayList<>();

  /** Called first in a member's acquire hook. */
  synchronized void acquired(String member, Leadership leadership) {
    Term term =
        new Term(
            leadership.office(),
            member,
            leadership.token(),
            System.nanoTime(),
            Long.MAX_VALUE,
            null);
    open.put(key(member, leadership), terms.size());
    terms.add(term);
  }

  /** Called last in a member's lose hook. */
  synchronized void lost(String member, Leadership leadership, LossReason reason) {
    long end = System.nanoTime();
    // By index, not by searching the list: the scale soak's log holds 100,000 terms and more.
    Integer at = open.remove(key(member, leadership));
    if (at == null) {
      // A lose hook without an acquire: an interval from the start of time, so that any overlap
      // with it shows.
      terms.add(new Term(leadership.office(), member, leadership.token(), 0, end, reason));
      return;
    }
    Term term = terms.get(at);
    terms.set(at, new Term(term.office(), member, term.token(), term.start(), end, reason));
  }

  /** Every term so far, those still lasting with an end of {@link Long#MAX_VALUE}. */
  synchronized List<Term> terms() {
    return List.copyOf(terms);
  }

  private static String key(String member, Leadership leadership) {
    return member + "\n" + leadership.office() + "\n" + leadership.token();
  }

  /**
   * The pairs of terms of one office, held by different members, whose [acquire-start, lose-end]
   * intervals overlap; each described in a line.
   */
  static List<String> overlaps(List<Term> terms) {
    List<String> found = new ArrayList<>();
    for (List<Term> office : byOffice(terms).values()) {
      // Sorted by start, a term overlaps an earlier one iff it starts before the latest end so far.
      Term latest = null;
      for (Term term : office) {
        if (latest != null
            && term.start() < latest.end()
            && !term.member().equals(latest.member())) {
          found.add(describe(term, latest));
        }
        if (latest == null || term.end() > latest.end()) {
          latest = term;
        }
      }
    }
    return found;
  }

  private static String describe(Term term, Term earlier) {
    return earlier.end() == Long.MAX_VALUE
        ? String.format(
            "%s: %s token %d started while %s token %d still led",
            term.office(), term.member(), term.token(), earlier.member(), earlier.token())
        : String.format(
            "%s: %s token %d started %.1f ms before %s token %d ended",
            term.office(),
            term.member(),
            term.token(),
            (earlier.end() - term.start()) / 1e6,
            earlier.member(),
            earlier.token());
  }

  /** The successive terms of one office (by start) whose token is not above the one before. */
  static List<String> tokenRegressions(List<Term> terms) {
    List<String> found = new ArrayList<>();
    for (List<Term> office : byOffice(terms).values()) {
      for (int i = 1; i < office.size(); i++) {
        Term before = office.get(i - 1);
        Term term = office.get(i);
        if (term.token() <= before.token()) {
          found.add(
              String.format(
                  "%s: %s token %d after %s token %d",
                  term.office(), term.member(), term.token(), before.member(), before.token()));
        }
      }
    }
    return found;
  }

  private static Map<String, List<Term>> byOffice(List<Term> terms) {
    Map<String, List<Term>> byOffice = new HashMap<>();
    for (Term term : terms) {
      byOffice.computeIfAbsent(term.office(), o -> new ArrayList<>()).add(term);
    }
    byOffice.values().forEach(list -> list.sort(Comparator.comparingLong(Term::start)));
    return byOffice;
  }
}
