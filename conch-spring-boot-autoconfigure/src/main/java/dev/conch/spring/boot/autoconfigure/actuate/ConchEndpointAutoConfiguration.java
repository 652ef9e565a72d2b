package dev.conch.spring.boot.autoconfigure.actuate;

import dev.conch.Election;
import dev.conch.Holder;
import dev.conch.TermRecord;
import dev.conch.etcd.EtcdSession;
import dev.conch.local.LocalOffices;
import dev.conch.spring.Elections;
import dev.conch.spring.boot.actuate.endpoint.ConchEndpoint;
import dev.conch.spring.boot.actuate.endpoint.ConchEndpointWebExtension;
import dev.conch.spring.boot.autoconfigure.ConchAutoConfiguration;
import dev.conch.spring.boot.autoconfigure.OfficeTimings;
import dev.conch.spring.health.CandidacyPauses;
import dev.conch.spring.leaderonly.LeaderOnlyJobs;
import dev.conch.spring.support.OfficeBalancer;
import java.util.List;
import java.util.Optional;
import java.util.function.BiFunction;
import java.util.function.Function;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.boot.actuate.autoconfigure.endpoint.condition.ConditionalOnAvailableEndpoint;
import org.springframework.boot.actuate.autoconfigure.endpoint.expose.EndpointExposure;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.EnableAutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

/**
 * {@link EnableAutoConfiguration Auto-configuration} for the {@link ConchEndpoint} and its web
 * extension, when the actuator is on the class path. The endpoint's access is read-only by default:
 * the actuator maps the write operation only with {@code management.endpoint.conch.access=
 * unrestricted}.
 *
 * <p>The actuator's own conditions sit on a nested configuration, below the class condition: they
 * are not even loaded when the actuator is absent.
 */
@AutoConfiguration(after = ConchAutoConfiguration.class)
@ConditionalOnClass({Election.class, ConditionalOnAvailableEndpoint.class})
@ConditionalOnBean(Elections.class)
public final class ConchEndpointAutoConfiguration {

  /** The endpoint, when it is available; over the web, the extension with the status codes. */
  @Configuration(proxyBeanMethods = false)
  @ConditionalOnAvailableEndpoint(ConchEndpoint.class)
  static class EndpointConfiguration {

    @Bean
    @ConditionalOnMissingBean
    ConchEndpoint conchEndpoint(
        Elections elections,
        ObjectProvider<EtcdSession> session,
        ObjectProvider<LocalOffices> localOffices,
        ObjectProvider<OfficeTimings> timings,
        ObjectProvider<LeaderOnlyJobs> jobs,
        ObjectProvider<OfficeBalancer> balancer,
        ObjectProvider<CandidacyPauses> pauses) {
      OfficeTimings known = timings.getIfUnique();
      OfficeBalancer group = balancer.getIfUnique();
      CandidacyPauses paused = pauses.getIfUnique();
      return new ConchEndpoint(
          elections,
          leaders(elections, session, localOffices),
          (known != null) ? known::of : office -> Optional.empty(),
          office -> {
            LeaderOnlyJobs found = jobs.getIfUnique();
            return (found != null) ? found.lastRuns(office) : List.of();
          },
          (paused != null) ? paused::pause : office -> Optional.empty(),
          (group != null) ? group::group : Optional::empty,
          histories(elections, session, localOffices));
    }

    @Bean
    @ConditionalOnMissingBean
    @ConditionalOnBean(ConchEndpoint.class)
    @ConditionalOnAvailableEndpoint(exposure = EndpointExposure.WEB)
    ConchEndpointWebExtension conchEndpointWebExtension(ConchEndpoint conchEndpoint) {
      return new ConchEndpointWebExtension(conchEndpoint);
    }

    /**
     * How any office's leader is read: from etcd without a lease, from the in-memory offices in
     * standalone mode, else (the application's own elections on another store) from the candidate
     * of the office, when this instance has one.
     */
    private static Function<String, Optional<Holder>> leaders(
        Elections elections,
        ObjectProvider<EtcdSession> session,
        ObjectProvider<LocalOffices> localOffices) {
      EtcdSession etcd = session.getIfUnique();
      if (etcd != null) {
        return etcd::leader;
      }
      LocalOffices local = localOffices.getIfUnique();
      if (local != null) {
        return local::leader;
      }
      return office -> elections.find(office).flatMap(Election::leader);
    }

    /**
     * How any office's history is read: from etcd without a lease, from the in-memory offices in
     * standalone mode, else from the candidate of the office, when this instance has one.
     */
    private static BiFunction<String, Integer, List<TermRecord>> histories(
        Elections elections,
        ObjectProvider<EtcdSession> session,
        ObjectProvider<LocalOffices> localOffices) {
      EtcdSession etcd = session.getIfUnique();
      if (etcd != null) {
        return etcd::history;
      }
      LocalOffices local = localOffices.getIfUnique();
      if (local != null) {
        return local::history;
      }
      return (office, n) -> elections.find(office).map(e -> e.history(n)).orElse(List.of());
    }
  }
}
