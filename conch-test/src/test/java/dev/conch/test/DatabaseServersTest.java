package dev.conch.test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.IOException;
import java.net.InetAddress;
import java.net.Socket;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * The database launchers start a server of their own on a free loopback port, in a temp dir, and
 * leave nothing behind when closed. What the servers do is the JDBC tests' (conch-jdbc).
 */
@Timeout(60)
class DatabaseServersTest {

  @Test
  void postgresListensOnAFreePortAndCloseLeavesNothing() throws IOException {
    Path dir;
    int port;
    try (PostgresServer first = PostgresServer.start();
        PostgresServer second = PostgresServer.start()) {
      dir = first.directory();
      port = first.port();
      assertThat(port).isNotEqualTo(5432).isNotEqualTo(second.port());
      assertThat(first.jdbcUrl()).isEqualTo("jdbc:postgresql://127.0.0.1:" + port + "/postgres");
      assertThat(accepts(port)).isTrue();
      assertThat(Files.readString(first.logFile()))
          .contains("database system is ready to accept connections");
      assertThat(first.psqlCommand()).contains(Integer.toString(port));
    }
    assertThat(dir).doesNotExist();
    assertThat(accepts(port)).isFalse();
  }

  @Test
  void mariaDbListensOnAFreePortAndCloseLeavesNothing() throws IOException {
    Path dir;
    int port;
    try (MariaDbServer server = MariaDbServer.start()) {
      dir = server.directory();
      port = server.port();
      assertThat(port).isNotEqualTo(3306);
      assertThat(server.jdbcUrl()).isEqualTo("jdbc:mariadb://127.0.0.1:" + port + "/conch");
      assertThat(accepts(port)).isTrue();
      assertThat(Files.readString(server.logFile())).contains("ready for connections");
    }
    assertThat(dir).doesNotExist();
    assertThat(accepts(port)).isFalse();
  }

  @Test
  void aBadServerSettingFailsTheStartWithTheServersOwnWords() {
    assertThatThrownBy(() -> PostgresServer.builder().setting("no_such_setting", "1").start())
        .isInstanceOf(IllegalStateException.class)
        .hasMessageContaining("postgres exited")
        .hasMessageContaining("no_such_setting");
  }

  private static boolean accepts(int port) {
    try (Socket socket = new Socket(InetAddress.getLoopbackAddress(), port)) {
      return true;
    } catch (IOException e) {
      return false;
    }
  }
}
