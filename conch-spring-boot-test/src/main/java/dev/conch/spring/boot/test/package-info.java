/**
 * Test kit for applications that use conch: {@link
 * dev.conch.spring.boot.test.AutoConfigureTestOffices @AutoConfigureTestOffices} and {@link
 * dev.conch.spring.boot.test.TestOffices}.
 */
@NullMarked
package dev.conch.spring.boot.test;

import org.jspecify.annotations.NullMarked;
