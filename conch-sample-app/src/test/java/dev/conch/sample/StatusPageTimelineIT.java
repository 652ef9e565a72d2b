package dev.conch.sample;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import dev.conch.sample.SampleApps.Elected;
import java.awt.image.BufferedImage;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.UUID;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import javax.imageio.ImageIO;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * The status page's timeline of terms as a browser shows it: two instances on a real etcd, three
 * terms (the first handed over by name, the second resigned, the third leading), then the page in
 * headless Chromium (Debian's {@code chromium}, which {@code bin/test} installs): the DOM Chromium
 * built has a bar and a table row per term, in order, with its token, holder and how it ended, and
 * its screenshot shows the bars in their holders' colours.
 */
@Timeout(300)
class StatusPageTimelineIT {

  private static final String OPERATOR = "operator";

  private static final String PASSWORD = UUID.randomUUID().toString();

  private static final Path OUTPUT_DIR = Path.of("target", "e2e-logs", "timeline");

  /** A term's element: its class and data attributes, and what it holds. */
  private static final Pattern TERM =
      Pattern.compile("<(g|tr) class=\"(term[^\"]*)\"([^>]*)>(.*?)</\\1>", Pattern.DOTALL);

  private static final Pattern ATTRIBUTE = Pattern.compile("([a-z-]+)=\"([^\"]*)\"");

  private static final Pattern CELL = Pattern.compile("<td[^>]*>(.*?)</td>", Pattern.DOTALL);

  private static final Pattern HELD =
      Pattern.compile(
          "<rect class=\"held\"[^>]* width=\"([0-9.]+)\" height=\"([0-9.]+)\""
              + " fill=\"#([0-9a-f]{6})\"");

  @Test
  void pageDrawsEachTermWithItsTokenHolderAndHowItEndedInABrowser() throws Exception {
    Optional<HeadlessChromium> found = HeadlessChromium.find();
    assumeTrue(
        found.isPresent(),
        "chromium is not on the PATH (bin/test installs Debian's package): the status page's"
            + " timeline is not checked in a browser");
    HeadlessChromium chromium = found.get();
    try (SampleApps apps =
        SampleApps.start("timeline", 2, "--spring.security.user.password=" + PASSWORD)) {
      Elected first = apps.awaitOneLeader(SampleApps.START_TIMEOUT);
      SampleAppProcess one = first.app();
      SampleAppProcess two =
          apps.running().stream().filter(app -> app != one).findFirst().orElseThrow();
      act(one, "{\"action\":\"transfer\",\"to\":\"" + two.id() + "\"}");
      Elected second = apps.awaitOneLeader(Duration.ofSeconds(30));
      assertThat(second.app()).isSameAs(two);
      // Its term long enough to see: until its report job has made a report with its token.
      await("a report of " + two + " with token " + second.token())
          .atMost(Duration.ofSeconds(30))
          .pollInterval(Duration.ofMillis(200))
          .until(two::page, page -> page.contains("with token " + second.token() + ", stored"));
      act(two, "{\"action\":\"resign\"}");
      Elected third = apps.awaitOneLeader(Duration.ofSeconds(30));
      assertThat(third.app()).isSameAs(one);

      List<Expected> expected =
          List.of(
              new Expected(first.token(), one.id(), "term ended", "transferred"),
              new Expected(second.token(), two.id(), "term ended", "resigned"),
              new Expected(third.token(), one.id(), "term leading", ""));
      // The end of a term is recorded with its release, so by now; its successor's page reads it.
      await("the three terms on the page of " + one)
          .atMost(Duration.ofSeconds(30))
          .pollInterval(Duration.ofMillis(200))
          .until(() -> drawn(one.page()), drawn -> matches(drawn, expected));

      String url = "http://127.0.0.1:" + one.port() + "/";
      Path png = OUTPUT_DIR.resolve("status-page.png").toAbsolutePath();
      Files.createDirectories(OUTPUT_DIR);
      Files.deleteIfExists(png);
      long start = System.nanoTime();
      String dom = chromium.render(url, png, 1280, 900, OUTPUT_DIR.resolve("chromium.log"));
      Duration rendered = Duration.ofNanos(System.nanoTime() - start);
      Files.writeString(OUTPUT_DIR.resolve("status-page.dom.html"), dom);

      assertThat(dom).as("the DOM Chromium built").contains("<svg id=\"term-timeline\"");
      assertThat(dom).doesNotContain("<script");
      List<Term> bars = terms(dom, "g");
      List<Term> rows = terms(dom, "tr");
      assertThat(bars).as("the timeline's terms in %s", dom).hasSize(3);
      assertThat(rows).as("the table's terms in %s", dom).hasSize(3);
      for (int i = 0; i < 3; i++) {
        Expected term = expected.get(i);
        Term bar = bars.get(i);
        Term row = rows.get(i);
        assertThat(bar.css()).as("bar %d", i).isEqualTo(term.css());
        for (Term drawn : List.of(bar, row)) {
          assertThat(drawn.data("token")).isEqualTo(Long.toString(term.token()));
          assertThat(drawn.data("holder")).isEqualTo(term.holder());
          assertThat(drawn.data("reason")).isEqualTo(term.reason());
        }
        assertThat(bar.body()).contains("<rect class=\"held\"");
        assertThat(text(bar.body()))
            .as("the labels of bar %d", i)
            .contains(term.holder() + " (" + term.token() + ")")
            .contains(term.reason().isEmpty() ? "leads now" : term.reason());
        List<String> cells = cells(row.body());
        assertThat(cells).as("row %d", i).hasSize(7);
        assertThat(cells.get(0)).isEqualTo(Long.toString(term.token()));
        assertThat(cells.get(1)).endsWith(term.holder());
        assertThat(cells.get(6))
            .as("how term %d ended", term.token())
            .startsWith(term.reason().isEmpty() ? "leads now" : term.reason() + ": ");
      }
      assertThat(cells(rows.get(0).body()).get(6)).as("the hand-over's target").contains(two.id());
      for (int i = 1; i < 3; i++) {
        assertThat(bars.get(i).body()).as("the vacancy before bar %d", i).contains("\"vacancy\"");
        assertThat(Long.parseLong(bars.get(i).data("vacant-ms"))).isNotNegative();
        assertThat(Instant.parse(bars.get(i).data("began")))
            .as("term %d began after the one before it ended", i)
            .isAfterOrEqualTo(Instant.parse(bars.get(i - 1).data("ended")));
      }

      // The screenshot of the same load: what the DOM says is drawn, in the bars' colours.
      assertThat(png).exists();
      assertThat(Files.size(png)).as("size of %s", png).isGreaterThan(10_000);
      BufferedImage image = ImageIO.read(png.toFile());
      assertThat(image).as("%s as a PNG", png).isNotNull();
      assertThat(image.getWidth()).isEqualTo(1280);
      Map<Integer, Double> painted = painted(bars);
      assertThat(painted).as("bar colours, one per holder").hasSize(2);
      painted.forEach(
          (colour, area) ->
              assertThat(pixels(image, colour))
                  .as("pixels of the bars' colour #%06x in %s", colour, png)
                  .isPositive()
                  .isGreaterThanOrEqualTo((int) Math.floor(area)));
      System.out.println("status page screenshot: " + png);
      Figures.record(
          String.format(
              "status page timeline: terms %d, %d, %d drawn by Chromium in %d ms",
              first.token(), second.token(), third.token(), rendered.toMillis()));
    }
  }

  private static void act(SampleAppProcess app, String body) {
    SampleAppProcess.Answer answer =
        app.post("/actuator/conch/" + SampleAppProcess.OFFICE, body, OPERATOR, PASSWORD);
    assertThat(answer.status()).as("%s to %s: %s", body, app, answer).isEqualTo(200);
  }

  /** The terms of the timeline ({@code g}) or of the table ({@code tr}) in {@code html}. */
  private static List<Term> terms(String html, String element) {
    List<Term> terms = new ArrayList<>();
    Matcher matcher = TERM.matcher(html);
    while (matcher.find()) {
      if (matcher.group(1).equals(element)) {
        Map<String, String> attributes = new LinkedHashMap<>();
        Matcher attribute = ATTRIBUTE.matcher(matcher.group(3));
        while (attribute.find()) {
          attributes.put(attribute.group(1), unescape(attribute.group(2)));
        }
        terms.add(new Term(matcher.group(2), attributes, matcher.group(4)));
      }
    }
    return terms;
  }

  private static List<Term> drawn(String page) {
    return terms(page, "g");
  }

  private static boolean matches(List<Term> drawn, List<Expected> expected) {
    if (drawn.size() != expected.size()) {
      return false;
    }
    for (int i = 0; i < drawn.size(); i++) {
      Term term = drawn.get(i);
      Expected want = expected.get(i);
      if (!term.css().equals(want.css())
          || !term.data("token").equals(Long.toString(want.token()))
          || !term.data("reason").equals(want.reason())) {
        return false;
      }
    }
    return true;
  }

  private static List<String> cells(String row) {
    List<String> cells = new ArrayList<>();
    Matcher cell = CELL.matcher(row);
    while (cell.find()) {
      cells.add(text(cell.group(1)).strip());
    }
    return cells;
  }

  /** The text of some markup: its tags dropped, its entities read. */
  private static String text(String markup) {
    return unescape(markup.replaceAll("<[^>]*>", " ").replaceAll("\\s+", " "));
  }

  private static String unescape(String text) {
    return text.replace("&lt;", "<")
        .replace("&gt;", ">")
        .replace("&quot;", "\"")
        .replace("&#39;", "'")
        .replace("&nbsp;", " ")
        .replace("&amp;", "&");
  }

  /**
   * The colours of the bars, each with the area its bars cover for sure: their width and height
   * less a pixel at each edge, where the browser blends the bar with what is beside it.
   */
  private static Map<Integer, Double> painted(List<Term> bars) {
    Map<Integer, Double> painted = new LinkedHashMap<>();
    for (Term bar : bars) {
      Matcher held = HELD.matcher(bar.body());
      assertThat(held.find()).as("the bar of %s", bar).isTrue();
      double inner =
          Math.max(0, Double.parseDouble(held.group(1)) - 2)
              * Math.max(0, Double.parseDouble(held.group(2)) - 2);
      painted.merge(Integer.parseInt(held.group(3), 16), inner, Double::sum);
    }
    return painted;
  }

  /** How many pixels of {@code image} have the colour {@code rgb}, give or take 3 per channel. */
  private static int pixels(BufferedImage image, int rgb) {
    int count = 0;
    for (int y = 0; y < image.getHeight(); y++) {
      for (int x = 0; x < image.getWidth(); x++) {
        int pixel = image.getRGB(x, y);
        if (near(pixel >> 16, rgb >> 16) && near(pixel >> 8, rgb >> 8) && near(pixel, rgb)) {
          count++;
        }
      }
    }
    return count;
  }

  private static boolean near(int a, int b) {
    return Math.abs((a & 0xff) - (b & 0xff)) <= 3;
  }

  /** A term as the page drew it: its class, its data attributes, and its content. */
  private record Term(String css, Map<String, String> attributes, String body) {

    String data(String name) {
      return this.attributes.getOrDefault("data-" + name, "");
    }
  }

  /** A term as the test made it happen. */
  private record Expected(long token, String holder, String css, String reason) {}
}
