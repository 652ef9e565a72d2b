package dev.conch.spring.boot.autoconfigure;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.File;
import java.lang.reflect.Method;
import java.net.MalformedURLException;
import java.net.URI;
import java.net.URL;
import java.net.URLClassLoader;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.ExtendWith;
import org.springframework.boot.WebApplicationType;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.boot.context.properties.source.ConfigurationPropertyName;
import org.springframework.boot.test.system.CapturedOutput;
import org.springframework.boot.test.system.OutputCaptureExtension;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.context.annotation.Configuration;
import org.springframework.core.env.StandardEnvironment;
import org.springframework.core.env.SystemEnvironmentPropertySource;

/**
 * A {@code conch.*} property nothing binds is said at start-up, in one WARN line, with the name it
 * was probably meant to be; the names Boot binds (relaxed, indexed, per office, from environment
 * variables) are not.
 */
@ExtendWith(OutputCaptureExtension.class)
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class UnknownConchPropertiesTest {

  private static final String WARNING = "Unknown conch propert";

  @Test
  void typosAreWarnedInOneLineNamingWhatTheyMeant(CapturedOutput output) {
    run(
        new StandardEnvironment(),
        "--conch.etcd.endpoint=http://127.0.0.1:2379",
        "--conch.tll=10s",
        "--conch.offices.x.stop-timout=2s");
    List<String> lines = warnings(output);
    assertThat(lines).hasSize(1);
    assertThat(lines.get(0))
        .contains("WARN")
        .contains("conch.etcd.endpoint (")
        .contains("did you mean conch.etcd.endpoints?")
        .contains("conch.tll (")
        .contains("did you mean conch.ttl?")
        .contains("conch.offices.x.stop-timout (")
        .contains("did you mean conch.offices.x.stop-timeout?")
        .contains("commandLineArgs");
  }

  @Test
  void aNameFarFromEveryKnownOneIsWarnedWithoutAGuess(CapturedOutput output) {
    run(new StandardEnvironment(), "--conch.leader-election.mode=fast");
    assertThat(warnings(output))
        .singleElement()
        .asString()
        .contains("Unknown conch property, ignored")
        .contains("conch.leader-election.mode (")
        .doesNotContain("did you mean");
  }

  @Test
  void anEnvironmentVariableIsComparedAsBootBindsIt(CapturedOutput output) {
    StandardEnvironment environment = new StandardEnvironment();
    environment
        .getPropertySources()
        .addFirst(
            new SystemEnvironmentPropertySource(
                "test-systemEnvironment", Map.of("CONCH_ETCD_TIMEOUT", "2s", "CONCH_TLL", "10s")));
    run(environment);
    assertThat(warnings(output))
        .singleElement()
        .asString()
        .contains("conch.tll (")
        .contains("CONCH_TLL")
        .contains("did you mean conch.ttl?")
        .doesNotContain("timeout");
  }

  @Test
  void theNamesBootBindsGiveNoWarning(CapturedOutput output) {
    StandardEnvironment environment = new StandardEnvironment();
    environment
        .getPropertySources()
        .addFirst(
            new SystemEnvironmentPropertySource(
                "test-systemEnvironment",
                Map.of(
                    "CONCH_STOP_TIMEOUT", "2s",
                    "CONCH_STOPTIMEOUT", "2s",
                    "CONCH_OFFICES_BILLING_HOOKTIMEOUT", "5s",
                    "CONCH_ETCD_ENDPOINTS_0", "http://127.0.0.1:2379",
                    // Set by conch elect for the command it runs, which may be this application.
                    "CONCH_REV", "42",
                    "CONCH_NAME", "billing")));
    run(
        environment,
        "--conch.etcd.endpoints=http://127.0.0.1:2379,http://127.0.0.1:2380",
        "--conch.etcd.endpoints[2]=http://127.0.0.1:2381",
        "--conch.ttl=10s",
        "--conch.stopTimeout=1s",
        "--conch.offices.x.stop-timeout=2s",
        "--conch.offices[order.sync].lifecycle-beans=a,b",
        "--conch.offices.billing.require-health[0]=db",
        "--conch.require-health=readiness",
        "--conch.candidate.priority=2",
        "--conch.runner.kill-after=5s",
        "--conch.fence.jdbc.initialize-schema=never",
        "--conch.health.readiness-leader=false",
        "--conch.health.require=",
        "--conch.health.quarantine=5s",
        "--conch.health.interval=2s",
        "--conch.health.timeout=3s",
        "--conch.quarantine=5s",
        "--conch.enabled=true");
    assertThat(output).doesNotContain(WARNING);
  }

  /**
   * An application of the starter alone has no JSON library: Boot's JsonParserFactory fell back to
   * its basic parser, which turned most entries of the metadata into strings, and every conch.*
   * property the application set was then called unknown. The check runs here in a class loader of
   * this module's class path without Jackson's databind (2 or 3) and Gson, as in such an
   * application.
   */
  @Test
  void theNamesAreKnownOnAClassPathWithoutAJsonLibrary() throws Exception {
    URL[] classPath =
        Arrays.stream(System.getProperty("java.class.path").split(File.pathSeparator))
            .filter(entry -> !entry.contains("jackson-databind") && !entry.contains("gson"))
            .map(entry -> Path.of(entry).toUri())
            .map(UnknownConchPropertiesTest::url)
            .toArray(URL[]::new);
    try (URLClassLoader loader =
        new URLClassLoader(classPath, ClassLoader.getPlatformClassLoader())) {
      assertThat(loader.getResource("tools/jackson/databind/ObjectMapper.class")).isNull();
      assertThat(loader.getResource("com/fasterxml/jackson/databind/ObjectMapper.class")).isNull();
      assertThat(loader.getResource("com/google/gson/Gson.class")).isNull();
      Class<?> names = loader.loadClass(ConchPropertyNames.class.getName());
      Class<?> nameType = loader.loadClass(ConfigurationPropertyName.class.getName());
      Method load = names.getDeclaredMethod("load", ClassLoader.class);
      Method isKnown = names.getDeclaredMethod("isKnown", nameType, boolean.class);
      Method of = nameType.getMethod("of", CharSequence.class);
      load.setAccessible(true);
      isKnown.setAccessible(true);
      // Where Boot's ClassUtils look for a JSON library, as in the application.
      Thread thread = Thread.currentThread();
      ClassLoader context = thread.getContextClassLoader();
      Object known;
      thread.setContextClassLoader(loader);
      try {
        known = load.invoke(null, loader);
      } finally {
        thread.setContextClassLoader(context);
      }
      for (String name :
          List.of(
              "conch.office",
              "conch.etcd.endpoints",
              "conch.ttl",
              "conch.offices.billing.stop-timeout",
              "conch.fence.jdbc.initialize-schema")) {
        assertThat(isKnown.invoke(known, of.invoke(null, name), false)).as(name).isEqualTo(true);
      }
      assertThat(isKnown.invoke(known, of.invoke(null, "conch.tll"), false)).isEqualTo(false);
    }
  }

  private static URL url(URI uri) {
    try {
      return uri.toURL();
    } catch (MalformedURLException e) {
      throw new IllegalArgumentException(uri.toString(), e);
    }
  }

  private static void run(StandardEnvironment environment, String... args) {
    try (ConfigurableApplicationContext context =
        new SpringApplicationBuilder(Empty.class)
            .environment(environment)
            .web(WebApplicationType.NONE)
            .run(args)) {
      assertThat(context.isActive()).isTrue();
    }
  }

  private static List<String> warnings(CapturedOutput output) {
    return output.getOut().lines().filter(line -> line.contains(WARNING)).toList();
  }

  @Configuration(proxyBeanMethods = false)
  static class Empty {}
}
