package dev.leasehold.core.lease;

import java.time.Duration;
import java.time.Instant;

/**
 * One claim in a batch: the arguments of {@link LeaseStore#claim}. Checked by {@link
 * LeaseArguments} when the store takes it, like a single claim's.
 */
public record ClaimRequest(String name, Instant firing, String holder, Duration ttl) {}
