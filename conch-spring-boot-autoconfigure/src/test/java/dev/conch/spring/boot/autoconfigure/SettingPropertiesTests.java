package dev.conch.spring.boot.autoconfigure;

import static org.assertj.core.api.Assertions.assertThat;

import dev.conch.InvalidArgumentException;
import dev.conch.Setting;
import java.io.IOException;
import java.io.InputStream;
import java.time.Duration;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import org.junit.jupiter.api.Test;
import org.springframework.mock.env.MockEnvironment;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;

/**
 * Each setting of the core is named by the property that sets it, and that property exists: a
 * renamed property cannot leave a refusal naming nothing.
 */
class SettingPropertiesTests {

  private final ConchProperties properties = new ConchProperties();

  private final ConfiguredOffices offices =
      ConfiguredOffices.of(new MockEnvironment().withProperty("conch.office", "billing"));

  @Test
  void everyPropertyNamedForASettingIsInTheMetadata() {
    Set<String> known = metadataProperties();
    List<Setting<?>> settings =
        List.of(
            Setting.TTL,
            Setting.RENEW_INTERVAL,
            Setting.PREFIX,
            Setting.TIMEOUT,
            Setting.ENDPOINTS,
            Setting.ENDPOINT,
            Setting.CANDIDATE_ID,
            Setting.EVENT_BUFFER,
            Setting.RETRY_INITIAL,
            Setting.RETRY_MAX,
            Setting.HOOK_TIMEOUT,
            Setting.STOP_TIMEOUT,
            Setting.SAFETY_MARGIN,
            Setting.OFFICE,
            Setting.COMMAND,
            Setting.RESTART,
            Setting.KILL_AFTER,
            Setting.ON_ACQUIRE,
            Setting.ON_LOSE,
            Setting.RUNNER_HOOK_TIMEOUT,
            Setting.WAIT,
            Setting.ELECTION_NAME);
    SettingProperties billing = SettingProperties.of(this.properties, this.offices, "billing");
    for (Setting<?> setting : settings) {
      assertThat(billing.property(setting)).as(setting.name()).isIn(known);
    }
  }

  @Test
  void anOfficesOwnOverrideIsNamedWhereItIsSet() {
    ConchProperties.Office own = new ConchProperties.Office();
    own.setStopTimeout(Duration.ofSeconds(3));
    this.properties.getOffices().put("billing", own);
    SettingProperties billing = SettingProperties.of(this.properties, this.offices, "billing");

    assertThat(billing.property(Setting.STOP_TIMEOUT))
        .isEqualTo("conch.offices.billing.stop-timeout");
    assertThat(billing.property(Setting.SAFETY_MARGIN)).isEqualTo("conch.safety-margin");
    assertThat(billing.property(Setting.HOOK_TIMEOUT)).isEqualTo("conch.hook-timeout");
    assertThat(billing.property(Setting.RUNNER_HOOK_TIMEOUT))
        .isEqualTo("conch.runner.hook-timeout");
    assertThat(billing.property(Setting.OFFICE)).isEqualTo("conch.office");
  }

  @Test
  void aRefusalIsRenamedOnceAndSettingsWithoutAPropertyKeepTheirName() {
    SettingProperties shared = SettingProperties.SHARED;
    InvalidArgumentException ttl = Setting.TTL.invalid(Duration.ofSeconds(1), "at least 2s");

    InvalidArgumentException named = shared.named(ttl);

    assertThat(named.name()).isEqualTo("conch.ttl");
    assertThat(named.setting()).contains(Setting.TTL);
    assertThat(shared.named(named)).isSameAs(named);
    InvalidArgumentException environment = Setting.ENVIRONMENT.invalid("A=B", "no '='");
    assertThat(shared.named(environment)).isSameAs(environment);
    assertThat(shared.property(Setting.OFFICE)).isNull();
  }

  private static Set<String> metadataProperties() {
    try (InputStream in =
        SettingPropertiesTests.class
            .getClassLoader()
            .getResourceAsStream("META-INF/spring-configuration-metadata.json")) {
      assertThat(in).isNotNull();
      Set<String> names = new HashSet<>();
      for (JsonNode node : JsonMapper.builder().build().readTree(in).get("properties")) {
        names.add(node.get("name").asString());
      }
      return names;
    } catch (IOException ex) {
      throw new IllegalStateException(ex);
    }
  }
}
