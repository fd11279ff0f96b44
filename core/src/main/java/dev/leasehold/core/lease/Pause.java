package dev.leasehold.core.lease;

import java.time.Instant;
import java.util.Objects;

/**
 * A job paused cluster-wide, as the store keeps it (see {@link LeaseStore#pause}).
 *
 * @param since when the pause began, on the store's clock (a repeated pause keeps the first one)
 * @param by who paused it: a node name or the operator's user name
 * @param reason why, as the operator gave it ({@code null} when none was given)
 * @param stopRunning whether the holder of a run in progress must stop it: while set, the store
 *     refuses every renewal of the name, so the holder stops as on a lost lease (G5)
 */
public record Pause(Instant since, String by, String reason, boolean stopRunning) {

  /** At most this many characters of a reason are kept. */
  public static final int MAX_REASON = 500;

  public Pause {
    Objects.requireNonNull(by, "by");
  }

  /** Checks the arguments of {@link LeaseStore#pause} before the store is touched. */
  public static void check(String by, String reason) {
    LeaseArguments.holder(by);
    if (reason != null && reason.length() > MAX_REASON) {
      throw new IllegalArgumentException(
          "a pause reason must be at most " + MAX_REASON + " characters");
    }
  }
}
