package dev.conch.sample;

import dev.conch.spring.boot.actuate.endpoint.ConchEndpoint;
import org.springframework.boot.security.autoconfigure.actuate.web.servlet.EndpointRequest;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.http.HttpMethod;
import org.springframework.security.config.Customizer;
import org.springframework.security.config.annotation.web.builders.HttpSecurity;
import org.springframework.security.config.http.SessionCreationPolicy;
import org.springframework.security.web.SecurityFilterChain;

/**
 * Who may change leadership through the actuator. Reading is open: the page, health, and the {@code
 * conch} endpoint's reads, which load balancers and scripts poll without credentials. The
 * endpoint's write operation ({@code POST /actuator/conch/{office}}: resign, transfer) takes a user
 * with the role {@value #OPERATOR}, over HTTP basic: by default {@code spring.security.user.*}
 * (name {@code operator}; give it a password with {@code --spring.security.user.password=...}).
 *
 * <p>The write operation exists at all only because {@code application.yml} sets {@code
 * management.endpoint.conch.access=unrestricted}; the endpoint is read-only by default.
 */
@Configuration(proxyBeanMethods = false)
public class SecurityConfiguration {

  /** The role that may resign or transfer an office. */
  public static final String OPERATOR = "CONCH_OPERATOR";

  @Bean
  SecurityFilterChain securityFilterChain(HttpSecurity http) throws Exception {
    return http.authorizeHttpRequests(
            requests ->
                requests
                    .requestMatchers(
                        EndpointRequest.to(ConchEndpoint.class).withHttpMethod(HttpMethod.POST))
                    .hasRole(OPERATOR)
                    .requestMatchers(EndpointRequest.toAnyEndpoint().withHttpMethod(HttpMethod.GET))
                    .permitAll()
                    .requestMatchers(EndpointRequest.toAnyEndpoint())
                    .denyAll()
                    .anyRequest()
                    .permitAll())
        .httpBasic(Customizer.withDefaults())
        // Scripts send credentials with each request; no session, so no cookie to forge a request
        // with, and no CSRF token to ask for.
        .sessionManagement(
            session -> session.sessionCreationPolicy(SessionCreationPolicy.STATELESS))
        .csrf(csrf -> csrf.ignoringRequestMatchers(EndpointRequest.toAnyEndpoint()))
        .build();
  }
}
