package dev.conch;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.conch.etcd.SessionOptions;
import dev.conch.process.ExternalCommandRunner;
import java.lang.reflect.Field;
import java.lang.reflect.Modifier;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * Each setting is defined once, in {@link Setting}: the options take their defaults and checks from
 * it, and a refusal says which setting it was.
 */
class SettingTest {

  @Test
  void everySettingHasAKebabCaseName() throws IllegalAccessException {
    List<Setting<?>> settings = all();
    assertThat(settings).hasSizeGreaterThan(20);
    for (Setting<?> setting : settings) {
      assertThat(setting.name()).matches("[a-z]+(-[a-z]+)*");
      assertThat(setting.accepted()).isNotBlank();
    }
  }

  @Test
  void publicDefaultsAreTheSettingsDefaults() {
    assertThat(ElectionOptions.DEFAULT_HOOK_TIMEOUT).isEqualTo(Duration.ofSeconds(30));
    assertThat(ElectionOptions.DEFAULT_STOP_TIMEOUT).isEqualTo(Duration.ofSeconds(1));
    assertThat(ElectionOptions.DEFAULT_SAFETY_MARGIN).isEqualTo(Duration.ofMillis(500));
    assertThat(ElectionOptions.DEFAULT_EVENT_BUFFER).isEqualTo(16);
    assertThat(SessionOptions.DEFAULT_PREFIX).isEqualTo(Setting.PREFIX.defaultValue());
    assertThat(SessionOptions.DEFAULT_TTL).isEqualTo(Duration.ofSeconds(10));
    assertThat(SessionOptions.DEFAULT_TIMEOUT).isEqualTo(Duration.ofSeconds(5));
    assertThat(ExternalCommandRunner.DEFAULT_KILL_AFTER).isEqualTo(Duration.ofSeconds(5));
    assertThat(ExternalCommandRunner.DEFAULT_HOOK_TIMEOUT).isEqualTo(Duration.ofSeconds(30));
    assertThat(ExternalCommandRunner.DEFAULT_BACKOFF_INITIAL).isEqualTo(Duration.ofSeconds(1));
    assertThat(ExternalCommandRunner.DEFAULT_BACKOFF_MAX).isEqualTo(Duration.ofSeconds(30));
    assertThat(ExternalCommandRunner.DEFAULT_BACKOFF_RESET).isEqualTo(Duration.ofSeconds(60));
  }

  @Test
  void defaultOptionsAreTheSettingsDefaults() {
    ElectionOptions options = ElectionOptions.forOffice("jobs");
    assertThat(options.candidateId()).isEqualTo(Setting.CANDIDATE_ID.defaultValue());
    assertThat(options.hookTimeout()).isEqualTo(Setting.HOOK_TIMEOUT.defaultValue());
    assertThat(options.stopTimeout()).isEqualTo(Setting.STOP_TIMEOUT.defaultValue());
    assertThat(options.safetyMargin()).isEqualTo(Setting.SAFETY_MARGIN.defaultValue());
    assertThat(options.eventBuffer()).isEqualTo(Setting.EVENT_BUFFER.defaultValue());
    assertThat(options.retryInitial()).isEqualTo(Duration.ofMillis(250));
    assertThat(options.retryMax()).isEqualTo(Duration.ofSeconds(2));
    assertThat(options.gate()).isSameAs(Gate.OPEN);
    SessionOptions session = SessionOptions.defaults();
    assertThat(session.prefix()).isEqualTo(Setting.PREFIX.defaultValue());
    assertThat(session.ttl()).isEqualTo(Setting.TTL.defaultValue());
    assertThat(session.renewInterval()).isEqualTo(Setting.TTL.defaultValue().dividedBy(3));
    assertThat(session.timeout()).isEqualTo(Setting.TIMEOUT.defaultValue());
  }

  @Test
  void builderSetsEachValueAndToBuilderKeepsThemAll() {
    Gate gate = office -> Gate.Decision.deny("no");
    ElectionOptions options =
        ElectionOptions.builder("jobs")
            .candidateId("me")
            .hookTimeout(Duration.ofSeconds(3))
            .stopTimeout(Duration.ofSeconds(4))
            .safetyMargin(Duration.ofSeconds(5))
            .gate(gate)
            .eventBuffer(6)
            .retryInitial(Duration.ofSeconds(7))
            .retryMax(Duration.ofSeconds(8))
            .priority(3)
            .build();

    assertThat(options)
        .isEqualTo(
            new ElectionOptions(
                "jobs",
                "me",
                Duration.ofSeconds(3),
                Duration.ofSeconds(4),
                Duration.ofSeconds(5),
                gate,
                6,
                Duration.ofSeconds(7),
                Duration.ofSeconds(8),
                3,
                null));
    assertThat(options.toBuilder().build()).isEqualTo(options);
    assertThat(options.toBuilder().eventBuffer(9).build().retryMax())
        .isEqualTo(Duration.ofSeconds(8));
  }

  @Test
  void aRefusalCarriesItsSettingAndKeepsItWhenRenamed() {
    assertThatThrownBy(
            () -> ElectionOptions.builder("jobs").safetyMargin(Duration.ofMillis(-1)).build())
        .isInstanceOfSatisfying(
            InvalidArgumentException.class,
            e -> {
              assertThat(e.setting()).contains(Setting.SAFETY_MARGIN);
              assertThat(e.isRenamed()).isFalse();
              assertThat(e).hasMessage("invalid safety-margin '-1ms': a duration of 0 or more");
              InvalidArgumentException named = e.named("conch.safety-margin");
              assertThat(named.setting()).contains(Setting.SAFETY_MARGIN);
              assertThat(named.isRenamed()).isTrue();
              assertThat(named)
                  .hasMessage("invalid conch.safety-margin '-1ms': a duration of 0 or more")
                  .hasCause(e);
            });
    assertThatThrownBy(
            () ->
                ElectionOptions.builder("jobs")
                    .retryInitial(Duration.ofSeconds(3))
                    .retryMax(Duration.ofSeconds(2))
                    .build())
        .hasMessage("invalid retry-max '2s': at least retry-initial");
    assertThatThrownBy(() -> ElectionOptions.builder("jobs").eventBuffer(0).build())
        .hasMessage("invalid event-buffer '0': at least 1");
  }

  @Test
  void requireReturnsAnAcceptedValue() {
    assertThat(Setting.KILL_AFTER.require(Duration.ofSeconds(1))).isEqualTo(Duration.ofSeconds(1));
    assertThat(Setting.WAIT.require(null)).isNull();
    assertThat(Setting.WAIT.accepts(Duration.ZERO)).isTrue();
    assertThat(Setting.WAIT.accepts(Duration.ofSeconds(-1))).isFalse();
    assertThat(Setting.ON_ACQUIRE.accepts(" ")).isFalse();
  }

  private static List<Setting<?>> all() throws IllegalAccessException {
    List<Setting<?>> settings = new ArrayList<>();
    for (Field field : Setting.class.getFields()) {
      if (Modifier.isStatic(field.getModifiers()) && field.getType() == Setting.class) {
        settings.add((Setting<?>) field.get(null));
      }
    }
    return settings;
  }
}
