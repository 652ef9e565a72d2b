package dev.conch;

import java.time.Duration;

/**
 * How one member takes part in an {@link OfficeGroup}.
 *
 * @param name the group's name (a valid office name)
 * @param candidateId this member's id: the candidate id of its elections
 * @param priority this member's priority; higher leads first, equal priorities never move
 * @param delay how long a membership change must be quiet before anything moves
 * @param minTenure how long a term lasts at least before it is handed to a member of higher
 *     priority
 */
public record GroupOptions(
    String name, String candidateId, int priority, Duration delay, Duration minTenure) {}
