/**
 * The sample application: a Spring Boot web app that uses conch as an application would. Several
 * instances run against the same etcd; the leader of office {@code reports} makes the reports.
 *
 * <ul>
 *   <li>{@link dev.conch.sample.SampleApplication} starts it.
 *   <li>{@link dev.conch.sample.ReportJob} is the work that must run on one instance only: a report
 *       stamped with the leader's fencing token and stored with a fenced write.
 *   <li>{@link dev.conch.sample.ReportFeed} shows the two shortest ways to run something on the
 *       leader only: a lifecycle bean bound to the office and a {@code @LeaderOnly} method.
 *   <li>{@link dev.conch.sample.LeadershipLog} logs the leadership events; {@link
 *       dev.conch.sample.StatusPage} shows them at {@code /}.
 *   <li>{@link dev.conch.sample.SecurityConfiguration} guards the endpoint's write operation.
 * </ul>
 */
package dev.conch.sample;
