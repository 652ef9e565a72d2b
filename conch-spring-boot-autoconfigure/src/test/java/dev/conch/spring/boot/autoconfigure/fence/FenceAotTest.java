package dev.conch.spring.boot.autoconfigure.fence;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.conch.Election;
import dev.conch.spring.boot.autoconfigure.ConchAutoConfiguration;
import dev.conch.spring.fence.Fenced;
import java.time.Duration;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.springframework.aop.support.AopUtils;
import org.springframework.aot.test.generate.TestGenerationContext;
import org.springframework.boot.autoconfigure.ImportAutoConfiguration;
import org.springframework.boot.jdbc.autoconfigure.DataSourceAutoConfiguration;
import org.springframework.boot.jdbc.autoconfigure.DataSourceTransactionManagerAutoConfiguration;
import org.springframework.boot.jdbc.autoconfigure.JdbcTemplateAutoConfiguration;
import org.springframework.boot.test.util.TestPropertyValues;
import org.springframework.boot.transaction.autoconfigure.TransactionAutoConfiguration;
import org.springframework.context.ApplicationContextInitializer;
import org.springframework.context.annotation.AnnotationConfigApplicationContext;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.context.aot.ApplicationContextAotGenerator;
import org.springframework.context.support.GenericApplicationContext;
import org.springframework.core.test.tools.CompileWithForkedClassLoader;
import org.springframework.core.test.tools.TestCompiler;
import org.springframework.javapoet.ClassName;
import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.transaction.annotation.Transactional;

/**
 * A {@code @Fenced} method in an application processed ahead of time, as {@code
 * spring-boot:process-aot} does: the generated context still fences it, inside its transaction, on
 * the database the running application is given.
 */
@Timeout(120)
class FenceAotTest {

  // No connection pool on this class path.
  private static final String SIMPLE = "org.springframework.jdbc.datasource.SimpleDriverDataSource";

  @Test
  @CompileWithForkedClassLoader
  void generatedContextFencesTheTransactionOfAFencedMethod() {
    TestGenerationContext generated;
    ClassName initializer;
    try (AnnotationConfigApplicationContext building = new AnnotationConfigApplicationContext()) {
      TestPropertyValues.of(
              "conch.standalone=true",
              "spring.application.name=built",
              "spring.datasource.url=jdbc:h2:mem:built",
              "spring.datasource.type=" + SIMPLE)
          .applyTo(building);
      building.register(Application.class);
      generated = new TestGenerationContext(Application.class);
      initializer = new ApplicationContextAotGenerator().processAheadOfTime(building, generated);
      generated.writeGeneratedContent();
    }
    TestCompiler.forSystem()
        .with(generated)
        .compile(
            compiled -> {
              try (GenericApplicationContext running = new GenericApplicationContext()) {
                TestPropertyValues.of(
                        "conch.standalone=true",
                        "spring.application.name=reports",
                        "spring.datasource.url=jdbc:h2:mem:aot-run;DB_CLOSE_DELAY=-1",
                        "spring.datasource.type=" + SIMPLE)
                    .applyTo(running);
                compiled
                    .getInstance(ApplicationContextInitializer.class, initializer.toString())
                    .initialize(running);
                running.refresh();
                Election election = running.getBean(Election.class);
                await().atMost(Duration.ofSeconds(10)).until(election::isLeader);
                Store store = running.getBean(Store.class);
                assertThat(AopUtils.isAopProxy(store)).isTrue();

                store.store();

                JdbcTemplate jdbc = running.getBean(JdbcTemplate.class);
                assertThat(
                        jdbc.queryForObject(
                            "SELECT token FROM conch_fence WHERE office = 'reports'", Long.class))
                    .isEqualTo(election.token().orElseThrow());
              }
            });
  }

  @Configuration(proxyBeanMethods = false)
  @ImportAutoConfiguration({
    ConchAutoConfiguration.class,
    ConchFenceAutoConfiguration.class,
    DataSourceAutoConfiguration.class,
    DataSourceTransactionManagerAutoConfiguration.class,
    TransactionAutoConfiguration.class,
    JdbcTemplateAutoConfiguration.class
  })
  static class Application {

    @Bean
    Store store() {
      return new Store();
    }
  }

  /** A fenced transaction that writes nothing else. */
  public static class Store {

    @Transactional
    @Fenced
    public void store() {}
  }
}
