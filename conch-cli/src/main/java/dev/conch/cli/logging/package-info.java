/** The CLI's logging: an SLF4J provider that writes one line per event to stderr. */
package dev.conch.cli.logging;
