package dev.leasehold.core.lease;

/**
 * The store could not be asked, or its answer could not be trusted (timeout, lost connection,
 * ambiguous reply). Callers treat it as "not acquired" / "not renewed" and never as "held" (G8).
 * Losing a race is not an exception: it is an empty {@code Optional} or {@code false}.
 */
public class LeaseStoreException extends RuntimeException {
  private static final long serialVersionUID = 1L;

  public LeaseStoreException(String message, Throwable cause) {
    super(message, cause);
  }

  public LeaseStoreException(String message) {
    super(message);
  }
}
