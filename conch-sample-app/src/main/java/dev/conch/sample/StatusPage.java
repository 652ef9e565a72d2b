package dev.conch.sample;

import static org.springframework.web.util.HtmlUtils.htmlEscape;

import dev.conch.ConchException;
import dev.conch.Election;
import dev.conch.EtcdUnavailableException;
import dev.conch.Holder;
import dev.conch.TermRecord;
import java.time.Instant;
import java.util.List;
import java.util.Optional;
import java.util.OptionalLong;
import org.springframework.boot.autoconfigure.condition.ConditionalOnProperty;
import org.springframework.core.env.Environment;
import org.springframework.http.MediaType;
import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.RestController;

/**
 * The page at {@code /}: this instance, its state, who leads, and the token, and the office's last
 * terms as a timeline ({@link TermTimeline}), as plain HTML that reloads itself every two seconds.
 * No template engine and no script: the sample shows conch, not a web stack.
 */
@RestController
// Off with conch (conch.enabled=false): the same app without leader election, which the benchmark
// uses to measure what the starter adds to start-up.
@ConditionalOnProperty(name = "conch.enabled", havingValue = "true", matchIfMissing = true)
public class StatusPage {

  /** How many of the office's last terms the timeline shows. */
  static final int TERMS = 20;

  private final Election election;

  private final ReportJob job;

  private final LeadershipLog events;

  private final Environment environment;

  /** The page of this instance's candidate for the default office. */
  public StatusPage(
      Election election, ReportJob job, LeadershipLog events, Environment environment) {
    this.election = election;
    this.job = job;
    this.events = events;
    this.environment = environment;
  }

  /** Renders the page; the leader and the office's history are read from etcd on each request. */
  @GetMapping(path = "/", produces = MediaType.TEXT_HTML_VALUE)
  public String page() {
    Holder me = this.election.candidate();
    Optional<Holder> leader;
    String leaderText;
    try {
      leader = this.election.leader();
      leaderText = leader.map(LeadershipLog::describe).orElse("none: the office is vacant");
    } catch (EtcdUnavailableException ex) {
      leader = Optional.empty();
      leaderText = "unknown: etcd cannot be reached (" + ex.getMessage() + ")";
    }
    OptionalLong token = this.election.token();
    String office = this.election.office();
    StringBuilder html = new StringBuilder(2048);
    html.append("<!DOCTYPE html>\n<html><head><meta charset=\"utf-8\">")
        .append("<meta http-equiv=\"refresh\" content=\"2\">")
        .append("<title>conch sample: ")
        .append(htmlEscape(String.valueOf(me.id())))
        .append("</title></head>\n<body style=\"font-family: sans-serif\">\n")
        .append("<h1>conch sample app</h1>\n<table>\n");
    row(
        html,
        "this instance",
        me.id()
            + " (host "
            + me.host()
            + ", pid "
            + me.pid()
            + ", port "
            + this.environment.getProperty("local.server.port", "?")
            + ")");
    row(html, "office", office);
    row(html, "state", this.election.state().toString());
    row(html, "token", token.isPresent() ? Long.toString(token.getAsLong()) : "none (not leading)");
    row(html, "leader", leaderText);
    row(html, "last report", this.job.lastReport().map(StatusPage::describe).orElse("none"));
    html.append("</table>\n<h2>terms of office ")
        .append(htmlEscape(office))
        .append(" (the last ")
        .append(TERMS)
        .append(", oldest on top)</h2>\n")
        .append(terms(leader))
        .append("<h2>leadership events</h2>\n<ul>\n");
    for (LeadershipLog.Entry entry : this.events.entries()) {
      html.append("<li>").append(htmlEscape(entry.at() + " " + entry.text())).append("</li>\n");
    }
    html.append("</ul>\n<p>")
        .append(link("/actuator/conch"))
        .append(' ')
        .append(link("/actuator/conch/" + office))
        .append(' ')
        .append(link("/actuator/conch/" + office + "/assert"))
        .append(' ')
        .append(link("/actuator/health"))
        .append("</p>\n</body></html>\n");
    return html.toString();
  }

  /**
   * The office's last terms, from its history in etcd: a timeline and a table, in which the term of
   * {@code leader} (read from etcd just before) leads now.
   */
  private String terms(Optional<Holder> leader) {
    List<TermRecord> terms;
    try {
      terms = this.election.history(TERMS);
    } catch (ConchException ex) {
      return "<p id=\"term-history-unread\">"
          + htmlEscape("The history could not be read: " + ex.getMessage())
          + "</p>\n";
    }
    if (terms.isEmpty()) {
      return "<p id=\"term-history-empty\">No term is recorded: the office has had no leader"
          + " yet, or no history is kept (<code>conch.history-terms=0</code>).</p>\n";
    }
    OptionalLong leading =
        leader.map(held -> OptionalLong.of(held.rev())).orElse(OptionalLong.empty());
    TermTimeline timeline = new TermTimeline(terms, Instant.now(), leading);
    return timeline.svg() + TermTable.html(timeline.bars());
  }

  private static String describe(Report report) {
    return "#"
        + report.number()
        + " at "
        + report.at()
        + " with token "
        + report.token()
        + (report.stored() ? ", stored by the fenced write" : ", refused by the fence");
  }

  private static void row(StringBuilder html, String name, String value) {
    html.append("<tr><th align=\"left\">")
        .append(htmlEscape(name))
        .append("</th><td>")
        .append(htmlEscape(value))
        .append("</td></tr>\n");
  }

  private static String link(String path) {
    String escaped = htmlEscape(path);
    return "<a href=\"" + escaped + "\">" + escaped + "</a>";
  }
}
