package dev.leasehold.store.etcd;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.util.Base64;
import java.util.HexFormat;
import java.util.regex.Pattern;

/**
 * The keys of one key prefix, and the JSON pieces of the gateway's requests that use them.
 *
 * <ul>
 *   <li>{@code <prefix>lease/<name>}: exists only while the lease is held; attached to an etcd
 *       lease of the TTL (etcd deletes it when that expires); value {@code "<token> <holder>"}.
 *   <li>{@code <prefix>watermark/<name>}: the last firing claimed, as 16 hex digits of the epoch
 *       milliseconds with the sign bit flipped, so that etcd's byte-wise {@code LESS} compare
 *       orders firings as time (before the epoch too).
 *   <li>{@code <prefix>fence/<name>}: rewritten by every claim and acquisition; its {@code
 *       mod_revision} is the fence (the revision of the claiming transaction).
 *   <li>{@code <prefix>highwater/<name>}: the high-water mark, kept apart from the keys above so
 *       that deleting them by hand sends nothing back: the last firing claimed or recorded as
 *       paused (encoded as the watermark), written in the same transaction as the watermark and
 *       never lowered; its {@code mod_revision} is the fence of the last claim. A claim reads it
 *       when the watermark key is missing.
 *   <li>{@code <prefix>history/<job>/<time>-<random>}: execution records.
 * </ul>
 */
final class EtcdKeys {
  static final String DEFAULT_PREFIX = "leasehold/";
  private static final Pattern PREFIX = Pattern.compile("[A-Za-z0-9._:/-]{1,100}");
  private static final Base64.Encoder B64 = Base64.getEncoder();
  private static final Base64.Decoder B64D = Base64.getDecoder();

  private final String prefix;

  EtcdKeys(String prefix) {
    this.prefix = prefix == null ? DEFAULT_PREFIX : prefix;
  }

  static String problem(String prefix) {
    return PREFIX.matcher(prefix).matches()
        ? null
        : "expected 1-100 characters of A-Z a-z 0-9 . _ : / -, got " + prefix;
  }

  String lease(String name) {
    return prefix + "lease/" + name;
  }

  String watermark(String name) {
    return prefix + "watermark/" + name;
  }

  String fence(String name) {
    return prefix + "fence/" + name;
  }

  /** The high-water mark of {@code name}: the highest firing claimed, never lowered. */
  String highWater(String name) {
    return prefix + "highwater/" + name;
  }

  /** A job's pause: {@code {"since": ms, "by": ..., "reason": ..., "stop": bool}}. */
  String pause(String name) {
    return prefix + "pause/" + name;
  }

  /** The latest firing a claim recorded as paused. */
  String pausedFire(String name) {
    return prefix + "pausedfire/" + name;
  }

  String pauses() {
    return prefix + "pause/";
  }

  String leases() {
    return prefix + "lease/";
  }

  String watermarks() {
    return prefix + "watermark/";
  }

  String fences() {
    return prefix + "fence/";
  }

  String history() {
    return prefix + "history/";
  }

  String history(String job) {
    return prefix + "history/" + job + "/";
  }

  String ping() {
    return prefix + "ping";
  }

  /** The name at the end of a lease, watermark or fence key. */
  static String nameOf(String key) {
    return key.substring(key.lastIndexOf('/') + 1);
  }

  static String encodeFiring(Instant firing) {
    return HexFormat.of().toHexDigits(firing.toEpochMilli() ^ Long.MIN_VALUE);
  }

  static Instant decodeFiring(String encoded) {
    return Instant.ofEpochMilli(HexFormat.fromHexDigitsToLong(encoded) ^ Long.MIN_VALUE);
  }

  // --- JSON pieces of the gateway's protocol (bytes are base64, 64-bit numbers are strings) ---

  static String b64(String s) {
    return B64.encodeToString(s.getBytes(StandardCharsets.UTF_8));
  }

