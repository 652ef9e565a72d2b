/**
 * Auto-configuration for conch: {@code conch.*} properties, the etcd client and session ({@link
 * dev.conch.spring.boot.autoconfigure.EtcdConnectionDetails}, {@link
 * dev.conch.spring.boot.autoconfigure.EtcdClientBuilderCustomizer}), an {@link dev.conch.Election}
 * bean per office, the {@link dev.conch.process.ExternalCommandRunner} bean of {@code
 * conch.runner.*}. The API it configures is in {@code dev.conch.spring}; the endpoint, health
 * contributor and meters in {@code dev.conch.spring.boot.actuate.endpoint}, {@code
 * dev.conch.spring.boot.health} and {@code dev.conch.spring.boot.metrics}, their
 * auto-configurations in the sub-packages of this one.
 */
@NullMarked
package dev.conch.spring.boot.autoconfigure;

import org.jspecify.annotations.NullMarked;
