package dev.leasehold.app.wiring;

import dev.leasehold.app.config.JobConfig;
import dev.leasehold.core.lease.Journal;
import dev.leasehold.core.store.StoreBackend;
import java.security.SecureRandom;
import java.util.Base64;
import java.util.List;
import java.util.Optional;
import java.util.function.Supplier;

/**
 * The key of a namespace's {@link JobDigest}: 256 random bits, base64, kept in the store's journal
 * under {@value #NAME} and written once ({@link Journal#putIfAbsent}): the first process of a
 * namespace to ask stores its random key and every later one, on any replica, gets that one, so all
 * replicas of a namespace agree on their digests. The backend the app opens is the namespace's, so
 * each namespace has a key of its own. The key stays in the process: it is never logged, shown or
 * sent anywhere but to the store.
 */
public final class DigestKey {
  /** The journal key the digest key is kept under (mapped into the namespace like any name). */
  public static final String NAME = "_leasehold.job-digest-key";

  private static final int BYTES = 32;
  private static final SecureRandom RANDOM = new SecureRandom();

  private DigestKey() {}

  /**
   * The digest key of {@code backend}'s namespace, asked of the store at the first call and
   * remembered from then on; empty when the store keeps no journal. A failed call (the store does
   * not answer) throws, and the next call asks again.
   */
  public static Supplier<Optional<byte[]>> of(StoreBackend backend) {
    return new Supplier<>() {
      private Optional<byte[]> key;

      @Override
      public synchronized Optional<byte[]> get() {
        if (key == null) {
          key = backend.journal().map(DigestKey::fetch);
        }
        return key.map(byte[]::clone);
      }
    };
  }

  /** The key {@code journal} keeps, stored first when it keeps none. */
  static byte[] fetch(Journal journal) {
    byte[] mine = new byte[BYTES];
    RANDOM.nextBytes(mine);
    String stored = journal.putIfAbsent(NAME, Base64.getEncoder().encodeToString(mine));
    try {
      byte[] key = Base64.getDecoder().decode(stored);
      if (key.length >= 16) {
        return key;
      }
    } catch (IllegalArgumentException e) {
      // not base64: reported below, without the value
    }
    throw new IllegalStateException(
        "the job digest key in the store (" + NAME + ") is not a base64 key of 16 bytes or more");
  }

  /** The digest of {@code jobs} under {@code backend}'s key, as a daemon of it publishes it. */
  public static String digest(StoreBackend backend, List<JobConfig> jobs) {
    return of(backend).get().map(k -> JobDigest.of(jobs, k)).orElse(JobDigest.UNKEYED);
  }
}
