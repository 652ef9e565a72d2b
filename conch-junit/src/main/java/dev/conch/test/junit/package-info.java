/** JUnit 5 support for users of conch-core: {@link dev.conch.test.junit.LocalOfficesExtension}. */
@NullMarked
package dev.conch.test.junit;

import org.jspecify.annotations.NullMarked;
