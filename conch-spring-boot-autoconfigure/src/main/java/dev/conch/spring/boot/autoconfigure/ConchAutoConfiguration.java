package dev.conch.spring.boot.autoconfigure;

import dev.conch.Election;
import dev.conch.InvalidArgumentException;
import dev.conch.Setting;
import dev.conch.etcd.EtcdClients;
import dev.conch.etcd.EtcdSession;
import dev.conch.etcd.SessionOptions;
import dev.conch.local.LocalOffices;
import dev.conch.process.ExternalCommandRunner;
import dev.conch.spring.Elections;
import dev.conch.spring.LeadershipEvent;
import dev.conch.spring.OnLeadership;
import dev.conch.spring.health.CandidacyPauses;
import dev.conch.spring.support.ConchLifecycle;
import dev.conch.spring.support.OnLeadershipAnnotationBeanPostProcessor;
import io.etcd.jetcd.Client;
import io.etcd.jetcd.ClientBuilder;
import java.net.URI;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.stream.Collectors;
import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;
import org.springframework.beans.factory.ListableBeanFactory;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.EnableAutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBooleanProperty;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnProperty;
import org.springframework.boot.autoconfigure.ssl.SslAutoConfiguration;
import org.springframework.boot.context.properties.EnableConfigurationProperties;
import org.springframework.boot.ssl.SslBundle;
import org.springframework.boot.ssl.SslBundles;
import org.springframework.context.ApplicationEventPublisher;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.context.annotation.Import;
import org.springframework.context.annotation.ImportRuntimeHints;
import org.springframework.core.env.Environment;

/**
 * {@link EnableAutoConfiguration Auto-configuration} for conch: an etcd {@link Client}, one shared
 * {@link EtcdSession}, an {@link Election} bean per configured office, {@link OnLeadership} hooks,
 * leadership {@link LeadershipEvent events}, and campaigning from context start to context stop; an
 * {@code ExternalCommandRunner} when {@code conch.runner.command} is set. With {@code
 * conch.standalone=true} offices are elected in memory instead, and always won.
 */
@AutoConfiguration(after = SslAutoConfiguration.class)
@ConditionalOnClass({Election.class, Client.class})
@ConditionalOnBooleanProperty(name = "conch.enabled", matchIfMissing = true)
@EnableConfigurationProperties(ConchProperties.class)
@Import(ExternalCommandRunnerConfiguration.class)
@ImportRuntimeHints(ConchRuntimeHints.class)
public final class ConchAutoConfiguration {

  private static final Log logger = LogFactory.getLog(ConchAutoConfiguration.class);

  @Bean
  static OnLeadershipAnnotationBeanPostProcessor conchOnLeadershipAnnotationBeanPostProcessor() {
    return new OnLeadershipAnnotationBeanPostProcessor();
  }

  @Bean
  @ConditionalOnMissingBean
  Elections conchElections(
      ObjectProvider<Election> elections,
      ObjectProvider<ElectionFactory> factory,
      ObjectProvider<SupervisedOffice> supervisedOffice,
      Environment environment) {
    ElectionFactory creator = factory.getIfAvailable();
    List<Election> all = new ArrayList<>(elections.orderedStream().toList());
    // With the application's own Election beans the runner's election is no bean, but it is
    // still this instance's candidate for its office.
    supervisedOffice.ifAvailable(
        office -> {
          if (!all.contains(office.election())) {
            all.add(office.election());
          }
        });
    return new Elections(
        all,
        ConfiguredOffices.of(environment).defaultOffice(),
        (creator != null) ? creator::create : null);
  }

  /** The gates of the offices that require health ({@code conch.health.require}). */
  @Bean
  @ConditionalOnMissingBean
  CandidacyPauses conchCandidacyPauses(ConchProperties properties, Environment environment) {
    return HealthRequirements.of(properties, ConfiguredOffices.of(environment));
  }

  @Bean
  ConchLifecycle conchLifecycle(
      Elections elections,
      OnLeadershipAnnotationBeanPostProcessor methods,
      ApplicationEventPublisher eventPublisher,
      ListableBeanFactory beanFactory) {
    return new ConchLifecycle(elections, methods, eventPublisher, beanFactory);
  }

  /** Elections in etcd, the default; offices shared fairly with the other instances. */
  @Configuration(proxyBeanMethods = false)
  @ConditionalOnBooleanProperty(
      name = "conch.standalone",
      havingValue = false,
      matchIfMissing = true)
  @Import(OfficeBalanceConfiguration.class)
  static class EtcdConfiguration {

