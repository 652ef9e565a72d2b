package dev.conch.spring.boot.test;

import dev.conch.spring.boot.autoconfigure.ConchAutoConfiguration;
import dev.conch.spring.boot.autoconfigure.leaderonly.LeaderOnlyAutoConfiguration;
import dev.conch.spring.boot.autoconfigure.lifecycle.LeaderLifecycleAutoConfiguration;
import java.lang.annotation.Documented;
import java.lang.annotation.ElementType;
import java.lang.annotation.Inherited;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;
import org.springframework.boot.autoconfigure.ImportAutoConfiguration;
import org.springframework.test.context.TestPropertySource;

/**
 * Replaces etcd with conch's in-memory offices in a {@code @SpringBootTest} or a slice test
 * ({@code @WebMvcTest}, {@code @DataJpaTest}, ...), and adds a {@link TestOffices} bean that
 * scripts leadership: this instance leads every office at first; the test grants, revokes, expires,
 * fails renewal, or lets another candidate lead, and each call returns once the hooks of the
 * transition have run.
 *
 * <pre>{@code
 * @SpringBootTest
 * @AutoConfigureTestOffices
 * class ReportJobTest {
 *
 *   @Autowired TestOffices offices;
 *
 *   @Test
 *   void followerSkipsTheReport(@Autowired ReportJob job) {
 *     offices.electOther("reports", "node-b");
 *     job.run();
 *     assertThat(offices.skips("ReportJob.run()")).isEqualTo(1);
 *   }
 * }
 * }</pre>
 *
 * <p>It sets {@code conch.standalone=true} (so nothing connects to etcd) and imports conch's
 * auto-configurations, which slices leave out.
 */
@Target(ElementType.TYPE)
@Retention(RetentionPolicy.RUNTIME)
@Documented
@Inherited
@ImportAutoConfiguration({
  ConchAutoConfiguration.class,
  LeaderOnlyAutoConfiguration.class,
  LeaderLifecycleAutoConfiguration.class,
  TestOfficesAutoConfiguration.class
})
@TestPropertySource(properties = "conch.standalone=true")
public @interface AutoConfigureTestOffices {}
