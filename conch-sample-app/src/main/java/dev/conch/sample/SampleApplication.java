package dev.conch.sample;

import org.springframework.boot.SpringApplication;
import org.springframework.boot.autoconfigure.SpringBootApplication;
import org.springframework.scheduling.annotation.EnableScheduling;

/**
 * A web application that runs one job, the report, on exactly one of its instances: the one that
 * leads the office {@code reports} in etcd. Start several instances against the same etcd and stop
 * the leader to watch another take over with a larger fencing token.
 *
 * <pre>
 * java -jar conch-sample-app.jar --server.port=8081 --conch.etcd.endpoints=http://127.0.0.1:2379
 * </pre>
 */
@SpringBootApplication
@EnableScheduling
public class SampleApplication {

  /** Starts the application; every {@code --property=value} argument overrides application.yml. */
  public static void main(String[] args) {
    SpringApplication.run(SampleApplication.class, args);
  }
}
