package dev.leasehold.store.redis;

import dev.leasehold.core.lease.Forgetting;
import dev.leasehold.core.lease.LeaseArguments;
import dev.leasehold.core.lease.Pause;
import dev.leasehold.core.lease.Pauses;
import dev.leasehold.store.redis.node.LeaseKeys;
import dev.leasehold.store.redis.node.LuaScript;
import dev.leasehold.store.redis.node.RedisNode;
import dev.leasehold.store.redis.node.Replies;
import java.time.Instant;
import java.util.List;

/**
 * Pauses and forgetting on one Redis server: each one script on the lease's keys, atomic on the
 * server like the claims of {@link RedisLeaseStore} it shares the node with; with {@code
 * wait-replicas}, acknowledged by replicas.
 */
final class RedisLeaseRecords implements Pauses, Forgetting {
  private final RedisNode node;
  private final LeaseKeys keys;

  RedisLeaseRecords(RedisNode node, LeaseKeys keys) {
    this.node = node;
    this.keys = keys;
  }

  /** One script ({@link LuaScript#PAUSE}); with {@code wait-replicas}, acknowledged by replicas. */
  @Override
  public Pause pause(String name, String by, String reason, boolean stopRunning) {
    LeaseArguments.name(name);
    Pause.check(by, reason);
    String where = "Redis " + node.address() + ": pause of " + name;
    Object reply =
        node.await(
            node.eval(
                LuaScript.PAUSE,
                keys.lease(name),
                by,
                reason == null ? "" : reason,
                stopRunning ? "1" : "0"),
            "pause");
    List<?> r = Replies.array(where, reply, 2);
    long since = Replies.integer(where, reply, r.get(0));
    node.await(node.replicated("pause of " + name), "pause");
    return new Pause(Instant.ofEpochMilli(since), by, reason, stopRunning);
  }

  /** One script ({@link LuaScript#RESUME}). */
  @Override
  public boolean resume(String name, boolean catchUp) {
    LeaseArguments.name(name);
    boolean resumed =
        Replies.flag(
            "Redis " + node.address() + ": resume of " + name,
            node.await(
                node.eval(LuaScript.RESUME, keys.lease(name), catchUp ? "1" : "0"), "resume"));
    if (resumed) {
      node.await(node.replicated("resume of " + name), "resume");
    }
    return resumed;
  }

  /**
   * One script ({@link LuaScript#FORGET}): the meta hash goes when no lease key lives; the
   * high-water key stays (for a self-check scratch name it goes too).
   */
  @Override
  public boolean forget(String name) {
    LeaseArguments.name(name);
    boolean forgotten =
        Replies.flag(
            "Redis " + node.address() + ": forget of " + name,
            node.await(
                node.eval(
                    LuaScript.FORGET,
                    keys.lease(name),
                    dev.leasehold.core.store.StoreSelfCheck.isScratch(name) ? "1" : "0"),
                "forget"));
    if (forgotten) {
      node.await(node.replicated("forget of " + name), "forget");
    }
    return forgotten;
  }
}
