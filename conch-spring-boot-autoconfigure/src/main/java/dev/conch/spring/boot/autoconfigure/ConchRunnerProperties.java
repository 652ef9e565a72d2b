package dev.conch.spring.boot.autoconfigure;

import dev.conch.process.ExternalCommandRunner;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.jspecify.annotations.Nullable;
import org.springframework.boot.context.properties.ConfigurationProperties;

/**
 * Configuration properties of the {@link ExternalCommandRunner} bean, which runs a command only
 * while this instance leads an office. The bean exists only when {@code conch.runner.command} is
 * set.
 */
@ConfigurationProperties("conch.runner")
public class ConchRunnerProperties {

  /** Command and its arguments, run without a shell while this instance leads the office. */
  private List<String> command = new ArrayList<>();

  /** Whether to campaign and run the command again after it exits or leadership is lost. */
  private boolean restart;

  /** How long the command's process group may take to exit after SIGTERM before SIGKILL. */
  private Duration killAfter = ExternalCommandRunner.DEFAULT_KILL_AFTER;

  /** Shell command (sh -c) run on winning, before the command starts; a failure gives up. */
  private @Nullable String onAcquire;

  /** Shell command (sh -c) run after the command stopped; best effort. */
  private @Nullable String onLose;

  /** How long each of the on-acquire and on-lose hooks may run. */
  private Duration hookTimeout = ExternalCommandRunner.DEFAULT_HOOK_TIMEOUT;

  /** Office the runner campaigns for; defaults to conch.office, else spring.application.name. */
  private @Nullable String office;

  /** How long to campaign before the command first starts; 0 gives up at once; unset waits. */
  private @Nullable Duration wait;

  public List<String> getCommand() {
    return this.command;
  }

  public void setCommand(List<String> command) {
    this.command = command;
  }

  public boolean isRestart() {
    return this.restart;
  }

  public void setRestart(boolean restart) {
    this.restart = restart;
  }

  public Duration getKillAfter() {
    return this.killAfter;
  }

  public void setKillAfter(Duration killAfter) {
    this.killAfter = killAfter;
  }

  public @Nullable String getOnAcquire() {
    return this.onAcquire;
  }

  public void setOnAcquire(@Nullable String onAcquire) {
    this.onAcquire = onAcquire;
  }

  public @Nullable String getOnLose() {
    return this.onLose;
  }

  public void setOnLose(@Nullable String onLose) {
    this.onLose = onLose;
  }

  public Duration getHookTimeout() {
    return this.hookTimeout;
  }

  public void setHookTimeout(Duration hookTimeout) {
    this.hookTimeout = hookTimeout;
  }

  public @Nullable String getOffice() {
    return this.office;
  }

  public void setOffice(@Nullable String office) {
    this.office = office;
  }

  public @Nullable Duration getWait() {
    return this.wait;
  }

  public void setWait(@Nullable Duration wait) {
    this.wait = wait;
  }
}
