/**
 * The {@code conch} command line: {@code conch elect} runs a command only while leading an office,
 * or shows, watches and asserts who leads it. No Spring, few classes: it must start fast.
 */
@NullMarked
package dev.conch.cli;

import org.jspecify.annotations.NullMarked;
