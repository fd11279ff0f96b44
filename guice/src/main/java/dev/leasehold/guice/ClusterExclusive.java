package dev.leasehold.guice;

import dev.leasehold.core.lease.LeaseDefaults;
import java.lang.annotation.Documented;
import java.lang.annotation.ElementType;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;

/**
 * Marks a method that runs under a Leasehold lease, with {@link ClusterExclusiveModule} installed.
 * Two modes:
 *
 * <ul>
 *   <li><b>Once per firing</b>, when {@link #cron()} or {@link #every()} is given: the method is
 *       called on that schedule by each replica's own timer. A call claims the firing it is due for
 *       (the latest instant of the schedule at or before now, allowing a call up to 250 ms early)
 *       through the store's watermark, exactly as the daemon claims a job's firing: one replica
 *       runs each firing, and a replica calling late (slow clock, long pause) is refused.
 *   <li><b>Mutual exclusion</b> otherwise: a call acquires the lease and runs if nobody holds it. A
 *       replica calling after the first released the lease runs again.
 * </ul>
 *
 * In both modes the lease is renewed every third of {@link #ttl()} while the method runs; when a
 * renewal fails the method's thread is interrupted. The running method reads its fence through
 * {@code dev.leasehold.core.exclusive.CurrentFiring.fence()}. A call that does not run (lease held,
 * firing already run, store unreachable: fail closed) is <b>skipped</b> and returns:
 *
 * <ul>
 *   <li>{@code Optional.empty()} for methods returning {@code Optional};
 *   <li>{@code false} for {@code boolean}, zero for the other primitives;
 *   <li>{@code null} for any other type (and nothing for {@code void}).
 * </ul>
 *
 * Guice intercepts only instances it creates, on non-private, non-final, non-static methods.
 */
@Documented
@Retention(RetentionPolicy.RUNTIME)
@Target(ElementType.METHOD)
public @interface ClusterExclusive {
  /** The lease name: {@code [A-Za-z0-9._-]}, 1 to 100 characters. */
  String name();

  /** The lease time to live, e.g. {@code 30s}; renewed every third of it while the method runs. */
  String ttl() default LeaseDefaults.TTL_TEXT;

  /**
   * A cron expression (5 fields, or 6 with seconds first) the method is called on: each call claims
   * its firing once across replicas. Empty for mutual exclusion.
   */
  String cron() default "";

  /** The zone {@link #cron()} is read in, e.g. {@code Europe/Berlin}. */
  String zone() default "UTC";

  /**
   * An interval the method is called on, e.g. {@code 10s}, aligned to the epoch (as the daemon's
   * {@code every}): each call claims its firing once across replicas. Empty for mutual exclusion.
   */
  String every() default "";
}
