/**
 * Fencing where the data lives, the Spring way: {@link dev.conch.spring.fence.Fenced @Fenced} on a
 * {@code @Transactional} method, or {@link dev.conch.spring.fence.TransactionFence#fence()} inside
 * the current transaction, check this instance's fencing token in the application's own database,
 * on the connection the transaction writes on (JdbcTemplate, JdbcClient, JPA and Spring Data
 * alike). Built on conch-jdbc's {@link dev.conch.jdbc.JdbcFence}; only writes that go through the
 * fence are protected.
 */
@NullMarked
package dev.conch.spring.fence;

import org.jspecify.annotations.NullMarked;
