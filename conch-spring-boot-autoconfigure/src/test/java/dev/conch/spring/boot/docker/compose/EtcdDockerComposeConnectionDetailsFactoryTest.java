package dev.conch.spring.boot.docker.compose;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatIllegalStateException;

import dev.conch.Election;
import dev.conch.spring.boot.autoconfigure.ConchAutoConfiguration;
import dev.conch.spring.boot.autoconfigure.EtcdConnectionDetails;
import dev.conch.test.EtcdExtension;
import java.lang.reflect.Constructor;
import java.net.URI;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.apache.commons.logging.LogFactory;
import org.jspecify.annotations.Nullable;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.autoconfigure.service.connection.ConnectionDetailsFactory;
import org.springframework.boot.docker.compose.core.ConnectionPorts;
import org.springframework.boot.docker.compose.core.ImageReference;
import org.springframework.boot.docker.compose.core.RunningService;
import org.springframework.boot.docker.compose.service.connection.DockerComposeConnectionSource;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.core.env.Environment;
import org.springframework.core.env.StandardEnvironment;
import org.springframework.core.io.support.SpringFactoriesLoader;
import org.springframework.core.io.support.SpringFactoriesLoader.FailureHandler;

/**
 * The Docker Compose factory, without Docker: it is given the running service Docker Compose
 * support would describe, and the details it makes connect an application to a real etcd member
 * standing in for the service's published port.
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class EtcdDockerComposeConnectionDetailsFactoryTest {

  @RegisterExtension static final EtcdExtension etcd = EtcdExtension.members(1);

  private final EtcdDockerComposeConnectionDetailsFactory factory =
      new EtcdDockerComposeConnectionDetailsFactory();

  @Test
  void factoryIsRegisteredForServiceConnections() {
    List<ConnectionDetailsFactory> factories =
        SpringFactoriesLoader.forDefaultResourceLocation()
            .load(
                ConnectionDetailsFactory.class,
                FailureHandler.logging(LogFactory.getLog(getClass())));

    assertThat(factories)
        .hasAtLeastOneElementOfType(EtcdDockerComposeConnectionDetailsFactory.class);
  }

  @Test
  void etcdImagesOfEachRegistryGiveThePublishedClientPort() {
    for (String image :
        List.of(
            "quay.io/coreos/etcd:v3.5.17",
            "gcr.io/etcd-development/etcd:v3.5.17",
            "bitnami/etcd:3.5",
            "docker.io/bitnami/etcd:latest",
            "registry.example.com:5000/coreos/etcd")) {
      EtcdConnectionDetails details = details(service(image, 32769, Map.of(), Map.of()));
      assertThat(details).as(image).isNotNull();
      assertThat(details.getEndpoints()).containsExactly(URI.create("http://127.0.0.1:32769"));
      assertThat(details.getUsername()).isNull();
      assertThat(details.getPassword()).isNull();
      assertThat(details.getSslBundle()).isNull();
    }
  }

  @Test
  void otherImagesAreNotEtcd() {
    assertThat(details(service("redis:7", 32769, Map.of(), Map.of()))).isNull();
    assertThat(details(service("example/etcd-browser", 32769, Map.of(), Map.of()))).isNull();
  }

  @Test
  void anyImageLabelledAsAnEtcdServiceConnectionIsEtcd() {
    RunningService own =
        service(
            "registry.example.com/team/our-etcd:1",
            32770,
            Map.of(),
            Map.of("org.springframework.boot.service-connection", "etcd"));

    assertThat(details(own).getEndpoints()).containsExactly(URI.create("http://127.0.0.1:32770"));
  }

  @Test
  void bitnamiRootPasswordIsTheLoginOfUserRoot() {
    EtcdConnectionDetails details =
        details(
            service("bitnami/etcd:3.5", 32769, Map.of("ETCD_ROOT_PASSWORD", "s3cret"), Map.of()));

    assertThat(details.getUsername()).isEqualTo("root");
    assertThat(details.getPassword()).isEqualTo("s3cret");
  }

  @Test
  void aServiceThatDoesNotPublishTheClientPortIsRefusedByName() {
    RunningService unpublished = service("quay.io/coreos/etcd", null, Map.of(), Map.of());

    assertThatIllegalStateException()
        .isThrownBy(() -> details(unpublished))
        .withMessageContaining("'etcd'")
        .withMessageContaining("2379");
  }

  @Test
  void theDetailsConnectAnApplicationThatThenLeads() {
    URI member = URI.create(etcd.cluster().endpoints().split(",")[0]);
    EtcdConnectionDetails details =
        details(service("quay.io/coreos/etcd:v3.5.17", member.getPort(), Map.of(), Map.of()));

    new ApplicationContextRunner()
        .withConfiguration(AutoConfigurations.of(ConchAutoConfiguration.class))
        .withBean(EtcdConnectionDetails.class, () -> details)
        .withPropertyValues("conch.office=compose-" + System.nanoTime(), "conch.etcd.timeout=2s")
        .run(
            context ->
                assertThat(context.getBean(Election.class).awaitLeadership(Duration.ofSeconds(20)))
                    .isTrue());
  }

  private @Nullable EtcdConnectionDetails details(RunningService service) {
    return this.factory.getConnectionDetails(source(service));
  }

  /**
   * The source Docker Compose support hands each factory; its constructor is Boot's own, so it is
   * reached by reflection rather than through a mock.
   */
  private static DockerComposeConnectionSource source(RunningService service) {
    try {
      Constructor<DockerComposeConnectionSource> constructor =
          DockerComposeConnectionSource.class.getDeclaredConstructor(
              RunningService.class, Environment.class);
      constructor.setAccessible(true);
      return constructor.newInstance(service, new StandardEnvironment());
    } catch (ReflectiveOperationException ex) {
      throw new IllegalStateException(ex);
    }
  }

  /** A service named {@code etcd} on 127.0.0.1, with 2379 published on {@code hostPort}. */
  private static RunningService service(
      String image,
      @Nullable Integer hostPort,
      Map<String, @Nullable String> env,
      Map<String, String> labels) {
    ConnectionPorts ports =
        new ConnectionPorts() {
          @Override
          public int get(int containerPort) {
            if (hostPort == null || containerPort != 2379) {
              throw new IllegalStateException("No host port mapping found for container port");
            }
            return hostPort;
          }

          @Override
          public List<Integer> getAll() {
            return (hostPort != null) ? List.of(hostPort) : List.of();
          }

          @Override
          public List<Integer> getAll(@Nullable String protocol) {
            return getAll();
          }
        };
    return new RunningService() {
      @Override
      public String name() {
        return "etcd";
      }

      @Override
      public ImageReference image() {
        return ImageReference.of(image);
      }

      @Override
      public String host() {
        return "127.0.0.1";
      }

      @Override
      public ConnectionPorts ports() {
        return ports;
      }

      @Override
      public Map<String, @Nullable String> env() {
        return env;
      }

      @Override
      public Map<String, String> labels() {
        return labels;
      }
    };
  }
}
