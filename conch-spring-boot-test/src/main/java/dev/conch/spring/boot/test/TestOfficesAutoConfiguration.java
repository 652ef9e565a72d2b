package dev.conch.spring.boot.test;

import dev.conch.local.LocalOffices;
import dev.conch.spring.Elections;
import dev.conch.spring.boot.autoconfigure.ConchAutoConfiguration;
import dev.conch.spring.health.CandidacyPauses;
import dev.conch.spring.health.HealthGatedCandidacy;
import dev.conch.spring.leaderonly.InMemoryJobRecords;
import dev.conch.spring.leaderonly.LeaderOnlyJobs;
import org.springframework.beans.factory.ListableBeanFactory;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBooleanProperty;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnProperty;
import org.springframework.context.annotation.Bean;
import org.springframework.core.env.Environment;

/**
 * The in-memory offices of a test context and the {@link TestOffices} bean over them; imported by
 * {@link AutoConfigureTestOffices @AutoConfigureTestOffices}, and left out with its {@code replace
 * = NONE}. It runs before conch's auto-configuration so that the offices are the test kit's:
 * conch's warning about the standalone mode, meant for an application that runs with it, is not
 * logged in tests.
 */
@AutoConfiguration(before = ConchAutoConfiguration.class)
@ConditionalOnBooleanProperty(name = "conch.enabled", matchIfMissing = true)
@ConditionalOnBooleanProperty("conch.standalone")
@ConditionalOnProperty(
    name = TestOfficesAutoConfiguration.REPLACE,
    havingValue = "ANY",
    matchIfMissing = true)
public final class TestOfficesAutoConfiguration {

  /** What the test kit replaces: {@link AutoConfigureTestOffices.Replace}, unset: {@code ANY}. */
  static final String REPLACE = "conch.test.offices.replace";

  /** Whether this instance leads every office at the start of each test, else it follows. */
  static final String LEADING = "conch.test.offices.leading";

  @Bean
  @ConditionalOnMissingBean
  LocalOffices conchLocalOffices() {
    return new LocalOffices();
  }

  /** Told of every leader-only call by the starter, as any {@code LeaderOnlyInvocations} bean. */
  @Bean
  LeaderOnlyCounts conchLeaderOnlyCounts(
      ObjectProvider<Elections> elections, ListableBeanFactory beanFactory) {
    return new LeaderOnlyCounts(beanFactory, () -> elections.getObject().offices());
  }

  @Bean
  @ConditionalOnMissingBean
  TestOffices conchTestOffices(
      LocalOffices localOffices,
      ObjectProvider<Elections> elections,
      LeaderOnlyCounts counts,
      ObjectProvider<HealthGatedCandidacy> health,
      ObjectProvider<CandidacyPauses> pauses,
      ListableBeanFactory beanFactory,
      Environment environment) {
    boolean leading = environment.getProperty(LEADING, Boolean.class, true);
    TestOffices offices =
        new TestOffices(
            localOffices,
            elections::getObject,
            TestOffices.DEFAULT_TIMEOUT,
            leading,
            counts,
            health::getIfAvailable,
            pauses::getIfAvailable);
    offices.jobs(
        () -> beanFactory.getBeanProvider(LeaderOnlyJobs.class).getIfUnique(),
        () -> beanFactory.getBeanProvider(InMemoryJobRecords.class).getIfUnique());
    return offices;
  }

  @Bean
  TestOfficesStartState conchTestOfficesStartState(TestOffices offices) {
    return new TestOfficesStartState(offices);
  }
}
