package dev.conch.spring.boot.test;

import java.lang.annotation.Documented;
import java.lang.annotation.ElementType;
import java.lang.annotation.Inherited;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;
import org.springframework.boot.autoconfigure.ImportAutoConfiguration;
import org.springframework.boot.test.context.PropertyMapping;
import org.springframework.boot.test.context.PropertyMapping.Skip;

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
 * <p>It imports conch's auto-configurations, which slices leave out (listed in {@code
 * META-INF/spring/dev.conch.spring.boot.test.AutoConfigureTestOffices.imports}), and, unless {@link
 * #replace} is {@link Replace#NONE NONE}, sets {@code conch.standalone=true} so that nothing
 * connects to etcd.
 */
@Target(ElementType.TYPE)
@Retention(RetentionPolicy.RUNTIME)
@Documented
@Inherited
@ImportAutoConfiguration
@PropertyMapping("conch.test.offices")
public @interface AutoConfigureTestOffices {

  /**
   * What the in-memory offices replace ({@code conch.test.offices.replace}): by default whatever
   * the application elects with; {@link Replace#NONE NONE} keeps its election, in a real etcd (or a
   * {@code @ServiceConnection} container), and adds no {@link TestOffices}.
   *
   * @return what the in-memory offices replace
   */
  @PropertyMapping(skip = Skip.ON_DEFAULT_VALUE)
  Replace replace() default Replace.ANY;

  /**
   * Whether this instance leads every office at the start of each test ({@code
   * conch.test.offices.leading}); {@code false} starts it as a follower of {@link
   * TestOffices#OTHER_CANDIDATE}, whose acquire hooks never ran.
   *
   * @return whether this instance starts as the leader
   */
  boolean leading() default true;

  /** What the in-memory offices replace. */
  enum Replace {

    /**
     * The application's election, whatever configured it (etcd, a {@code @ServiceConnection}, its
     * own standalone mode): the offices are elected in memory and scripted by {@link TestOffices}.
     */
    ANY,

    /** Nothing: the application elects as it would run, and there is no {@link TestOffices}. */
    NONE
  }
}
