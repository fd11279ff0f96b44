package dev.leasehold.store.redis.node;

import dev.leasehold.core.lease.ClaimResult;
import java.time.Instant;
import java.util.List;

/**
 * One node's answer to {@link LuaScript#CLAIM} (one entry of it) or {@link LuaScript#ACQUIRE},
 * checked by {@link #of}.
 *
 * @param granted whether this node gave the lease
 * @param refusal {@code held}, {@code fired} or {@code paused} (this claim recorded the firing of a
 *     paused name) when refused
 * @param fence the node's new fence
 * @param serverMillis the node's clock when it granted the lease
 * @param previousWatermark the watermark before this claim ('' when none)
 * @param holder the live holder when refused as {@code held} ('' when unknown)
 * @param watermark the watermark the node has when refused ('' when none)
 * @param live whether a lease lives on the node when refused (always for {@code held})
 * @param restored whether the node took the fence or watermark of a grant from its high-water hash
 *     (its meta hash had been deleted by hand)
 */
public record Grant(
    boolean granted,
    String refusal,
    long fence,
    long serverMillis,
    String previousWatermark,
    String holder,
    String watermark,
    boolean live,
    boolean restored) {

  static final String HELD = "held";
  public static final String FIRED = "fired";
  public static final String PAUSED = "paused";

  /**
   * Reads and checks one answer: its shape, and that a grant moved the fence (above the node's
   * previous fence and at least to {@code minFence}) and, for a claim ({@code firingMs} not null),
   * that the firing was after the previous watermark; that a {@code fired} refusal shows a
   * watermark at or after the firing.
   *
   * @param where node and step, for messages
   */
  static Grant of(String where, Object reply, Long firingMs, long minFence) {
    List<?> r = Replies.array(where, reply, -1);
    if (r.isEmpty()) {
      throw Replies.wrong(where, reply, "expected a claim answer");
    }
    long granted = Replies.integer(where, reply, r.get(0));
    if (granted == 1L) {
      if (r.size() != 5 && r.size() != 6) {
        throw Replies.wrong(where, reply, "expected a grant of 5 or 6 entries");
      }
      boolean restored = r.size() == 6 && Replies.integer(where, reply, r.get(5)) == 1L;
      long fence = Replies.integer(where, reply, r.get(1));
      long now = Replies.integer(where, reply, r.get(2));
      String before = Replies.millis(where, reply, r.get(3));
      long previousFence = Replies.integer(where, reply, r.get(4));
      if (fence <= previousFence || fence < minFence) {
        throw Replies.wrong(
            where,
            reply,
            "the fence did not move (granted "
                + fence
                + ", previous "
                + previousFence
                + ", at least "
                + minFence
                + " expected)");
      }
      if (firingMs != null && !before.isEmpty() && Long.parseLong(before) >= firingMs) {
        throw Replies.wrong(
            where, reply, "it granted a firing that its watermark " + before + " already covers");
      }
      if (now <= 0) {
        throw Replies.wrong(where, reply, "the server time is not positive");
      }
      return new Grant(true, null, fence, now, before, null, null, true, restored);
    }
    if (granted != 0L || r.size() < 2) {
      throw Replies.wrong(where, reply, "expected 1 (granted) or 0 and a reason");
    }
    String reason = Replies.text(where, reply, r.get(1));
    if (FIRED.equals(reason) && r.size() == 4) {
      String watermark = Replies.millis(where, reply, r.get(2));
      long live = Replies.integer(where, reply, r.get(3));
      if (firingMs != null && (watermark.isEmpty() || Long.parseLong(watermark) < firingMs)) {
        throw Replies.wrong(where, reply, "it refused a firing after its watermark as already run");
      }
      return new Grant(false, FIRED, 0, 0, null, null, watermark, live == 1L, false);
    }
    if (PAUSED.equals(reason) && r.size() == 4 && firingMs != null) {
      String firing = Replies.millis(where, reply, r.get(2));
      if (!firing.equals(Long.toString(firingMs))) {
        throw Replies.wrong(where, reply, "it recorded another firing than the one claimed");
      }
      return new Grant(false, PAUSED, 0, 0, null, null, firing, false, false);
    }
    if (HELD.equals(reason) && r.size() == 4) {
      String holder = Replies.text(where, reply, r.get(2));
      String watermark = Replies.millis(where, reply, r.get(3));
      return new Grant(false, HELD, 0, 0, null, holder, watermark, true, false);
    }
    throw Replies.wrong(
        where,
        reply,
        "expected a refusal {0, 'held', holder, watermark}" + " or {0, 'fired', watermark}");
  }

  /** The refusal as the port's answer (only for refusals). */
  public ClaimResult refusalResult() {
    Instant mark =
        watermark == null || watermark.isEmpty()
            ? null
            : Instant.ofEpochMilli(Long.parseLong(watermark));
    if (PAUSED.equals(refusal)) {
      return ClaimResult.paused(mark);
    }
    return FIRED.equals(refusal)
        ? ClaimResult.alreadyRun(mark)
        : ClaimResult.held(holder == null || holder.isEmpty() ? null : holder, mark);
  }
}
