package dev.leasehold.core.exclusive;

import java.util.Optional;

/**
 * The {@link FiringContext} of the run on the current thread, set by {@link LeasedCall} for the
 * duration of the method and cleared after it. A method that hands work to other threads passes the
 * context (or its fence) along itself.
 */
public final class CurrentFiring {
  private static final ThreadLocal<FiringContext> CURRENT = new ThreadLocal<>();

  private CurrentFiring() {}

  /** The context of the run on this thread, empty outside a run. */
  public static Optional<FiringContext> get() {
    return Optional.ofNullable(CURRENT.get());
  }

  /**
   * The fencing token of the run on this thread.
   *
   * @throws IllegalStateException when called outside a run under a lease
   */
  public static long fence() {
    FiringContext context = CURRENT.get();
    if (context == null) {
      throw new IllegalStateException("no Leasehold run on this thread: no fence to read");
    }
    return context.fence();
  }

  static FiringContext swap(FiringContext context) {
    FiringContext before = CURRENT.get();
    if (context == null) {
      CURRENT.remove();
    } else {
      CURRENT.set(context);
    }
    return before;
  }
}
