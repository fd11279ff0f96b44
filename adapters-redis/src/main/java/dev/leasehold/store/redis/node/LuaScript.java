package dev.leasehold.store.redis.node;

import io.lettuce.core.ScriptOutputType;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.HexFormat;

/**
 * The Lua scripts of the Redis stores. Each one runs atomically on the server (Redis executes a
 * script without interleaving any other command), takes only KEYS and ARGV, and compares the token
 * (or the lease's existence) before it writes anything. {@code KEYS[1]} is always the lease key (a
 * string holding the token, expiring by {@code PX} on the server's clock), {@code KEYS[2]} the meta
 * hash ({@code fence}, {@code last_fire}, {@code holder}, {@code lease_until}, epoch ms) and {@code
 * KEYS[3]} the high-water hash ({@code fence}, {@code last_fire}: the highest given, kept apart so
 * that deleting the meta hash by hand sends neither the fence nor the watermark back).
 *
 * <p>They are called by {@code EVALSHA} with a digest computed here; after {@code NOSCRIPT} (a
 * restarted server or {@code SCRIPT FLUSH}) the caller sends the source once with {@code EVAL},
 * which also puts it back into the server's script cache.
 */
public record LuaScript(String name, String source, String sha) {

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
   * Restores, into the locals {@code m} (meta fields fence, last_fire, ...) and {@code restored}, a
   * fence and watermark from the high-water hash {@code H} when the meta hash {@code M} has none
   * (it was deleted by hand, or only a pause created it with fence 0): fences then go on from the
   * highest given and a firing already claimed stays spent.
   */
  private static final String RESTORE =
      """
      local restored = 0
      if not m[1] or m[1] == '0' then
        local h = redis.call('HMGET', H, 'fence', 'last_fire')
        if h[1] and tonumber(h[1]) > (tonumber(m[1]) or 0) then
          m[1] = h[1]
          restored = 1
        end
        if h[2] and not m[2] then
          m[2] = h[2]
          restored = 1
        end
      end
      """;

  /**
   * Claims one or more names in one atomic step. KEYS: the lease, meta and high-water key of each
   * name, in threes; ARGV: per name token, ttl ms, firing ms, holder, proposed minimum fence (5
   * each). When the meta hash holds no fence (deleted by hand) the fence and watermark are taken
   * from the high-water hash ({@code fence}, {@code last_fire}), which every grant and every paused
   * claim also writes. For each name it refuses when the watermark is at or after the firing
   * ({@code fired}, which wins over the rest: such a firing can never be claimed again); records
   * the firing when the name is paused ({@code paused}: the watermark and {@code paused_fire} move
   * to it, no lease starts, the fence stays; the one caller that gets this answer records the
   * firing); refuses when a lease lives ({@code SET NX} fails); else it takes the lease, moves the
   * watermark and raises the fence to {@code max(fence + 1, proposed)}. Reply: one entry per name,
   * {1, fence, server ms, previous watermark or '', previous fence, 1 if fence or watermark came
   * from the high-water hash else 0}, {0, 'fired', watermark, 1 if a lease lives else 0}, {0,
   * 'paused', firing, ''} or {0, 'held', holder or '', watermark or ''}. (Redlock needs the live
   * lease of a {@code fired} refusal: during a race a node's watermark may belong to a rival's
   * attempt that is about to be undone.)
   *
   * <p>Four commands per granted name ({@code HMGET}, {@code SET NX PX}, two {@code HSET}) and one
   * {@code TIME} per call: the state is read once and the lease key is written by the same command
   * that tests it.
   */
  static final LuaScript CLAIM =
      of(
          "claim",
          NOW
              + """
          local out = {}
          for i = 1, #KEYS / 3 do
            local a = (i - 1) * 5
            local M, H = KEYS[3 * i - 1], KEYS[3 * i]
            local m = redis.call('HMGET', M, 'fence', 'last_fire', 'holder', 'paused')
          """
              + RESTORE
              + """
            if m[2] and tonumber(m[2]) >= tonumber(ARGV[a + 3]) then
              out[i] = {0, 'fired', m[2], redis.call('EXISTS', KEYS[3 * i - 2])}
            elseif m[4] then
              redis.call('HSET', M, 'last_fire', ARGV[a + 3], 'paused_fire', ARGV[a + 3])
              redis.call('HSET', H, 'last_fire', ARGV[a + 3])
              out[i] = {0, 'paused', ARGV[a + 3], ''}
            elseif not redis.call('SET', KEYS[3 * i - 2], ARGV[a + 1], 'NX', 'PX', ARGV[a + 2]) then
              out[i] = {0, 'held', m[3] or '', m[2] or ''}
            else
              local prev = tonumber(m[1]) or 0
              local fence = math.max(prev + 1, tonumber(ARGV[a + 5]))
              redis.call('HSET', M, 'fence', fence, 'last_fire', ARGV[a + 3], 'holder', ARGV[a + 4], 'lease_until', now + ARGV[a + 2])
              redis.call('HSET', H, 'fence', fence, 'last_fire', ARGV[a + 3])
              out[i] = {1, fence, now, m[2] or '', prev, restored}
            end
          end
          return out
          """);

