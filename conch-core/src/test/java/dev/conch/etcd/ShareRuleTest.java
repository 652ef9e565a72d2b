package dev.conch.etcd;

import static org.assertj.core.api.Assertions.assertThat;

import dev.conch.OfficeGroup.Member;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * The share rule as a table: members as {@code id:priority:leads}, the offices {@code self} leads
 * as a count (held long, movable) or as {@code office:heldSeconds:movable} ({@code self@N}: it
 * campaigns for N offices), a minimum tenure of 15 s, and what it gives away: {@code REASON
 * first-office>targets}, or {@code -} for nothing.
 */
class ShareRuleTest {

  private static final long MIN_TENURE = TimeUnit.SECONDS.toNanos(15);

  @ParameterizedTest(name = "{0}; {1} leads {2} => {3}")
  @CsvSource(
      delimiter = ';',
      value = {
        // the first of three leads all: it gives to the one leading fewest (ties by id)
        "a:0:12 b:0:0 c:0:0; a; 12; SHARE o01>b,c",
        "a:0:11 b:0:1 c:0:0; a; 11; SHARE o01>c,b",
        // sticky: within one of each other, nothing moves
        "a:0:5 b:0:4 c:0:4;  a; 5;  -",
        "a:0:4 b:0:4 c:0:4;  a; 4;  -",
        "a:0:1 b:0:0;        a; 1;  -",
        // two more than the fewest: one moves, only to those it is two above
        "a:0:6 b:0:4 c:0:5;  a; 6;  SHARE o01>b",
        // givers at the same time deal the receivers' slots out among them: no overshoot
        "a:0:6 b:0:6 c:0:0;        b; 6;  SHARE o01>c",
        "a:0:10 b:0:10 c:0:0 d:0:0; a; 10; SHARE o01>c,d",
        "a:0:10 b:0:10 c:0:0 d:0:0; b; 10; SHARE o01>d,c",
        "a:0:4 b:0:4 c:0:4 d:0:2;  a; 4;  SHARE o01>d",
        "a:0:4 b:0:4 c:0:4 d:0:2;  b; 4;  -",
        "a:0:4 b:0:4 c:0:4 d:0:2;  c; 4;  -",
        // counts lag the hand-overs: nobody gives below the fair floor of the offices it knows
        "a:0:4 b:0:4 c:0:2;        a@12; 4; -",
        "a:0:5 b:0:4 c:0:1;        a@12; 5; SHARE o01>c",
        "a:0:5 b:0:5 c:0:1;        b@12; 5; SHARE o01>c",
        // the one leading fewest never gives
        "a:0:0 b:0:12;       a; 0;  -",
        "a:0:4 b:0:8;        a; 4;  -",
        // its own count is what it leads now, not what it published last
        "a:0:9 b:0:4;        a; 5;  -",
        // a lone member keeps everything
        "a:0:12;             a; 12; -",
        // not in the view yet (or gone from it): others cannot see it, nothing moves
        "b:0:0;              a; 12; -",
        // priority first: a lower member gives every office held past the tenure to the eligible
        "a:0:3 b:1:0 c:1:2;  a; x:20:y w:20:y v:20:y; PRIORITY v>b,c",
        "a:0:3 b:1:0;        a; x:10:y w:20:y;        PRIORITY w>b",
        "a:0:2 b:1:0;        a; x:10:y w:14:y;        -",
        "a:0:2 b:1:0;        a; x:30:n w:30:y;        PRIORITY w>b",
        // ... even when it leads fewest, and whatever the shares among the eligible
        "a:0:1 b:1:9;        a; x:30:y;               PRIORITY x>b",
        // equal priorities never move for priority, only for the share
        "a:2:2 b:2:1;        a; x:30:y y:30:y;        -",
        // a higher member leads: shares among the eligible ignore the lower members' counts
        "a:1:6 b:1:4 c:0:0;  a; 6;  SHARE o01>b",
        // an office whose work cannot stop stays; the next movable one goes
        "a:0:3 b:0:0;        a; x:30:n y:20:y z:10:y; SHARE y>b",
        "a:0:2 b:0:0;        a; x:30:n y:20:n;        -",
        // a negative priority is lower than the default
        "a:-1:1 b:0:0;       a; x:30:y;               PRIORITY x>b",
      })
  void decides(String members, String self, String led, String expected) {
    // "a@12": member a, campaigning for 12 offices (else: as many as the counts add up to).
    String[] who = self.trim().split("@");
    int total = who.length > 1 ? Integer.parseInt(who[1]) : 0;
    var plan = ShareRule.decide(members(members), who[0], offices(led), MIN_TENURE, total);
    String got =
        plan.map(p -> p.reason() + " " + p.offices().get(0) + ">" + String.join(",", p.targets()))
            .orElse("-");
    assertThat(got).isEqualTo(expected);
  }

  private static List<Member> members(String spec) {
    List<Member> members = new ArrayList<>();
    for (String one : spec.trim().split("\\s+")) {
      String[] f = one.split(":");
      members.add(new Member(f[0], Integer.parseInt(f[1]), Integer.parseInt(f[2]), false));
    }
    return members;
  }

  private static List<ShareRule.Office> offices(String spec) {
    String trimmed = spec.trim();
    List<ShareRule.Office> offices = new ArrayList<>();
    if (trimmed.matches("\\d+")) {
      int n = Integer.parseInt(trimmed);
      for (int i = 1; i <= n; i++) {
        // The first is held longest, so it is the one a share gives away first.
        offices.add(
            new ShareRule.Office(
                String.format("o%02d", i), TimeUnit.SECONDS.toNanos(1000 - i), true));
      }
      return offices;
    }
    Arrays.stream(trimmed.split("\\s+"))
        .map(one -> one.split(":"))
        .forEach(
            f ->
                offices.add(
                    new ShareRule.Office(
                        f[0], TimeUnit.SECONDS.toNanos(Long.parseLong(f[1])), f[2].equals("y"))));
    return offices;
  }
}
