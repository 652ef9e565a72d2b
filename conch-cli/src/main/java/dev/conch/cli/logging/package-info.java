/** The CLI's logging: an SLF4J provider that writes one line per event to stderr. */
@NullMarked
package dev.conch.cli.logging;

import org.jspecify.annotations.NullMarked;
