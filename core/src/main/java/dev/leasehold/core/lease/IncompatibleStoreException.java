package dev.leasehold.core.lease;

/**
 * The server answered, but not as the store needs: it does not support a command or operator the
 * store relies on, its reply has the wrong shape, or it does not keep a guarantee the store's
 * algorithm rests on (a second claim of a held lease accepted, a document written under another
 * key). Fails closed like every {@link LeaseStoreException} (nothing is acquired), and is reported
 * as what the server did wrong, never as "unreachable": retrying does not help until the server
 * changes.
 */
public class IncompatibleStoreException extends LeaseStoreException {
  private static final long serialVersionUID = 1L;

  public IncompatibleStoreException(String message, Throwable cause) {
    super(message, cause);
  }

  public IncompatibleStoreException(String message) {
    super(message);
  }
}
