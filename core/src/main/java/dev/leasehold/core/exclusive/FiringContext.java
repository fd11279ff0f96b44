package dev.leasehold.core.exclusive;

import java.time.Instant;
import java.util.Objects;
import java.util.Optional;

/**
 * What a method run under a lease knows about its run: the lease name, the firing it claimed (empty
 * for plain mutual exclusion), its fencing token and the node that holds the lease. Read it with
 * {@link CurrentFiring#get()} from the thread that runs the method.
 *
 * @param name the lease (job) name
 * @param firing the scheduled instant claimed, or {@code null} for a mutually exclusive call
 * @param fence the fencing token: larger than every earlier fence of this name; hand it to whatever
 *     the method writes so that a stale writer can be refused
 * @param holder the node holding the lease
 */
public record FiringContext(String name, Instant firing, long fence, String holder) {

  public FiringContext {
    Objects.requireNonNull(name, "name");
    Objects.requireNonNull(holder, "holder");
  }

  /** The claimed firing, empty for a mutually exclusive call. */
  public Optional<Instant> firingInstant() {
    return Optional.ofNullable(firing);
  }
}
