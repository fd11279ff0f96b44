package dev.leasehold.spring;

import dev.leasehold.core.lease.LeaseDefaults;
import java.lang.annotation.Documented;
import java.lang.annotation.ElementType;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;

/**
 * Makes a {@code @Scheduled(cron = ..., zone = ...)} method run <b>once per firing</b> across all
 * replicas of the application. Every replica's scheduler still calls the method at each firing; the
 * call first claims the firing (the latest instant of the cron expression in its zone at or before
 * now, allowing a call up to 250 ms early) in the Leasehold store, through the same lease,
 * watermark and fence as the daemon's jobs. Only the replica that wins the claim runs the method;
 * the others return at once. A replica whose clock is late, or that was paused, finds the firing
 * already claimed and does not run it again.
 *
 * <p>While the method runs its lease is renewed every third of {@link #ttl()}; when a renewal fails
 * (the lease expired, or the store cannot be reached) the method's thread is interrupted, since
 * another replica may now take a later firing. The running method reads its fencing token with
 * {@code dev.leasehold.core.exclusive.CurrentFiring.fence()}.
 *
 * <p>{@code @Scheduled(fixedRate)} and {@code fixedDelay} are refused when the application starts:
 * their calls are not aligned across replicas, so there is no firing that all replicas agree on. A
 * store that cannot be reached means the method does not run (fail closed).
 */
@Documented
@Retention(RetentionPolicy.RUNTIME)
@Target(ElementType.METHOD)
public @interface OncePerFiring {
  /**
   * The job (lease) name: {@code [A-Za-z0-9._-]}, 1 to 100 characters; {@code ${...}} placeholders
   * are resolved. Empty: {@code SimpleClassName.methodName}.
   */
  String name() default "";

  /** The lease time to live, e.g. {@code 30s}; renewed every third of it while the method runs. */
  String ttl() default LeaseDefaults.TTL_TEXT;
}
