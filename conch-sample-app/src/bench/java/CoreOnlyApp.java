import dev.conch.Election;
import dev.conch.ElectionOptions;
import dev.conch.Leadership;
import dev.conch.LeadershipHandler;
import dev.conch.etcd.EtcdClients;
import dev.conch.etcd.EtcdSession;
import dev.conch.etcd.SessionOptions;
import io.etcd.jetcd.Client;
import java.time.Duration;
import java.util.Map;
import org.springframework.boot.SpringApplication;
import org.springframework.boot.SpringBootConfiguration;
import org.springframework.boot.autoconfigure.EnableAutoConfiguration;
import org.springframework.context.SmartLifecycle;
import org.springframework.context.annotation.Bean;
import org.springframework.core.env.Environment;

/**
 * {@link OneOfficeApp}'s office without the starter's Spring layer, for bin/bench's {@code app1}
 * row: bin/bench starts it with {@code -Dconch.enabled=false}, so the auto-configuration stays off,
 * and this class builds what the starter would through conch-core's API (README, "Java"): the etcd
 * client, one session, one election, started by a lifecycle bean as the starter's is. Its added
 * start-up over the app without conch is conch-core's share; the rest of the starter's is its
 * Spring layer (properties, beans, conditions, post-processors). Not part of any build.
 */
@SpringBootConfiguration
@EnableAutoConfiguration
public class CoreOnlyApp {

  @Bean(destroyMethod = "close")
  Client etcdClient(Environment environment) {
    String endpoints = environment.getProperty("conch.etcd.endpoints", "http://127.0.0.1:2379");
    return EtcdClients.builder(EtcdClients.parseEndpoints(endpoints), Duration.ofSeconds(3)).build();
  }

  @Bean(destroyMethod = "close")
  EtcdSession session(Client etcdClient) {
    return EtcdSession.open(etcdClient, SessionOptions.defaults());
  }

  @Bean
  SmartLifecycle campaign(EtcdSession session) {
    Election election = session.election(ElectionOptions.forOffice("bench-core-only"));
    election.addHandler(
        new LeadershipHandler() {
          @Override
          public void acquired(Leadership leadership) {
            System.out.println(
                "leading " + leadership.office() + " with token " + leadership.token());
          }
        });
    return new SmartLifecycle() {
      private volatile boolean running;

      @Override
      public void start() {
        election.start();
        running = true;
      }

      @Override
      public void stop() {
        running = false;
      }

      @Override
      public boolean isRunning() {
        return running;
      }
    };
  }

  public static void main(String[] args) {
    SpringApplication application = new SpringApplication(CoreOnlyApp.class);
    application.setDefaultProperties(Map.of("spring.main.keep-alive", "true"));
    application.run(args);
  }
}
