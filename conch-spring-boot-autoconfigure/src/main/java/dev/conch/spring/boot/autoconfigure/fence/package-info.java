/**
 * Auto-configuration of the fence in the application's own database: the {@link
 * dev.conch.spring.fence.TransactionFence} bean, {@code @Fenced} methods, the fence table's schema
 * initialization ({@code conch.fence.jdbc.*}) and the {@code conch.fence} meter.
 */
@NullMarked
package dev.conch.spring.boot.autoconfigure.fence;

import org.jspecify.annotations.NullMarked;
