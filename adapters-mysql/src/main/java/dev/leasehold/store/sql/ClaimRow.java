package dev.leasehold.store.sql;

import java.time.Instant;

/**
 * A row of {@code task_lock} as a claim statement answered it: the row the claim wrote when its
 * {@code token} is the claim's own, else the row as the statement found it ({@code token} then
 * {@code null}). Fields the statement does not report are {@code null} (or fence 0). {@code
 * pauseClaim} is the token of the claim that last recorded a firing as paused (the claim's own when
 * this claim did), {@code paused} whether the row was paused.
 */
record ClaimRow(
    String name,
    String token,
    String holder,
    long fence,
    Instant lastFire,
    Instant leaseUntil,
    String pauseClaim,
    boolean paused) {}