  /**
   * ARGV: token, ttl ms, holder, proposed minimum fence. Like one entry of CLAIM without the
   * watermark (fence and watermark restored from the high-water hash alike). Reply {1, fence,
   * server ms, '', previous fence, restored} or {0, 'held', holder or '', ''}.
   */
  static final LuaScript ACQUIRE =
      of(
          "acquire",
          """
          if not redis.call('SET', KEYS[1], ARGV[1], 'NX', 'PX', ARGV[2]) then
            return {0, 'held', redis.call('HGET', KEYS[2], 'holder') or '', ''}
          end
          local M, H = KEYS[2], KEYS[3]
          local m = redis.call('HMGET', M, 'fence', 'last_fire')
          """
              + RESTORE
              + NOW
              + """
          local prev = tonumber(m[1]) or 0
          local fence = math.max(prev + 1, tonumber(ARGV[4]))
          redis.call('HSET', M, 'fence', fence, 'holder', ARGV[3], 'lease_until', now + ARGV[2])
          if restored == 1 and m[2] then redis.call('HSET', M, 'last_fire', m[2]) end
          redis.call('HSET', H, 'fence', fence)
          return {1, fence, now, '', prev, restored}
          """);

  /**
   * ARGV: token, ttl ms. Extends only a live lease that still holds this token, and not while the
   * name is paused with stop. Reply 1 or 0.
   */
  public static final LuaScript RENEW =
      of(
          "renew",
          "if redis.call('GET', KEYS[1]) ~= ARGV[1] then return 0 end\n"
              + "if redis.call('HGET', KEYS[2], 'pause_stop') == '1' then return 0 end\n"
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
  public static final LuaScript RELEASE =
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
   * ARGV: token, fence. Redlock's second round: raises the fence counter (and the high-water fence)
   * of a node where this token holds the lease to at least {@code fence}. Reply 1 if the token
   * holds the lease, else 0.
   */
  public static final LuaScript RAISE_FENCE =
      of(
          "raise-fence",
          """
          if redis.call('GET', KEYS[1]) ~= ARGV[1] then return 0 end
          if (tonumber(redis.call('HGET', KEYS[2], 'fence')) or 0) < tonumber(ARGV[2]) then
            redis.call('HSET', KEYS[2], 'fence', ARGV[2])
          end
          if (tonumber(redis.call('HGET', KEYS[3], 'fence')) or 0) < tonumber(ARGV[2]) then
            redis.call('HSET', KEYS[3], 'fence', ARGV[2])
          end
          return 1
          """);

  /**
   * ARGV: paused by, reason ('' for none), 1 to stop the running holder else 0. Pauses the name
   * (its claims then take the {@code paused} branch of {@link #CLAIM}); a name never claimed gets
   * its meta hash with fence 0. A repeated pause keeps its start. Reply {paused since, server ms}.
   */
  public static final LuaScript PAUSE =
      of(
          "pause",
          NOW
              + """
          local since = tonumber(redis.call('HGET', KEYS[2], 'paused')) or now
          if redis.call('HEXISTS', KEYS[2], 'fence') == 0 then
            redis.call('HSET', KEYS[2], 'fence', 0, 'lease_until', now)
          end
          redis.call('HSET', KEYS[2], 'paused', since, 'paused_by', ARGV[1], 'paused_reason', ARGV[2], 'pause_stop', ARGV[3])
          return {since, now}
          """);

  /**
   * ARGV: 1 to catch up else 0. Ends the pause; with catch-up, when the watermark is the firing a
   * paused claim recorded last, lowers it by one millisecond so that this firing alone can be
   * claimed once more. Reply 1 when the name was paused, else 0.
   */
  public static final LuaScript RESUME =
      of(
          "resume",
          """
          if not redis.call('HGET', KEYS[2], 'paused') then return 0 end
          local m = redis.call('HMGET', KEYS[2], 'last_fire', 'paused_fire')
          redis.call('HDEL', KEYS[2], 'paused', 'paused_by', 'paused_reason', 'pause_stop')
          if ARGV[1] == '1' and m[1] and m[1] == m[2] then
            redis.call('HSET', KEYS[2], 'last_fire', tonumber(m[1]) - 1)
          end
          return 1
          """);

  /**
   * Forgets a name's record: deletes the meta hash only when the lease key is absent (no live
   * lease, on the server's clock by {@code PX}) and the name is not paused. The high-water hash
   * stays, so fence and watermark go on from it; with ARGV[1] {@code 1} (a self-check scratch name,
   * which nothing is fenced by) it goes too. Returns 1 when a meta hash was deleted.
   */
  public static final LuaScript FORGET =
      of(
          "forget",
          """
          if redis.call('EXISTS', KEYS[1]) == 1 then return 0 end
          if redis.call('HGET', KEYS[2], 'paused') then return 0 end
          local gone = redis.call('DEL', KEYS[2])
          if ARGV[1] == '1' then redis.call('DEL', KEYS[3]) end
          return gone
          """);

  /**
   * No ARGV; reads one name consistently: {} when never leased, else {server ms, PTTL of the lease,
   * fence, last_fire, holder, lease_until, paused since, paused by, reason, pause_stop} with '' for
   * absent fields.
   */
  public static final LuaScript INSPECT =
      of(
          "inspect",
          NOW
              + """
          local m = redis.call('HMGET', KEYS[2], 'fence', 'last_fire', 'holder', 'lease_until',
            'paused', 'paused_by', 'paused_reason', 'pause_stop')
          if not m[1] then return {} end
          return {now, redis.call('PTTL', KEYS[1]), m[1], m[2] or '', m[3] or '', m[4] or '',
            m[5] or '', m[6] or '', m[7] or '', m[8] or ''}
          """);

  /** A script of another class of this package (the journal's, {@link RedisJournal}). */
  static LuaScript script(String name, String source) {
    return of(name, source);
  }

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