    @Bean
    @ConditionalOnMissingBean(EtcdConnectionDetails.class)
    PropertiesEtcdConnectionDetails etcdConnectionDetails(
        ConchProperties properties, ObjectProvider<SslBundles> sslBundles) {
      return new PropertiesEtcdConnectionDetails(properties.getEtcd(), sslBundles.getIfAvailable());
    }

    @Bean(destroyMethod = "close")
    @ConditionalOnMissingBean
    Client etcdClient(
        EtcdConnectionDetails connectionDetails,
        ConchProperties properties,
        ObjectProvider<EtcdClientBuilderCustomizer> customizers,
        Environment environment) {
      Duration timeout = sessionOptions(properties, environment).timeout();
      List<URI> endpoints = connectionDetails.getEndpoints();
      SslBundle sslBundle = connectionDetails.getSslBundle();
      boolean tls = sslBundle != null || endpoints.stream().anyMatch(EtcdConfiguration::isHttps);
      if (tls && !endpoints.stream().allMatch(EtcdConfiguration::isHttps)) {
        throw new InvalidArgumentException(
            "conch.etcd.endpoints",
            endpoints.stream().map(URI::toString).collect(Collectors.joining(",")),
            "only https:// URLs when TLS is on (conch.etcd.ssl.bundle is set or an endpoint is"
                + " https://): every connection to etcd uses the same TLS settings");
      }
      ClientBuilder builder =
          EtcdClients.withCredentials(
              EtcdClients.builder(endpoints, timeout),
              connectionDetails.getUsername(),
              connectionDetails.getPassword());
      ClientBuilder configured =
          tls ? EtcdClients.withTls(builder, EtcdSslContexts.forClient(sslBundle)) : builder;
      customizers.orderedStream().forEach(customizer -> customize(configured, customizer, timeout));
      if (configured.target() == null) {
        // What ClientBuilder.build() would refuse, refused now rather than at first use.
        throw new InvalidArgumentException(
            "conch.etcd.endpoints", null, "at least one endpoint, e.g. http://127.0.0.1:2379");
      }
      // Built on first use, off the start-up path: see DeferredEtcdClient.
      return new DeferredEtcdClient(configured, describe(endpoints, connectionDetails));
    }

    /**
     * Applies {@code customizer}, then sets back what conch's calls rely on (no wait-for-ready, no
     * retries inside jetcd, a deadline on every call) if it changed any of it, and says so: a
     * customizer tunes the client, it cannot make calls outlive their timeouts.
     */
    private static void customize(
        ClientBuilder builder, EtcdClientBuilderCustomizer customizer, Duration timeout) {
      customizer.customize(builder);
      List<String> restored = EtcdClients.restoreConchSettings(builder, timeout);
      if (!restored.isEmpty()) {
        logger.warn(
            "EtcdClientBuilderCustomizer "
                + customizer.getClass().getName()
                + " changed settings conch relies on; set back: "
                + String.join("; ", restored)
                + ". To run with other settings, define your own io.etcd.jetcd.Client bean");
      }
    }

    /** Reconnects conch's client with its SSL bundle's new certificates when it is reloaded. */
    @Bean
    @ConditionalOnProperty("conch.etcd.ssl.bundle")
    @ConditionalOnBean(SslBundles.class)
    EtcdSslReload conchEtcdSslReload(
        Client etcdClient,
        EtcdConnectionDetails connectionDetails,
        ConchProperties properties,
        SslBundles sslBundles) {
      return EtcdSslReload.register(
          sslBundles,
          // Set: the bean is conditional on the property.
          Objects.requireNonNull(properties.getEtcd().getSsl().getBundle()),
          etcdClient,
          connectionDetails);
    }

    @Bean(destroyMethod = "close")
    @ConditionalOnMissingBean
    EtcdSession etcdSession(
        Client etcdClient,
        ConchProperties properties,
        ListableBeanFactory beanFactory,
        Environment environment) {
      if (!(etcdClient instanceof DeferredEtcdClient)) {
        warnAboutOwnClient(beanFactory);
      }
      return EtcdSession.open(etcdClient, sessionOptions(properties, environment));
    }

    /**
     * The application's own client is used as it is: a built jetcd client cannot be asked how it
     * was built, so the risk of jetcd's defaults is named once, with the bean.
     */
    private static void warnAboutOwnClient(ListableBeanFactory beanFactory) {
      String names = String.join(", ", beanFactory.getBeanNamesForType(Client.class, true, false));
      logger.warn(
          "conch uses the application's own etcd Client bean '"
              + names
              + "' as it is. Unless it was built from EtcdClients.builder(endpoints, timeout) and"
              + " keeps its settings, jetcd's defaults apply: wait-for-ready (calls made while etcd"
              + " is away are queued and sent when it is back, long after conch gave up on them),"
              + " retries inside jetcd (a call conch gave up on may still be made) and no deadline"
              + " on its calls. An EtcdClientBuilderCustomizer, whose changes conch checks, avoids"
              + " this");
    }

