/**
 * Docker Compose support: an etcd service of the application's {@code compose.yaml} as its
 * connection.
 */
@NullMarked
package dev.conch.spring.boot.docker.compose;

import org.jspecify.annotations.NullMarked;
