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
    return EtcdClient.object()
        .put("key", b64(key))
        .put("target", "VERSION")
        .put("result", "EQUAL")
        .put("version", "0");
  }

  static ObjectNode valueIs(String key, String value) {
    return EtcdClient.object()
        .put("key", b64(key))
        .put("target", "VALUE")
        .put("result", "EQUAL")
        .put("value", b64(value));
  }

  static ObjectNode valueLess(String key, String value) {
    return EtcdClient.object()
        .put("key", b64(key))
        .put("target", "VALUE")
        .put("result", "LESS")
        .put("value", b64(value));
  }

  static ObjectNode put(String key, String value, long leaseId) {
    ObjectNode put = EtcdClient.object().put("key", b64(key)).put("value", b64(value));
    if (leaseId != 0) {
      put.put("lease", Long.toString(leaseId));
    }
    return EtcdClient.object().set("request_put", put);
  }

  static ObjectNode range(String key) {
    return EtcdClient.object().set("request_range", EtcdClient.object().put("key", b64(key)));
  }

  static ObjectNode rangePrefix(String prefix) {
    return EtcdClient.object()
        .set(
            "request_range",
            EtcdClient.object().put("key", b64(prefix)).put("range_end", rangeEnd(prefix)));
  }

  static ObjectNode deleteReturningPrevious(String key) {
    return EtcdClient.object()
        .set("request_delete_range", EtcdClient.object().put("key", b64(key)).put("prev_kv", true));
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

  @Override
  public String toString() {
    return prefix;
  }
}