    @Bean
    @ConditionalOnMissingBean
    OfficeTimings conchOfficeTimings(EtcdSession etcdSession) {
      return new OfficeTimings(etcdSession.options());
    }

    @Bean(ElectionFactory.BEAN_NAME)
    ElectionFactory conchElectionFactory(
        EtcdSession etcdSession,
        ConchProperties properties,
        Environment environment,
        OfficeTimings timings,
        CandidacyPauses pauses) {
      return new ElectionFactory(
          properties,
          ConfiguredOffices.of(environment),
          etcdSession::election,
          timings,
          pauses,
          ConchThreads.hooks(environment));
    }

    /** The session options conch.* describe, each refusal naming its property and typed value. */
    static SessionOptions sessionOptions(ConchProperties properties, Environment environment) {
      return SettingProperties.shared(environment)
          .check(
              () -> {
                SessionOptions options =
                    SessionOptions.defaults()
                        .withPrefix(properties.getEtcd().getPrefix())
                        .withTtl(ttl(properties, environment))
                        .withTimeout(properties.getEtcd().getTimeout())
                        .withHistoryTerms(properties.getHistoryTerms())
                        .withMaxKeysPerLease(properties.getEtcd().getMaxKeysPerLease());
                Duration renewInterval = properties.getRenewInterval();
                return (renewInterval != null) ? options.withRenewInterval(renewInterval) : options;
              });
    }

    /**
     * {@code conch.ttl}; unset, 10 s ({@link Setting#TTL}), or the runner's 15 s ({@link
     * ExternalCommandRunner#DEFAULT_TTL}) when {@code conch.runner.command} is set, as {@code conch
     * elect}'s: with its kill-after of 5 s, 10 s would leave too little to ride out an etcd raft
     * leader change.
     */
    static Duration ttl(ConchProperties properties, Environment environment) {
      Duration ttl = properties.getTtl();
      if (ttl != null) {
        return ttl;
      }
      return ConfiguredOffices.hasRunnerCommand(environment)
          ? ExternalCommandRunner.DEFAULT_TTL
          : Objects.requireNonNull(Setting.TTL.defaultValue());
    }

    /** The endpoints and where they were set, for the messages about an etcd out of reach. */
    static String describe(List<URI> endpoints, EtcdConnectionDetails connectionDetails) {
      String urls = endpoints.stream().map(URI::toString).collect(Collectors.joining(","));
      String source =
          (connectionDetails instanceof PropertiesEtcdConnectionDetails)
              ? "conch.etcd.endpoints"
              : "from " + connectionDetails.getClass().getName();
      return urls + " (" + source + ")";
    }

    private static boolean isHttps(URI endpoint) {
      return "https".equals(endpoint.getScheme());
    }
  }

  /** Elections in memory, on explicit request only: this instance always leads. */
  @Configuration(proxyBeanMethods = false)
  @ConditionalOnBooleanProperty("conch.standalone")
  static class StandaloneConfiguration {

    /**
     * Warns as it makes the offices: an application or the test kit that brings its own {@code
     * LocalOffices} bean chose them in code, where a property left in a profile did not.
     */
    @Bean
    @ConditionalOnMissingBean
    LocalOffices conchLocalOffices() {
      logger.warn(
          "conch.standalone=true: offices are elected IN MEMORY, not in etcd. This instance leads"
              + " every office it campaigns for and nothing is fenced against other instances."
              + " For local runs only; never in production.");
      return new LocalOffices();
    }

    @Bean(ElectionFactory.BEAN_NAME)
    ElectionFactory conchElectionFactory(
        LocalOffices localOffices,
        ConchProperties properties,
        Environment environment,
        CandidacyPauses pauses) {
      return new ElectionFactory(
          properties,
          ConfiguredOffices.of(environment),
          localOffices::election,
          null,
          pauses,
          ConchThreads.hooks(environment));
    }
  }

  /**
   * An Election bean per configured office, unless the application defines its own: registered when
   * the context refreshes, from the offices of the environment it runs with.
   */
  @Configuration(proxyBeanMethods = false)
  @ConditionalOnMissingBean(Election.class)
  static class ElectionBeansConfiguration {

    @Bean
    static ElectionsRegistrar conchElectionsRegistrar(Environment environment) {
      return new ElectionsRegistrar(environment);
    }
  }
}
