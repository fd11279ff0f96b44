package dev.leasehold.app.exclusive;

import java.lang.annotation.Documented;
import java.lang.annotation.ElementType;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;

/**
 * Marks a method that must run on one replica at a time: with {@link ClusterExclusiveModule}
 * installed, a call acquires the lease {@link #name()} ({@code LeaseStore.acquire}), runs the
 * method only if it got the lease, renews the lease while the method runs and releases it after.
 * Where the lease is held elsewhere (or the store cannot be reached: fail closed) the method is
 * <b>skipped</b> and the call returns:
 *
 * <ul>
 *   <li>{@code Optional.empty()} for methods returning {@code Optional};
 *   <li>{@code false} for {@code boolean}, zero for the other primitives;
 *   <li>{@code null} for any other type (and nothing for {@code void}).
 * </ul>
 *
 * <p>This is mutual exclusion, not "once per firing": a replica calling later, after the first
 * released the lease, runs again. For once-per-firing use the scheduler (a job with a schedule).
 * Guice intercepts only instances it creates, on non-private, non-final, non-static methods.
 */
@Documented
@Retention(RetentionPolicy.RUNTIME)
@Target(ElementType.METHOD)
public @interface ClusterExclusive {
  /** The lease name: {@code [A-Za-z0-9._-]}, 1 to 100 characters. */
  String name();

  /** The lease time to live, e.g. {@code 30s}; renewed every third of it while the method runs. */
  String ttl() default "30s";
}
