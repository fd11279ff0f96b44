package dev.leasehold.store.redis;

import java.util.List;

/**
 * One node's answer to {@link LuaScript#CLAIM} or {@link LuaScript#ACQUIRE}.
 *
 * @param granted whether this node gave the lease
 * @param refusal {@code held} or {@code fired} when refused
 * @param fence the node's new fence
 * @param serverMillis the node's clock when it granted the lease
 * @param previousWatermark the watermark before this claim ('' when none)
 */
record Grant(
    boolean granted, String refusal, long fence, long serverMillis, String previousWatermark) {

  static Grant of(List<Object> reply) {
    if (((Long) reply.get(0)) == 1L) {
      return new Grant(true, null, (Long) reply.get(1), (Long) reply.get(2), (String) reply.get(3));
    }
    return new Grant(false, (String) reply.get(1), 0, 0, null);
  }
}
