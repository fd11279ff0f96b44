package dev.leasehold.store.mongo;

import com.mongodb.ErrorCategory;
import com.mongodb.MongoCommandException;
import com.mongodb.MongoException;
import com.mongodb.MongoServerException;
import com.mongodb.MongoWriteException;
import dev.leasehold.core.lease.IncompatibleStoreException;
import dev.leasehold.core.lease.LeaseStoreException;
import java.util.Locale;
import java.util.Set;
import java.util.function.Supplier;
import org.bson.BSONException;

/**
 * The one place where driver exceptions become answers. A duplicate key (11000) is the unique
 * {@code _id} refusing a second lease document: a lost race, reported by the caller as empty.
 * Everything else the driver throws (server selection or socket timeouts, write concern errors,
 * authentication, a closed client, an unreadable reply) is a {@link LeaseStoreException}: the
 * caller fails closed and never takes such an answer as "held". A server that answers that it does
 * not support a command or operator (as wire-compatible servers do for {@code $expr}, {@code $$NOW}
 * or TTL indexes) is an {@link IncompatibleStoreException}: reported as what the server lacks, not
 * as "unreachable".
 */
final class MongoErrors {
  /**
   * CommandNotFound, CommandNotSupported, InvalidPipelineOperator, NotImplemented, and the code
   * Amazon DocumentDB answers for a feature it does not support.
   */
  private static final Set<Integer> UNSUPPORTED = Set.of(59, 115, 168, 238, 303);

  private static final String[] UNSUPPORTED_WORDS = {
    "not supported", "not implemented", "unsupported", "unknown operator", "unrecognized"
  };

  private MongoErrors() {}

  /** The server answered that it does not support what it was asked. */
  static boolean isUnsupported(MongoException e) {
    if (!(e instanceof MongoServerException)) {
      return false;
    }
    if (UNSUPPORTED.contains(e.getCode())) {
      return true;
    }
    String message = String.valueOf(e.getMessage()).toLowerCase(Locale.ROOT);
    for (String word : UNSUPPORTED_WORDS) {
      if (message.contains(word)) {
        return true;
      }
    }
    return false;
  }

  static boolean isDuplicateKey(MongoException e) {
    return e instanceof MongoServerException
        && ErrorCategory.fromErrorCode(e.getCode()) == ErrorCategory.DUPLICATE_KEY;
  }

  /** What the server said, without the full response the driver appends. */
  static String serverMessage(MongoException e) {
    if (e instanceof MongoCommandException c) {
      return c.getErrorMessage();
    }
    if (e instanceof MongoWriteException w) {
      return w.getError().getMessage();
    }
    return e.getMessage();
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
    if (e instanceof MongoServerException m && isUnsupported(m)) {
      return new IncompatibleStoreException(
          "MongoDB "
              + what
              + ": the server does not support what the store needs (error "
              + m.getCode()
              + ": "
              + serverMessage(m)
              + ")",
          e);
    }
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
