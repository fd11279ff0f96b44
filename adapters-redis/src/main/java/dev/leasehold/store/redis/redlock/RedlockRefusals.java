package dev.leasehold.store.redis.redlock;

import dev.leasehold.core.lease.ClaimResult;
import dev.leasehold.core.lease.LeaseStoreException;
import dev.leasehold.store.redis.node.Grant;
import java.time.Instant;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.stream.Collectors;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * What the nodes' answers to a claim attempt that no majority granted say: paused, already run,
 * held (and by whom), a failure when too few answered, or a split vote worth another attempt.
 */
final class RedlockRefusals {
  private static final Logger log = LoggerFactory.getLogger(RedlockClaim.class);

  private final int size;
  private final int majority;

  RedlockRefusals(int size, int majority) {
    this.size = size;
    this.majority = majority;
  }

  /**
   * The answer to an attempt that fewer than a majority granted (already undone), from the nodes'
   * own answers: null to try again (refusals from live leases, possibly a split vote between racing
   * replicas, when {@code mayRetry}); a failure when too few nodes answered to tell; else already
   * run when so many nodes refused the firing as fired that no majority can grant it, or held.
   *
   * @param what step and name, for messages
   */
  ClaimResult refusedOrRetry(String what, List<Grant> grants, boolean mayRetry) {
    // a live lease refuses, whatever the watermark says: it may be a rival's attempt that is
    // about to be undone (a split vote), so only refusals without a live lease are final
    int granted = Quorum.count(grants, Grant::granted);
    int held = Quorum.count(grants, g -> !g.granted() && g.live());
    int fired = Quorum.count(grants, g -> Grant.FIRED.equals(g.refusal()) && !g.live());
    int unknown = (int) grants.stream().filter(Objects::isNull).count();
    List<Grant> recorded =
        grants.stream().filter(g -> g != null && Grant.PAUSED.equals(g.refusal())).toList();
    if (recorded.size() >= majority) {
      // a majority recorded this firing as paused for this attempt: no other attempt can get a
      // majority of those answers for it (each node gives it once), so this one records it
      return ClaimResult.paused(Instant.ofEpochMilli(Long.parseLong(recorded.get(0).watermark())));
    }
    boolean splitVote = held > 0 && fired <= size - majority;
    if (splitVote && mayRetry) {
      return null;
    }
    if (granted + unknown >= majority) {
      return ClaimResult.failed(
          new LeaseStoreException(
              "Redlock: "
                  + what
                  + ": only "
                  + (size - unknown)
                  + " of "
                  + size
                  + " nodes answered, "
                  + majority
                  + " needed; not acquired"));
    }
    log.debug("{} refused: {} held, {} fired, {} granted of {}", what, held, fired, granted, size);
    int spent = Quorum.count(grants, g -> Grant.FIRED.equals(g.refusal()));
    return refusal(grants, spent > size - majority);
  }

  private static ClaimResult refusal(List<Grant> grants, boolean alreadyRun) {
    Instant watermark =
        grants.stream()
            .filter(g -> g != null && g.watermark() != null && !g.watermark().isEmpty())
            .map(g -> Instant.ofEpochMilli(Long.parseLong(g.watermark())))
            .max(Comparator.naturalOrder())
            .orElse(null);
    if (alreadyRun) {
      return ClaimResult.alreadyRun(watermark);
    }
    String holder =
        grants.stream()
            .filter(g -> g != null && g.holder() != null && !g.holder().isEmpty())
            .collect(Collectors.groupingBy(Grant::holder, Collectors.counting()))
            .entrySet()
            .stream()
            .max(Map.Entry.comparingByValue())
            .map(Map.Entry::getKey)
            .orElse(null);
    return ClaimResult.held(holder, watermark);
  }
}
