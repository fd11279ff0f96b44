package dev.leasehold.store.redis.node;

import dev.leasehold.core.lease.Journal;
import dev.leasehold.core.lease.JournalArguments;
import dev.leasehold.core.lease.JournalEntry;
import dev.leasehold.core.lease.LeaseStoreException;
import io.lettuce.core.Limit;
import io.lettuce.core.Range;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.CompletableFuture;
import java.util.function.Function;

/**
 * The journal on Redis. A stream is one sorted set ({@link LeaseKeys#journal}) whose members are an
 * entry's id followed by its body, all of score 0: Redis orders equal scores by member, so by id,
 * which sorts by time first ({@link JournalArguments}). {@code append} is one {@code ZADD}, {@code
 * recent} one {@code ZREVRANGEBYLEX ... LIMIT}, {@code prune} a script that removes the members
 * below the id floor ({@code ZREMRANGEBYLEX}) and answers their ids. A key is a string ({@link
 * LeaseKeys#journalKey}) set by {@code SET NX} and read back in the same script.
 *
 * <p>On a Redlock's independent masters: the id is made by the client, so an entry is the same
 * member on every master. {@code append} writes every master and succeeds once a majority took it
 * (an entry that reached only a minority may still be read: like a write whose answer was lost);
 * {@code recent} and {@code prune} need a majority to answer and take the union by id, so every
 * entry a successful append wrote is seen. {@code putIfAbsent} is decided by a majority, as a lease
 * is: the value that a majority of masters holds is the answer, and the masters holding another are
 * set to it ({@link #decide}).
 */
public final class RedisJournal implements Journal {
  private static final int ID = JournalArguments.ID_LENGTH;

  private static final LuaScript PRUNE =
      LuaScript.script(
          "journal-prune",
          """
          local gone = redis.call('ZRANGEBYLEX', KEYS[1], '-', ARGV[1])
          if #gone > 0 then redis.call('ZREMRANGEBYLEX', KEYS[1], '-', ARGV[1]) end
          local ids = {}
          for i, m in ipairs(gone) do ids[i] = string.sub(m, 1, %d) end
          return ids
          """
              .formatted(ID));

  /** ARGV: value. Sets the key unless it is set; reply {value now held}. */
  private static final LuaScript PUT =
      LuaScript.script(
          "journal-put",
          "redis.call('SET', KEYS[1], ARGV[1], 'NX') return {redis.call('GET', KEYS[1])}");

  /**
   * ARGV: expected, value. Sets the key to value only where it holds expected; reply {1} or {0}.
   */
  private static final LuaScript REPAIR =
      LuaScript.script(
          "journal-repair",
          "if redis.call('GET', KEYS[1]) == ARGV[1] then redis.call('SET', KEYS[1], ARGV[2])"
              + " return {1} end return {0}");

  /** Rounds of {@link #putIfAbsent} on a Redlock before a split vote is reported. */
  private static final int ROUNDS = 5;

  private final List<RedisNode> nodes;
  private final LeaseKeys keys;
  private final int majority;

  public RedisJournal(List<RedisNode> nodes, LeaseKeys keys) {
    this.nodes = List.copyOf(nodes);
    this.keys = keys;
    this.majority = RedisNode.majority(nodes);
  }

  @Override
  public JournalEntry append(String stream, Instant at, String body) {
    JournalEntry entry = JournalArguments.newEntry(stream, at, body);
    String key = keys.journal(stream);
    String member = entry.id() + body;
    onMajority(
        "journal append",
        n ->
            n.call(c -> c.zadd(key, 0.0, member)).thenCompose(x -> n.replicated("journal append")));
    return entry;
  }

  @Override
  public List<JournalEntry> recent(String stream, int limit) {
    JournalArguments.stream(stream);
    JournalArguments.limit(limit);
    String key = keys.journal(stream);
    TreeSet<String> members = new TreeSet<>(Collections.reverseOrder());
    for (List<String> found :
        onMajority(
            "journal read",
            n ->
                n.call(
                    c ->
                        c.zrevrangebylex(
                            key, Range.<String>unbounded(), Limit.create(0, limit))))) {
      members.addAll(found);
    }
    List<JournalEntry> out = new ArrayList<>();
    for (String m : members) {
      if (out.size() == limit) {
        break;
      }
      if (m.length() < ID) {
        throw new LeaseStoreException("journal " + stream + ": a member is not an entry");
      }
      out.add(JournalArguments.entry(stream, m.substring(0, ID), m.substring(ID)));
    }
    return List.copyOf(out);
  }

