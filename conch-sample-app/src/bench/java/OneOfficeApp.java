import dev.conch.Leadership;
import dev.conch.spring.OnLeadership;
import java.util.Map;
import org.springframework.boot.SpringApplication;
import org.springframework.boot.SpringBootConfiguration;
import org.springframework.boot.autoconfigure.EnableAutoConfiguration;
import org.springframework.context.annotation.Bean;

/**
 * The smallest application of the starter, for bin/bench's start-up row {@code app1}: one office,
 * one acquire method, nothing else on the class path but conch-spring-boot-starter's own
 * dependencies (no web server, no actuator, no database). bin/bench compiles it against that class
 * path and starts it with and without conch ({@code -Dconch.enabled=false}); it is not part of any
 * build. {@code spring.main.keep-alive} keeps it running after the start, as a web app would, so
 * that its CPU time can be read.
 */
@SpringBootConfiguration
@EnableAutoConfiguration
public class OneOfficeApp {

  @Bean
  Job job() {
    return new Job();
  }

  public static void main(String[] args) {
    SpringApplication application = new SpringApplication(OneOfficeApp.class);
    application.setDefaultProperties(
        Map.of("spring.main.keep-alive", "true", "conch.office", "bench-one-office"));
    application.run(args);
  }

  /** The one leader-only piece of work. */
  static class Job {

    @OnLeadership
    void lead(Leadership leadership) {
      System.out.println("leading " + leadership.office() + " with token " + leadership.token());
    }
  }
}
