package dev.leasehold.store.redis;

import io.lettuce.core.ScriptOutputType;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.HexFormat;

/**
 * The Lua scripts of the Redis stores. Each one runs atomically on the server (Redis executes a
 * script without interleaving any other command), takes only KEYS and ARGV, and compares the token
 * (or the lease's existence) before it writes anything. {@code KEYS[1]} is always the lease key (a
 * string holding the token, expiring by {@code PX} on the server's clock) and {@code KEYS[2]} the
 * meta hash ({@code fence}, {@code last_fire}, {@code holder}, {@code lease_until}, epoch ms).
 *
 * <p>They are called by {@code EVALSHA} with a digest computed here; after {@code NOSCRIPT} (a
 * restarted server or {@code SCRIPT FLUSH}) the caller sends the source once with {@code EVAL},
 * which also puts it back into the server's script cache.
 */
record LuaScript(String name, String source, String sha) {

  /**
   * Every script is read as a plain RESP value (integer, string, nested arrays) and checked by the
   * caller ({@link Replies}): a server that answers in another shape is caught, not mis-decoded.
   */
  static ScriptOutputType output() {
    return ScriptOutputType.OBJECT;
  }

  private static final String NOW =
      "local t = redis.call('TIME') local now = t[1] * 1000 + math.floor(t[2] / 1000)\n";

  /**
   * Claims one or more names in one atomic step. KEYS: the lease and meta key of each name, in
   * pairs; ARGV: per name token, ttl ms, firing ms, holder, proposed minimum fence (5 each). For
   * each name it refuses when the watermark is at or after the firing ({@code fired}, which wins
   * over {@code held}: such a firing can never be claimed again), or when a lease lives ({@code SET
   * NX} fails); else it takes the lease, moves the watermark and raises the fence to {@code
   * max(fence + 1, proposed)}. Reply: one entry per name, {1, fence, server ms, previous watermark
   * or '', previous fence}, {0, 'fired', watermark, 1 if a lease lives else 0} or {0, 'held',
   * holder or '', watermark or ''}. (Redlock needs the live lease of a {@code fired} refusal:
   * during a race a node's watermark may belong to a rival's attempt that is about to be undone.)
   *
   * <p>Three commands per granted name ({@code HMGET}, {@code SET NX PX}, {@code HSET}) and one
   * {@code TIME} per call: the state is read once and the lease key is written by the same command
   * that tests it.
   */
  static final LuaScript CLAIM =
      of(
          "claim",
          NOW
              + """
          local out = {}
          for i = 1, #KEYS / 2 do
            local a = (i - 1) * 5
            local m = redis.call('HMGET', KEYS[2 * i], 'fence', 'last_fire', 'holder')
            if m[2] and tonumber(m[2]) >= tonumber(ARGV[a + 3]) then
              out[i] = {0, 'fired', m[2], redis.call('EXISTS', KEYS[2 * i - 1])}
            elseif not redis.call('SET', KEYS[2 * i - 1], ARGV[a + 1], 'NX', 'PX', ARGV[a + 2]) then
              out[i] = {0, 'held', m[3] or '', m[2] or ''}
            else
              local prev = tonumber(m[1]) or 0
              local fence = math.max(prev + 1, tonumber(ARGV[a + 5]))
              redis.call('HSET', KEYS[2 * i], 'fence', fence, 'last_fire', ARGV[a + 3], 'holder', ARGV[a + 4], 'lease_until', now + ARGV[a + 2])
              out[i] = {1, fence, now, m[2] or '', prev}
            end
          end
          return out
          """);