  static String text(JsonNode b64) {
    return b64 == null || b64.isNull()
        ? ""
        : new String(B64D.decode(b64.asText()), StandardCharsets.UTF_8);
  }

  /** The end of the range of every key starting with {@code prefix}. */
  static String rangeEnd(String prefix) {
    byte[] bytes = prefix.getBytes(StandardCharsets.UTF_8);
    bytes[bytes.length - 1]++;
    return B64.encodeToString(bytes);
  }

  static ObjectNode absent(String key) {
    return compare(key, "VERSION", "EQUAL", "version", "0");
  }

  static ObjectNode present(String key) {
    return compare(key, "VERSION", "GREATER", "version", "0");
  }

  static ObjectNode valueIs(String key, String value) {
    return compare(key, "VALUE", "EQUAL", "value", b64(value));
  }

  static ObjectNode valueLess(String key, String value) {
    return compare(key, "VALUE", "LESS", "value", b64(value));
  }

  /** The etcd lease {@code key} is attached to is {@code leaseId}. */
  static ObjectNode leaseIs(String key, long leaseId) {
    return compare(key, "LEASE", "EQUAL", "lease", Long.toString(leaseId));
  }

  private static ObjectNode compare(
      String key, String target, String result, String field, String operand) {
    return EtcdClient.object()
        .put("key", b64(key))
        .put("target", target)
        .put("result", result)
        .put(field, operand);
  }

  static ObjectNode put(String key, String value, long leaseId) {
    ObjectNode put = EtcdClient.object().put("key", b64(key)).put("value", b64(value));
    if (leaseId != 0) {
      put.put("lease", Long.toString(leaseId));
    }
    return EtcdClient.object().set("request_put", put);
  }

  /**
   * The body of a range (or range delete) of one key, for {@code /v3/kv/range} or {@link #range}.
   */
  static ObjectNode keyRange(String key) {
    return EtcdClient.object().put("key", b64(key));
  }

  /**
   * The body of a range (or range delete) of the keys from {@code from} up to every key starting
   * with {@code prefix}; {@code from} is {@code prefix} for all of them.
   */
  static ObjectNode prefixRange(String from, String prefix) {
    return EtcdClient.object().put("key", b64(from)).put("range_end", rangeEnd(prefix));
  }

  /** A range of one key, as an operation of a transaction. */
  static ObjectNode range(String key) {
    return EtcdClient.object().set("request_range", keyRange(key));
  }

  /** A range of every key starting with {@code prefix}, as an operation of a transaction. */
  static ObjectNode rangePrefix(String prefix) {
    return EtcdClient.object().set("request_range", prefixRange(prefix, prefix));
  }

  static ObjectNode deleteReturningPrevious(String key) {
    return EtcdClient.object().set("request_delete_range", keyRange(key).put("prev_kv", true));
  }

  /** A nested transaction, as an operation of a transaction. */
  static ObjectNode nested(ObjectNode txn) {
    return EtcdClient.object().set("request_txn", txn);
  }

  static ObjectNode txn(ArrayNode compare, ArrayNode success, ArrayNode failure) {
    ObjectNode txn = EtcdClient.object();
    txn.set("compare", compare);
    txn.set("success", success);
    txn.set("failure", failure);
    return txn;
  }

  static ArrayNode array(ObjectNode... items) {
    ArrayNode array = EtcdClient.JSON.createArrayNode();
    for (ObjectNode item : items) {
      array.add(item);
    }
    return array;
  }

  /** The key-values of the {@code i}-th range answer of a transaction's responses. */
  static JsonNode kvs(JsonNode responses, int i) {
    return responses.path(i).path("response_range").path("kvs");
  }

  /** The firing a watermark or high-water key holds, or null when {@code kv} is missing. */
  static Instant firingOf(JsonNode kv) {
    return kv.isMissingNode() ? null : decodeFiring(text(kv.get("value")));
  }

  @Override
  public String toString() {
    return prefix;
  }
}