  @Override
  public int prune(String stream, Instant before) {
    JournalArguments.stream(stream);
    String[] key = {keys.journal(stream)};
    String floor = "(" + JournalArguments.idFloor(before);
    Set<Object> gone = new HashSet<>();
    for (Object reply : onMajority("journal prune", n -> n.eval(PRUNE, key, floor))) {
      gone.addAll(Replies.array("Redis journal prune", reply, -1));
    }
    return gone.size();
  }

  @Override
  public String putIfAbsent(String name, String value) {
    JournalArguments.key(name);
    JournalArguments.value(value);
    String[] key = {keys.journalKey(name)};
    if (nodes.size() == 1) {
      RedisNode node = nodes.get(0);
      Object reply = node.await(node.eval(PUT, key, value), "journal key");
      node.await(node.replicated("journal key"), "journal key");
      return held(node, reply);
    }
    for (int round = 0; round < ROUNDS; round++) {
      String decided = decide(key, value);
      if (decided != null) {
        return decided;
      }
    }
    throw new LeaseStoreException(
        "journal key " + name + ": no value holds a majority of the Redlock's masters");
  }

  /**
   * One round on a Redlock: {@code SET NX} on every master, then the value a majority holds (the
   * others set to it, {@link #REPAIR}); else, when every master answered with a value (no write can
   * change that any more but a repair), the masters are set to the least of those values, which
   * every client that sees them all picks alike, and the next round reads them again; else null.
   * Safe because a value that once held a majority is never overwritten: repairs write only the
   * majority's value, or the least value when all masters are known to hold no majority.
   */
  private String decide(String[] key, String value) {
    List<CompletableFuture<Object>> puts = new ArrayList<>();
    for (RedisNode n : nodes) {
      puts.add(n.eval(PUT, key, value));
    }
    String[] held = new String[nodes.size()];
    Map<String, Integer> votes = new HashMap<>();
    int answered = 0;
    LeaseStoreException last = null;
    for (int i = 0; i < nodes.size(); i++) {
      try {
        held[i] = held(nodes.get(i), nodes.get(i).await(puts.get(i), "journal key"));
        votes.merge(held[i], 1, Integer::sum);
        answered++;
      } catch (LeaseStoreException e) {
        last = e;
      }
    }
    String target = null;
    for (Map.Entry<String, Integer> v : votes.entrySet()) {
      if (v.getValue() >= majority) {
        target = v.getKey();
      }
    }
    boolean split = target == null && answered == nodes.size();
    if (split) {
      target = new TreeSet<>(votes.keySet()).first();
    }
    if (target == null) {
      throw new LeaseStoreException(
          "journal key: " + answered + " of " + nodes.size() + " Redis masters answered", last);
    }
    for (int i = 0; i < nodes.size(); i++) {
      if (held[i] != null && !held[i].equals(target)) {
        RedisNode n = nodes.get(i);
        n.await(n.eval(REPAIR, key, held[i], target), "journal key repair");
      }
    }
    return split ? null : target;
  }

  private static String held(RedisNode node, Object reply) {
    List<?> list = Replies.array("Redis " + node.address() + ": journal key", reply, 1);
    return Replies.text("Redis " + node.address() + ": journal key", reply, list.get(0));
  }

  /**
   * Runs {@code call} on every node at once; the answers of those that answered, once a majority
   * did (the one node of a single server), else a {@link LeaseStoreException}.
   */
  private <T> List<T> onMajority(String what, Function<RedisNode, CompletableFuture<T>> call) {
    List<CompletableFuture<T>> calls = new ArrayList<>();
    for (RedisNode n : nodes) {
      calls.add(call.apply(n));
    }
    List<T> answers = new ArrayList<>();
    LeaseStoreException last = null;
    for (int i = 0; i < nodes.size(); i++) {
      try {
        answers.add(nodes.get(i).await(calls.get(i), what));
      } catch (LeaseStoreException e) {
        last = e;
      }
    }
    if (answers.size() < majority) {
      if (nodes.size() == 1) {
        throw last;
      }
      throw new LeaseStoreException(
          what
              + ": "
              + answers.size()
              + " of "
              + nodes.size()
              + " Redis nodes answered, "
              + majority
              + " needed",
          last);
    }
    return answers;
  }
}
