/** JUnit 5 support for users of conch-core: {@link dev.conch.test.junit.LocalOfficesExtension}. */
package dev.conch.test.junit;
