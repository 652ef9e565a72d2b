/** Testcontainers support: an etcd container as a {@code @ServiceConnection}. */
@NullMarked
package dev.conch.spring.boot.testcontainers;

import org.jspecify.annotations.NullMarked;
