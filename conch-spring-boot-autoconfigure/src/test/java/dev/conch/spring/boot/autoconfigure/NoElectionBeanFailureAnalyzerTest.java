package dev.conch.spring.boot.autoconfigure;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatException;

import dev.conch.Election;
import dev.conch.spring.Elections;
import dev.conch.spring.boot.autoconfigure.app.TestApplication;
import dev.conch.spring.leaderonly.LeaderOnly;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.ExtendWith;
import org.springframework.beans.factory.annotation.Qualifier;
import org.springframework.boot.WebApplicationType;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.boot.test.system.CapturedOutput;
import org.springframework.boot.test.system.OutputCaptureExtension;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

/**
 * {@code @Qualifier("invoices") Election} for an office that only {@code @LeaderOnly} names: a real
 * start fails with conch's analysis (ahead of Boot's bare one), which points to {@code
 * Elections.get("invoices")} and to configuring the office, which does make it a bean.
 */
@Timeout(60)
@ExtendWith(OutputCaptureExtension.class)
class NoElectionBeanFailureAnalyzerTest {

  @Test
  void qualifiedElectionOfAnOfficeOnlyAnAnnotationNamesIsExplained(CapturedOutput output) {
    assertThatException().isThrownBy(() -> start(Invoices.class, Wants.class).close());

    assertThat(output)
        .contains("No Election bean for office 'invoices'")
        .contains("Elections.get(\"invoices\")")
        .contains("conch.offices.invoices.hook-timeout=30s");
  }

  @Test
  void configuredOfficeIsAQualifiedElectionBeanAndElectionsHasTheAnnotatedOne() {
    try (ConfigurableApplicationContext context =
        start(
            new String[] {"--conch.offices.invoices.hook-timeout=30s"},
            Invoices.class,
            Wants.class)) {
      assertThat(context.getBean(Wanting.class).invoices().office()).isEqualTo("invoices");
    }
    try (ConfigurableApplicationContext context = start(Invoices.class)) {
      assertThat(context.getBean(Elections.class).get("invoices").office()).isEqualTo("invoices");
    }
  }

  private static ConfigurableApplicationContext start(Class<?>... sources) {
    return start(new String[0], sources);
  }

  private static ConfigurableApplicationContext start(String[] args, Class<?>... sources) {
    return new SpringApplicationBuilder(TestApplication.class)
        .sources(sources)
        .web(WebApplicationType.NONE)
        .properties(
            "spring.main.banner-mode=off",
            "conch.standalone=true",
            "conch.office=app",
            "spring.main.register-shutdown-hook=false")
        .run(args);
  }

  @Configuration(proxyBeanMethods = false)
  static class Invoices {

    @Bean
    InvoiceRun invoiceRun() {
      return new InvoiceRun();
    }
  }

  @Configuration(proxyBeanMethods = false)
  static class Wants {

    @Bean
    Wanting wanting(@Qualifier("invoices") Election invoices) {
      return new Wanting(invoices);
    }
  }

  record Wanting(Election invoices) {}

  static class InvoiceRun {

    @LeaderOnly(office = "invoices")
    public void run() {}
  }
}
