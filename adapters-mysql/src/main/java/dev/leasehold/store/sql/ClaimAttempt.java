package dev.leasehold.store.sql;

import java.time.Instant;

/**
 * One claim as the statements bind it.
 *
 * @param firing the firing at millisecond precision, or {@code null} for an acquire (no watermark
 *     condition, watermark left as it is)
 * @param token the fresh random token that identifies the row the claim writes
 */
record ClaimAttempt(String name, Instant firing, String holder, String token, long ttlMillis) {}
