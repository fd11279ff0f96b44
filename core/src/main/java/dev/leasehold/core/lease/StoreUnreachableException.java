package dev.leasehold.core.lease;

/**
 * The store could not be reached at all: nothing listens there, the host is unknown, the connection
 * timed out, the server refused the credentials, or an embedded file is locked. Its message is
 * complete for an operator (which store, which host and port or file, the cause in plain words,
 * never a password), so it is printed as it is, without the driver's wording of its cause.
 */
public class StoreUnreachableException extends LeaseStoreException {
  private static final long serialVersionUID = 1L;

  public StoreUnreachableException(String message, Throwable cause) {
    super(message, cause);
  }
}
