package dev.leasehold.store.mongo;

import com.mongodb.ErrorCategory;
import com.mongodb.MongoException;
import com.mongodb.MongoServerException;
import dev.leasehold.core.lease.LeaseStoreException;
import java.util.function.Supplier;
import org.bson.BSONException;

/**
 * The one place where driver exceptions become answers. A duplicate key (11000) is the unique
 * {@code _id} refusing a second lease document: a lost race, reported by the caller as empty.
 * Everything else the driver throws (server selection or socket timeouts, write concern errors,
 * authentication, a closed client, an unreadable reply) is a {@link LeaseStoreException}: the
 * caller fails closed and never takes such an answer as "held".
 */
final class MongoErrors {
  private MongoErrors() {}

  static boolean isDuplicateKey(MongoException e) {
    return e instanceof MongoServerException
        && ErrorCategory.fromErrorCode(e.getCode()) == ErrorCategory.DUPLICATE_KEY;
  }

  /** Runs {@code call}, turning driver failures into {@link LeaseStoreException}. */
  static <T> T call(String what, Supplier<T> call) {
    try {
      return call.get();
    } catch (MongoException | BSONException | ClassCastException | IllegalStateException e) {
      throw failure(what, e);
    }
  }

  static LeaseStoreException failure(String what, RuntimeException e) {
    String code = e instanceof MongoException m ? " (code " + m.getCode() + ")" : "";
    return new LeaseStoreException(
        "MongoDB "
            + what
            + " failed"
            + code
            + ": "
            + e.getClass().getSimpleName()
            + ": "
            + e.getMessage(),
        e);
  }
}
