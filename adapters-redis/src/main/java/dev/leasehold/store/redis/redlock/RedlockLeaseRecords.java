package dev.leasehold.store.redis.redlock;

import dev.leasehold.core.lease.Forgetting;
import dev.leasehold.core.lease.LeaseArguments;
import dev.leasehold.core.lease.LeaseStoreException;
import dev.leasehold.core.lease.Pause;
import dev.leasehold.core.lease.Pauses;
import dev.leasehold.store.redis.node.LeaseKeys;
import dev.leasehold.store.redis.node.LuaScript;
import dev.leasehold.store.redis.node.RedisNode;
import dev.leasehold.store.redis.node.Replies;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Objects;
import java.util.concurrent.TimeUnit;

/**
 * Pauses and forgetting on a Redlock's masters: the single-node script on every node, decided by a
 * majority of their answers, as the claims of {@link RedlockLeaseStore} are.
 */
public final class RedlockLeaseRecords implements Pauses, Forgetting {
  private static final long FORGET_REST_MS = 1000;

  private final List<RedisNode> nodes;
  private final int majority;
  private final LeaseKeys keys;
  private final Duration timeout;

  public RedlockLeaseRecords(List<RedisNode> nodes, LeaseKeys keys) {
    this.nodes = List.copyOf(nodes);
    this.majority = RedisNode.majority(nodes);
    this.keys = keys;
    this.timeout = nodes.get(0).timeout();
  }

  /**
   * The pause script on every node; done when a majority kept it. A paused node never grants a
   * claim, so at most {@code N - m < m} nodes can grant one and no claim of the name wins. A claim
   * that a majority answers {@code paused} records the firing (each node answers so once per
   * firing, so at most one claimant gets a majority of those answers).
   */
  @Override
  public Pause pause(String name, String by, String reason, boolean stopRunning) {
    LeaseArguments.name(name);
    Pause.check(by, reason);
    String[] k = keys.lease(name);
    List<Long> since =
        Quorum.ask(
            nodes,
            n ->
                n.eval(
                        LuaScript.PAUSE,
                        k,
                        by,
                        reason == null ? "" : reason,
                        stopRunning ? "1" : "0")
                    .thenCompose(
                        r -> {
                          String where = "Redis " + n.address() + ": pause of " + name;
                          long at = Replies.integer(where, r, Replies.array(where, r, 2).get(0));
                          return n.replicated("pause of " + name).thenApply(v -> at);
                        }),
            System.nanoTime() + timeout.toNanos());
    int kept = Quorum.count(since, s -> true);
    if (kept < majority) {
      throw tooFew("pause of " + name, kept);
    }
    long first = since.stream().filter(Objects::nonNull).mapToLong(Long::longValue).min().orElse(0);
    return new Pause(Instant.ofEpochMilli(first), by, reason, stopRunning);
  }

  /** The resume script on every node; true when a node was paused, once a majority answered. */
  @Override
  public boolean resume(String name, boolean catchUp) {
    LeaseArguments.name(name);
    String[] k = keys.lease(name);
    List<Boolean> answers =
        Quorum.ask(
            nodes,
            n ->
                n.eval(LuaScript.RESUME, k, catchUp ? "1" : "0")
                    .thenApply(
                        r -> Replies.flag("Redis " + n.address() + ": resume of " + name, r)),
            System.nanoTime() + timeout.toNanos());
    int answered = Quorum.count(answers, a -> true);
    if (answered < majority) {
      throw tooFew("resume of " + name, answered);
    }
    return Quorum.count(answers, a -> a) > 0;
  }

  /**
   * The forget script on every node, each deciding on its own lease key; true once a majority
   * deleted the record. A live lease holds its key on a majority, so it is never forgotten; a node
   * that lacks the key may drop its meta hash, and its high-water key keeps the fence rising.
   */
  @Override
  public boolean forget(String name) {
    LeaseArguments.name(name);
    String[] k = keys.lease(name);
    String scratch = dev.leasehold.core.store.StoreSelfCheck.isScratch(name) ? "1" : "0";
    List<Boolean> answers =
        Quorum.ask(
            nodes,
            n ->
                n.eval(LuaScript.FORGET, k, scratch)
                    .thenApply(
                        r -> Replies.flag("Redis " + n.address() + ": forget of " + name, r)),
            System.nanoTime() + timeout.toNanos());
    int answered = Quorum.count(answers, a -> true);
    if (answered < majority) {
      throw tooFew("forget of " + name, answered);
    }
    if (Quorum.count(answers, a -> a) < majority) {
      return false;
    }
    forgetOnTheRest(name, k, scratch, answers);
    return true;
  }

  /**
   * A majority forgot the record, so no lease lives; a node that refused still has its copy of the
   * lease key, which expires on that node a few milliseconds after the others (each node runs its
   * own PX). Asks those nodes again for up to {@value #FORGET_REST_MS} ms so that the record is
   * gone everywhere, not only from a majority; a node that still refuses then keeps its copy
   * (inspect shows it until the next forget), which is harmless.
   */
  private void forgetOnTheRest(String name, String[] k, String scratch, List<Boolean> answers) {
    List<RedisNode> rest = new java.util.ArrayList<>();
    for (int i = 0; i < nodes.size(); i++) {
      if (Boolean.FALSE.equals(answers.get(i))) {
        rest.add(nodes.get(i));
      }
    }
    long end = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(FORGET_REST_MS);
    while (!rest.isEmpty() && System.nanoTime() < end) {
      try {
        Thread.sleep(50);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        return;
      }
      List<Boolean> again =
          Quorum.ask(
              rest,
              n ->
                  n.eval(LuaScript.FORGET, k, scratch)
                      .thenApply(
                          r -> Replies.flag("Redis " + n.address() + ": forget of " + name, r)),
              System.nanoTime() + timeout.toNanos());
      List<RedisNode> still = new java.util.ArrayList<>();
      for (int i = 0; i < rest.size(); i++) {
        if (!Boolean.TRUE.equals(again.get(i))) {
          still.add(rest.get(i));
        }
      }
      rest = still;
    }
  }

  private LeaseStoreException tooFew(String what, int answered) {
    return Quorum.tooFew(what, answered, nodes);
  }
}
