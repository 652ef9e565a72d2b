/**
 * Test support for code that talks to etcd or to a database: real etcd members on loopback ports,
 * etcd's own {@code etcdctl}, and a TCP proxy that can cut a client off.
 *
 * <ul>
 *   <li>{@link dev.conch.test.EtcdCluster} starts 1 or 3 members from the {@code etcd} binary
 *       (Debian package {@code etcd-server}) and can stop, kill, pause and restart each one.
 *   <li>{@link dev.conch.test.EtcdExtension} runs such a cluster for a JUnit 5 test class or for
 *       each test, and injects it as an {@code EtcdCluster} parameter.
 *   <li>{@link dev.conch.test.TcpProxy} sits between a client and a member, to black-hole or reset
 *       the client's connections while etcd itself stays up.
 *   <li>{@link dev.conch.test.Etcdctl} runs {@code etcdctl} (package {@code etcd-client}) to check
 *       that what a client wrote is what etcd's own tools see.
 *   <li>{@link dev.conch.test.TlsEtcd} starts one member that serves TLS only and requires client
 *       certificates, with the certificates (made by {@code openssl}) a client needs.
 *   <li>{@link dev.conch.test.PostgresServer} and {@link dev.conch.test.MariaDbServer} start a real
 *       PostgreSQL or MariaDB server (Debian packages {@code postgresql}, {@code mariadb-server})
 *       in a temp dir on a free loopback port; {@link dev.conch.test.PostgresExtension} and {@link
 *       dev.conch.test.MariaDbExtension} run one for a JUnit 5 test class or for each test.
 * </ul>
 *
 * <p>Every wait is bounded, and a JVM shutdown hook kills any etcd, etcdctl or database process
 * still running, so a crashed test run leaves no process behind. Docker is not needed.
 */
@NullMarked
package dev.conch.test;

import org.jspecify.annotations.NullMarked;
