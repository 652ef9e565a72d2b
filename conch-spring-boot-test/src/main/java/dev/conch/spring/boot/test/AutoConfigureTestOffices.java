package dev.conch.spring.boot.test;

import java.lang.annotation.Documented;
import java.lang.annotation.ElementType;
import java.lang.annotation.Inherited;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;
import org.springframework.boot.autoconfigure.ImportAutoConfiguration;
import org.springframework.boot.test.context.PropertyMapping;
import org.springframework.test.context.TestPropertySource;

/**
 * Replaces etcd with conch's in-memory offices in a {@code @SpringBootTest} or a slice test
 * ({@code @WebMvcTest}, {@code @DataJpaTest}, ...), and adds a {@link TestOffices} bean that
 * scripts leadership: the test grants, revokes, expires, fails renewal, or lets another candidate
 * lead, and each call returns once the hooks of the transition have run.
 *
 * <p>When the context is ready, and again after each test method, this instance leads every office
 * (or, with {@code leading = false}, follows {@link TestOffices#OTHER_CANDIDATE}), with no other
 * candidate and every count at zero: the tests of a class share the context, not its leadership.
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
 *     assertThat(offices.skips(ReportJob.class, "run")).isEqualTo(1);
 *   }
 * }
 * }</pre>
 *
 * <p>It sets {@code conch.standalone=true} (so nothing connects to etcd) and imports conch's
 * auto-configurations, which slices leave out (listed in {@code
 * META-INF/spring/dev.conch.spring.boot.test.AutoConfigureTestOffices.imports}).
 */
@Target(ElementType.TYPE)
@Retention(RetentionPolicy.RUNTIME)
@Documented
@Inherited
@ImportAutoConfiguration
@PropertyMapping("conch.test.offices")
@TestPropertySource(properties = "conch.standalone=true")
public @interface AutoConfigureTestOffices {

  /**
   * Whether this instance leads every office at the start of each test ({@code
   * conch.test.offices.leading}); {@code false} starts it as a follower of {@link
   * TestOffices#OTHER_CANDIDATE}, whose acquire hooks never ran.
   *
   * @return whether this instance starts as the leader
   */
  boolean leading() default true;
}
