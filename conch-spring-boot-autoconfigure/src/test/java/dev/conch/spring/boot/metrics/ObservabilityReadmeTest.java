package dev.conch.spring.boot.metrics;

import static org.assertj.core.api.Assertions.assertThat;

import dev.conch.spring.observation.ConchMeterDocumentation;
import dev.conch.spring.observation.ConchObservationDocumentation;
import io.micrometer.common.docs.KeyName;
import io.micrometer.observation.docs.ObservationDocumentation;
import java.io.IOException;
import java.lang.reflect.InvocationTargetException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * The module README's tables of observations and meters say what the documentation enums say: every
 * name, key and description, none missing, none extra, in the enums' order. On failure the message
 * is the table as it should read.
 */
@Timeout(30)
class ObservabilityReadmeTest {

  private static final String OBSERVATIONS = "| observation | key | cardinality | description |";

  private static final String METERS = "| meter | type | tag | description |";

  private static final Path README = Path.of("README.md");

  @Test
  void observationsTableListsEveryObservationAndKeyOfTheDocumentation() throws IOException {
    List<String> expected = new ArrayList<>();
    observation(expected, "conch.hook", ConchObservationDocumentation.HOOK);
    observation(expected, "conch.leaderonly", ConchObservationDocumentation.LEADER_ONLY);
    assertTable(OBSERVATIONS, expected);
  }

  @Test
  void metersTableListsEveryMeterAndTagOfTheDocumentation() throws IOException {
    List<String> expected = new ArrayList<>();
    for (ConchMeterDocumentation meter : ConchMeterDocumentation.values()) {
      expected.add(
          row(
              code(meter.getName()),
              meter.getType().name().toLowerCase(Locale.ROOT).replace('_', ' '),
              "",
              meter.getDescription()));
      for (KeyName key : meter.getKeyNames()) {
        expected.add(row(code(meter.getName()), "", code(key.asString()), description(key)));
      }
    }
    assertTable(METERS, expected);
  }

  private static void observation(
      List<String> rows, String name, ObservationDocumentation documentation) {
    rows.add(row(code(name), "", "", description(documentation)));
    for (KeyName key : documentation.getLowCardinalityKeyNames()) {
      rows.add(row(code(name), code(key.asString()), "low", description(key)));
    }
    for (KeyName key : documentation.getHighCardinalityKeyNames()) {
      rows.add(row(code(name), code(key.asString()), "high", description(key)));
    }
  }

  private static void assertTable(String header, List<String> expected) throws IOException {
    List<String> lines = Files.readAllLines(README);
    int start = lines.indexOf(header);
    assertThat(start).as("the README has a table headed %s", header).isNotNegative();
    List<String> actual =
        lines.stream()
            .skip(start + 2)
            .takeWhile(line -> line.startsWith("|"))
            .map(ObservabilityReadmeTest::normalized)
            .toList();
    assertThat(actual)
        .as(
            "the README's table should read:%n%s%n%s%n%s",
            header, "|" + " --- |".repeat(4), String.join(System.lineSeparator(), expected))
        .containsExactlyElementsOf(expected);
  }

  /** A row as the test writes it: one space either side of each cell, one in an empty cell. */
  private static String normalized(String line) {
    String inner = line.substring(1, line.length() - (line.endsWith("|") ? 1 : 0));
    return Arrays.stream(inner.split("\\|", -1))
        .map(String::strip)
        .map(cell -> cell.isEmpty() ? " " : " " + cell + " ")
        .collect(Collectors.joining("|", "|", "|"));
  }

  private static String row(String... cells) {
    return normalized("|" + String.join("|", cells) + "|");
  }

  private static String code(String text) {
    return "`" + text + "`";
  }

  /** Each documentation enum of conch says what its constants mean in {@code getDescription()}. */
  private static String description(Object documented) {
    try {
      return (String) documented.getClass().getMethod("getDescription").invoke(documented);
    } catch (NoSuchMethodException | IllegalAccessException | InvocationTargetException ex) {
      throw new AssertionError(documented + " has no description", ex);
    }
  }
}