  /**
   * ARGV: token, ttl ms, holder, proposed minimum fence. Like one entry of CLAIM without the
   * watermark. Reply {1, fence, server ms, '', previous fence} or {0, 'held', holder or '', ''}.
   */
  static final LuaScript ACQUIRE =
      of(
          "acquire",
          """
          if not redis.call('SET', KEYS[1], ARGV[1], 'NX', 'PX', ARGV[2]) then
            return {0, 'held', redis.call('HGET', KEYS[2], 'holder') or '', ''}
          end
          local prev = tonumber(redis.call('HGET', KEYS[2], 'fence')) or 0
          local fence = math.max(prev + 1, tonumber(ARGV[4]))
          """
              + NOW
              + """
          redis.call('HSET', KEYS[2], 'fence', fence, 'holder', ARGV[3], 'lease_until', now + ARGV[2])
          return {1, fence, now, '', prev}
          """);

  /** ARGV: token, ttl ms. Extends only a live lease that still holds this token. Reply 1 or 0. */
  static final LuaScript RENEW =
      of(
          "renew",
          "if redis.call('GET', KEYS[1]) ~= ARGV[1] then return 0 end\n"
              + NOW
              + """
          redis.call('PEXPIRE', KEYS[1], ARGV[2])
          redis.call('HSET', KEYS[2], 'lease_until', now + ARGV[2])
          return 1
          """);

  /**
   * ARGV: token [, watermark to restore]. Frees the lease if it still holds this token; fence and
   * watermark stay. Only a Redlock claim that failed to win a quorum passes ARGV[2]: it puts the
   * watermark back to what it was before that claim ('' = none), which is safe because the token
   * proves that nobody else claimed on this node in between. Reply 1 or 0.
   *
   * <p>Four commands in the usual case ({@code GET}, {@code DEL}, {@code TIME}, one {@code HSET}):
   * the holder is cleared by writing '' (read back as "no holder", as an absent field is) in the
   * same {@code HSET} that stamps {@code lease_until}, instead of a separate {@code HDEL}.
   */
  static final LuaScript RELEASE =
      of(
          "release",
          """
          if redis.call('GET', KEYS[1]) ~= ARGV[1] then return 0 end
          redis.call('DEL', KEYS[1])
          """
              + NOW
              + """
          if ARGV[2] == '' then
            redis.call('HDEL', KEYS[2], 'last_fire')
            redis.call('HSET', KEYS[2], 'holder', '', 'lease_until', now)
          elseif ARGV[2] then
            redis.call('HSET', KEYS[2], 'holder', '', 'lease_until', now, 'last_fire', ARGV[2])
          else
            redis.call('HSET', KEYS[2], 'holder', '', 'lease_until', now)
          end
          return 1
          """);

  /**
   * ARGV: token, fence. Redlock's second round: raises the fence counter of a node where this token
   * holds the lease to at least {@code fence}. Reply 1 if the token holds the lease, else 0.
   */
  static final LuaScript RAISE_FENCE =
      of(
          "raise-fence",
          """
          if redis.call('GET', KEYS[1]) ~= ARGV[1] then return 0 end
          if (tonumber(redis.call('HGET', KEYS[2], 'fence')) or 0) < tonumber(ARGV[2]) then
            redis.call('HSET', KEYS[2], 'fence', ARGV[2])
          end
          return 1
          """);

  /**
   * No ARGV; reads one name consistently: {} when never leased, else {server ms, PTTL of the lease,
   * fence, last_fire, holder, lease_until} with '' for absent fields.
   */
  static final LuaScript INSPECT =
      of(
          "inspect",
          NOW
              + """
          local m = redis.call('HMGET', KEYS[2], 'fence', 'last_fire', 'holder', 'lease_until')
          if not m[1] then return {} end
          return {now, redis.call('PTTL', KEYS[1]), m[1], m[2] or '', m[3] or '', m[4] or ''}
          """);

  private static LuaScript of(String name, String source) {
    try {
      byte[] digest =
          MessageDigest.getInstance("SHA-1").digest(source.getBytes(StandardCharsets.UTF_8));
      return new LuaScript(name, source, HexFormat.of().formatHex(digest));
    } catch (NoSuchAlgorithmException e) {
      throw new IllegalStateException("SHA-1 is missing from this JVM", e);
    }
  }
}
