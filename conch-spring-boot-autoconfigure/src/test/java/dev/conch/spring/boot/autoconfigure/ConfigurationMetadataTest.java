package dev.conch.spring.boot.autoconfigure;

import static org.assertj.core.api.Assertions.assertThat;

import dev.conch.GroupOptions;
import dev.conch.spring.health.CandidacyPauses;
import dev.conch.spring.health.HealthGatedCandidacy;
import java.io.IOException;
import java.io.InputStream;
import org.junit.jupiter.api.Test;
import org.springframework.mock.env.MockEnvironment;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;

/**
 * The configuration metadata an IDE reads (generated, merged with the additional metadata) says
 * what the properties do: the per-office keys, and the real defaults.
 */
class ConfigurationMetadataTest {

  private final JsonNode metadata = read("META-INF/spring-configuration-metadata.json");

  @Test
  void officesDescribeTheKeysOfAnOfficeAndHintThatAnyNameIsAnOffice() {
    assertThat(description("conch.offices"))
        .contains("conch.offices.<office>.hook-timeout")
        .contains("conch.offices.<office>.stop-timeout")
        .contains("conch.offices.<office>.safety-margin")
        .contains("conch.offices.<office>.require-health")
        .contains("conch.offices.<office>.quarantine")
        .contains("conch.offices[order.sync]");
    assertThat(hint("conch.offices.keys").get("providers").get(0).get("name").asString())
        .isEqualTo("any");
  }

  @Test
  void runnerOfficeStatesItsRealDefault() {
    assertThat(description("conch.runner.office"))
        .contains("conch.office, else spring.application.name");
    MockEnvironment environment =
        new MockEnvironment()
            .withProperty("spring.application.name", "app")
            .withProperty("conch.runner.command", "sleep,600");
    assertThat(ConfiguredOffices.of(environment).runnerOffice()).isEqualTo("app");
  }

  @Test
  void balanceAndPriorityStateTheirDefaults() {
    assertThat(description("conch.balance.group"))
        .contains("spring.application.name, else \"conch\"");
    assertThat(property("conch.balance.enabled").get("defaultValue").asBoolean()).isTrue();
    assertThat(property("conch.balance.delay").get("defaultValue").asString())
        .isEqualTo(GroupOptions.DEFAULT_DELAY.toSeconds() + "s");
    assertThat(property("conch.candidate.min-tenure").get("defaultValue").asString())
        .isEqualTo(GroupOptions.DEFAULT_MIN_TENURE.toSeconds() + "s");
    assertThat(property("conch.candidate.priority").get("defaultValue").asInt()).isZero();
    assertThat(property("conch.candidate.priority").get("type").asString())
        .isEqualTo("java.lang.Integer");
  }

  @Test
  void healthSettingsAreOneGroupWithTheirDefaults() {
    assertThat(property("conch.health.require").get("type").asString())
        .isEqualTo("java.util.List<java.lang.String>");
    assertThat(property("conch.health.quarantine").get("defaultValue").asString())
        .isEqualTo(CandidacyPauses.DEFAULT_QUARANTINE.toSeconds() + "s");
    assertThat(property("conch.health.readiness-leader").get("defaultValue").asBoolean()).isFalse();
    assertThat(property("conch.health.interval").get("defaultValue").asString())
        .isEqualTo(HealthGatedCandidacy.DEFAULT_INTERVAL.toSeconds() + "s");
    assertThat(property("conch.health.timeout").get("defaultValue").asString())
        .isEqualTo(HealthGatedCandidacy.DEFAULT_TIMEOUT.toSeconds() + "s");
    assertThat(description("conch.offices"))
        .contains("require-health (else conch.health.require)")
        .contains("quarantine (else conch.health.quarantine)");
  }

  @Test
  void renamedHealthPropertiesAreDeprecatedInFavourOfTheirNewKeys() {
    assertThat(property("conch.require-health").get("deprecation").get("replacement").asString())
        .isEqualTo("conch.health.require");
    assertThat(property("conch.quarantine").get("deprecation").get("replacement").asString())
        .isEqualTo("conch.health.quarantine");
    assertThat(property("conch.quarantine").get("deprecation").get("level").asString())
        .isEqualTo("warning");
  }

  private JsonNode property(String property) {
    for (JsonNode node : this.metadata.get("properties")) {
      if (node.get("name").asString().equals(property)) {
        return node;
      }
    }
    throw new AssertionError("No property " + property);
  }

  private String description(String property) {
    for (JsonNode node : this.metadata.get("properties")) {
      if (node.get("name").asString().equals(property)) {
        return node.get("description").asString();
      }
    }
    throw new AssertionError("No property " + property);
  }

  private JsonNode hint(String name) {
    for (JsonNode node : this.metadata.get("hints")) {
      if (node.get("name").asString().equals(name)) {
        return node;
      }
    }
    throw new AssertionError("No hint " + name);
  }

  private static JsonNode read(String resource) {
    try (InputStream in =
        ConfigurationMetadataTest.class.getClassLoader().getResourceAsStream(resource)) {
      assertThat(in).as(resource).isNotNull();
      return JsonMapper.builder().build().readTree(in);
    } catch (IOException ex) {
      throw new IllegalStateException(ex);
    }
  }
}
