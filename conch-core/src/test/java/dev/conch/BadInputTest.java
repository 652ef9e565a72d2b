package dev.conch;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.conch.etcd.EtcdClients;
import dev.conch.etcd.SessionOptions;
import java.time.Duration;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/** Bad values are refused with a message that names the value and what would be accepted. */
class BadInputTest {

  @ParameterizedTest
  @ValueSource(strings = {"", "a/b", "a b", "tab\there", "new\nline", "/"})
  void badOfficeNamesAreRefused(String office) {
    assertThatThrownBy(() -> ElectionOptions.forOffice(office))
        .isInstanceOf(InvalidArgumentException.class)
        .hasMessageContaining("office '" + office + "'")
        .hasMessageContaining("without '/', whitespace or control characters");
  }

  @Test
  void overlongOfficeNameIsRefused() {
    String office = "x".repeat(Setting.MAX_NAME_LENGTH + 1);
    assertThatThrownBy(() -> ElectionOptions.forOffice(office))
        .isInstanceOf(InvalidArgumentException.class)
        .hasMessageContaining("1 to 128 characters");
    assertThat(ElectionOptions.forOffice("x".repeat(Setting.MAX_NAME_LENGTH)).office())
        .hasSize(128);
  }

  @Test
  void ttlBelowTwoSecondsOrNotWholeSecondsIsRefused() {
    assertThatThrownBy(() -> SessionOptions.defaults().withTtl(Duration.ofSeconds(1)))
        .isInstanceOf(InvalidArgumentException.class)
        .hasMessage("invalid ttl '1s': whole seconds, at least 2s");
    assertThatThrownBy(() -> SessionOptions.defaults().withTtl(Duration.ofMillis(2500)))
        .hasMessage("invalid ttl '2s500ms': whole seconds, at least 2s");
    assertThat(SessionOptions.defaults().withTtl(Duration.ofSeconds(2)).renewInterval())
        .isEqualTo(Duration.ofMillis(666).plusNanos(666_666));
  }

  @Test
  void keysPerLeaseOutsideOneToAMillionAreRefused() {
    assertThatThrownBy(() -> SessionOptions.defaults().withMaxKeysPerLease(0))
        .isInstanceOf(InvalidArgumentException.class)
        .hasMessage("invalid max-keys-per-lease '0': a whole number from 1 to 1000000");
    assertThat(SessionOptions.defaults().maxKeysPerLease()).isEqualTo(1000);
  }

  @Test
  void stopTimeoutThatCannotFitBeforeTheDeadlineIsRefused() {
    SessionOptions ttl10 = SessionOptions.defaults().withTtl(Duration.ofSeconds(10));
    ElectionOptions slowStop =
        ElectionOptions.builder("jobs").stopTimeout(Duration.ofMillis(9200)).build();
    // 9.2 s + 500 ms margin leaves 300 ms of the 10 s to renew in, less than the 400 ms a
    // renewal that fails needs to be retried: checked before any etcd call.
    assertThatThrownBy(() -> dev.conch.etcd.EtcdSession.open(null, ttl10).election(slowStop))
        .isInstanceOf(InvalidArgumentException.class)
        .hasMessageContaining("invalid stop-timeout '9s200ms'")
        .hasMessageContaining("must leave at least 400ms of the ttl (10s)")
        .hasMessageContaining("raise the ttl");
  }

  @ParameterizedTest
  @ValueSource(
      strings = {"", "localhost:2379", "ftp://127.0.0.1:2379", "http://127.0.0.1", "http:// bad"})
  void badEndpointsAreRefused(String endpoint) {
    assertThatThrownBy(() -> EtcdClients.parseEndpoints(endpoint))
        .isInstanceOf(InvalidArgumentException.class)
        .hasMessageContaining("'" + endpoint + "'")
        .hasMessageContaining("http:// or https:// URLs with host and port");
  }

  @ParameterizedTest
  @ValueSource(strings = {"", "10", "1.5s", "-1s", "10 s", "1d", "s"})
  void badDurationsAreRefused(String text) {
    assertThatThrownBy(() -> Durations.parse("--ttl", text))
        .isInstanceOf(InvalidArgumentException.class)
        .hasMessageContaining("invalid --ttl '" + text + "'")
        .hasMessageContaining("500ms, 10s, 1m, 1m30s");
  }

  @Test
  void durationsReadAndPrintAsOperatorsWriteThem() {
    assertThat(Durations.parse("d", "500ms")).isEqualTo(Duration.ofMillis(500));
    assertThat(Durations.parse("d", "1m30s")).isEqualTo(Duration.ofSeconds(90));
    assertThat(Durations.parse("d", "1h")).isEqualTo(Duration.ofHours(1));
    assertThat(Durations.format(Duration.ofSeconds(90))).isEqualTo("1m30s");
    assertThat(Durations.format(Duration.ZERO)).isEqualTo("0s");
  }

  @Test
  void badPrefixIsRefused() {
    assertThatThrownBy(() -> SessionOptions.defaults().withPrefix("conch/"))
        .isInstanceOf(InvalidArgumentException.class)
        .hasMessageContaining("invalid prefix 'conch/'");
  }
}
