package dev.leasehold.store.redis.node;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;

/**
 * The one place where a grant is asked for: {@link LuaScript#CLAIM} over up to {@value #BATCH}
 * names (three keys and five arguments a name, in the order the script reads them), or {@link
 * LuaScript#ACQUIRE} for one name; the reply read into one checked {@link Grant} per name. Used by
 * the single-server store and by both Redlock rounds of claims (one name, or a batch).
 */
public final class ClaimScript {
  /** Names per claim script: bounds how long one call keeps the server busy (a few ms). */
  public static final int BATCH = 500;

  private ClaimScript() {}

  /**
   * Sends {@code entries} (claims, at most {@value #BATCH}, or one acquisition) as one script to
   * {@code node}. Completes with a grant or refusal per entry, in order, or fails as the call fails
   * or when the reply is not what the script returns ({@link Grant#of}, {@link Replies}).
   */
  public static CompletableFuture<List<Grant>> send(RedisNode node, List<ClaimEntry> entries) {
    ClaimEntry first = entries.get(0);
    if (first.firing() == null) {
      String where = "Redis " + node.address() + ": " + first.what();
      return node.eval(
              LuaScript.ACQUIRE,
              first.keys(),
              first.token(),
              "" + first.ttl().toMillis(),
              first.holder(),
              "" + first.minFence())
          .thenApply(reply -> List.of(Grant.of(where, reply, null, first.minFence())));
    }
    int size = entries.size();
    String[] keys = new String[size * 3];
    String[] args = new String[size * 5];
    for (int i = 0; i < size; i++) {
      ClaimEntry e = entries.get(i);
      System.arraycopy(e.keys(), 0, keys, 3 * i, 3);
      args[5 * i] = e.token();
      args[5 * i + 1] = "" + e.ttl().toMillis();
      args[5 * i + 2] = "" + e.firing().toEpochMilli();
      args[5 * i + 3] = e.holder();
      args[5 * i + 4] = "" + e.minFence();
    }
    String where = "Redis " + node.address() + ": ";
    return node.eval(LuaScript.CLAIM, keys, args)
        .thenApply(
            reply -> {
              List<?> answers =
                  Replies.array(where + (size == 1 ? first.what() : "claim"), reply, size);
              List<Grant> grants = new ArrayList<>(size);
              for (int i = 0; i < size; i++) {
                ClaimEntry e = entries.get(i);
                grants.add(Grant.of(where + e.what(), answers.get(i), e.firingMs(), e.minFence()));
              }
              return grants;
            });
  }

  /** {@code claim of <name>} for one entry, {@code claim of a batch} for more, for messages. */
  public static String what(List<ClaimEntry> entries) {
    return entries.size() == 1 ? entries.get(0).what() : "claim of a batch";
  }
}
