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
record LuaScript(String name, String source, ScriptOutputType output, String sha) {

  private static final String NOW =
      "local t = redis.call('TIME') local now = t[1] * 1000 + math.floor(t[2] / 1000)\n";

  /**
   * ARGV: token, ttl ms, firing ms, holder, proposed minimum fence. Refuses while a lease lives or
   * when the watermark is at or after the firing; else takes the lease, moves the watermark and
   * raises the fence to {@code max(fence + 1, proposed)}. Reply {1, fence, server ms, previous
   * watermark or ''} or {0, 'held' | 'fired'}.
   */
  static final LuaScript CLAIM =
      of(
          "claim",
          ScriptOutputType.MULTI,
          """
          if redis.call('EXISTS', KEYS[1]) == 1 then return {0, 'held'} end
          local last = redis.call('HGET', KEYS[2], 'last_fire')
          if last and tonumber(last) >= tonumber(ARGV[3]) then return {0, 'fired'} end
          local fence = math.max((tonumber(redis.call('HGET', KEYS[2], 'fence')) or 0) + 1, tonumber(ARGV[5]))
          """
              + NOW
              + """
          redis.call('SET', KEYS[1], ARGV[1], 'PX', ARGV[2])
          redis.call('HSET', KEYS[2], 'fence', fence, 'last_fire', ARGV[3], 'holder', ARGV[4], 'lease_until', now + ARGV[2])
          return {1, fence, now, last or ''}
          """);

  /** ARGV: token, ttl ms, holder, proposed minimum fence. Like CLAIM without the watermark. */
  static final LuaScript ACQUIRE =
      of(
          "acquire",
          ScriptOutputType.MULTI,
          """
          if redis.call('EXISTS', KEYS[1]) == 1 then return {0, 'held'} end
          local fence = math.max((tonumber(redis.call('HGET', KEYS[2], 'fence')) or 0) + 1, tonumber(ARGV[4]))
          """
              + NOW
              + """
          redis.call('SET', KEYS[1], ARGV[1], 'PX', ARGV[2])
          redis.call('HSET', KEYS[2], 'fence', fence, 'holder', ARGV[3], 'lease_until', now + ARGV[2])
          return {1, fence, now, ''}
          """);

  /** ARGV: token, ttl ms. Extends only a live lease that still holds this token. Reply 1 or 0. */
  static final LuaScript RENEW =
      of(
          "renew",
          ScriptOutputType.INTEGER,
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
   */
  static final LuaScript RELEASE =
      of(
          "release",
          ScriptOutputType.INTEGER,
          "if redis.call('GET', KEYS[1]) ~= ARGV[1] then return 0 end\n"
              + NOW
              + """
          redis.call('DEL', KEYS[1])
          redis.call('HDEL', KEYS[2], 'holder')
          redis.call('HSET', KEYS[2], 'lease_until', now)
          if ARGV[2] == '' then redis.call('HDEL', KEYS[2], 'last_fire')
          elseif ARGV[2] then redis.call('HSET', KEYS[2], 'last_fire', ARGV[2]) end
          return 1
          """);

  /**
   * ARGV: token, fence. Redlock's second round: raises the fence counter of a node where this token
   * holds the lease to at least {@code fence}. Reply 1 if the token holds the lease, else 0.
   */
  static final LuaScript RAISE_FENCE =
      of(
          "raise-fence",
          ScriptOutputType.INTEGER,
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
          ScriptOutputType.MULTI,
          NOW
              + """
          local m = redis.call('HMGET', KEYS[2], 'fence', 'last_fire', 'holder', 'lease_until')
          if not m[1] then return {} end
          return {now, redis.call('PTTL', KEYS[1]), m[1], m[2] or '', m[3] or '', m[4] or ''}
          """);

  private static LuaScript of(String name, ScriptOutputType output, String source) {
    try {
      byte[] digest =
          MessageDigest.getInstance("SHA-1").digest(source.getBytes(StandardCharsets.UTF_8));
      return new LuaScript(name, source, output, HexFormat.of().formatHex(digest));
    } catch (NoSuchAlgorithmException e) {
      throw new IllegalStateException("SHA-1 is missing from this JVM", e);
    }
  }
}
