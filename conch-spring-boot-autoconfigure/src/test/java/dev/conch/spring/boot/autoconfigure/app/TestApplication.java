package dev.conch.spring.boot.autoconfigure.app;

import org.springframework.boot.SpringBootConfiguration;
import org.springframework.boot.autoconfigure.EnableAutoConfiguration;

/**
 * The smallest Spring Boot application: every auto-configuration on the test class path (web
 * server, actuator, health, metrics, conch), nothing of its own.
 */
@SpringBootConfiguration
@EnableAutoConfiguration
public class TestApplication {}
