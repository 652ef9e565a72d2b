package dev.conch.spring.boot.test;

import dev.conch.local.LocalOffices;
import dev.conch.spring.Elections;
import dev.conch.spring.boot.autoconfigure.ConchAutoConfiguration;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.context.annotation.Bean;

/**
 * The {@link TestOffices} bean over the in-memory offices of a test context; imported by {@link
 * AutoConfigureTestOffices @AutoConfigureTestOffices}.
 */
@AutoConfiguration(after = ConchAutoConfiguration.class)
@ConditionalOnBean(LocalOffices.class)
public final class TestOfficesAutoConfiguration {

  @Bean
  @ConditionalOnMissingBean
  TestOffices conchTestOffices(LocalOffices localOffices, ObjectProvider<Elections> elections) {
    return new TestOffices(localOffices, elections::getObject, TestOffices.DEFAULT_TIMEOUT);
  }
}
