package dev.leasehold.store.etcd;

import static dev.leasehold.store.etcd.EtcdKeys.absent;
import static dev.leasehold.store.etcd.EtcdKeys.array;
import static dev.leasehold.store.etcd.EtcdKeys.kvs;
import static dev.leasehold.store.etcd.EtcdKeys.put;
import static dev.leasehold.store.etcd.EtcdKeys.range;
import static dev.leasehold.store.etcd.EtcdKeys.rangePrefix;
import static dev.leasehold.store.etcd.EtcdKeys.text;
import static dev.leasehold.store.etcd.EtcdKeys.txn;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.leasehold.core.lease.ClaimResult;
import dev.leasehold.core.lease.Lease;
import dev.leasehold.core.lease.LeaseArguments;
import dev.leasehold.core.lease.LeaseState;
import dev.leasehold.core.lease.LeaseStore;
import dev.leasehold.core.lease.LeaseStoreException;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;

/**
 * Leases on etcd. The lease key is attached to an etcd lease, so it is deleted by the cluster's
 * leader when the TTL runs out: expiry is decided on the leader's clock and survives the loss of a
 * minority of members, like every write here.
 *
 * <p><b>Claim</b> is one transaction (after granting the etcd lease it will be attached to): if the
 * lease key does not exist <em>and</em> the watermark is absent or older than the firing, it puts
 * the lease key (attached), the new watermark and the fence key. etcd compares are a conjunction
 * and a value compare on a missing key is false, so the "absent or older" is a nested transaction
 * in the failure branch; its own failure branch reads the lease and watermark keys, which gives the
 * reason of a refusal in the same round trip. The fence is the revision of that transaction: etcd
 * revisions rise strictly across the whole cluster and are never reused, whatever happens to
 * members or leaders. A refused claim revokes the etcd lease it granted (not waiting for it).
 *
 * <p><b>TTL granularity</b>: etcd leases have whole seconds and a minimum (1.5 election timeouts, 2
 * s with etcd's defaults). A TTL is rounded up to whole seconds and etcd may raise it further; the
 * holder keeps counting the TTL it asked for, which is never longer than the server's, so it
 * presumes its lease lost before the server frees it (safety); a crashed holder blocks others for
 * the server's TTL (at most a second or the server minimum longer than asked).
 *
 * <p><b>Renew</b> reads the lease key (linearizable) and, when it still holds the token, keeps the
 * etcd lease alive; an etcd lease that expired answers TTL 0 and the renewal is refused. A renewal
 * that asks for a longer TTL than the etcd lease has moves the key onto a new etcd lease in a
 * transaction that compares the token and the old lease. <b>Release</b> deletes the lease key in a
 * transaction that compares the token, then revokes the etcd lease.
 */
final class EtcdLeaseStore implements LeaseStore {
  private final EtcdClient client;
  private final EtcdKeys keys;
  private final Clock clock;

  EtcdLeaseStore(EtcdClient client, EtcdKeys keys, Clock clock) {
    this.client = client;
    this.keys = keys;
    this.clock = clock;
  }

  /** The etcd TTL for a lease TTL: whole seconds, rounded up (never shorter than asked). */
  static long serverSeconds(Duration ttl) {
    long millis = LeaseArguments.ttlMillis(ttl);
    return Math.max(1, (millis + 999) / 1000);
  }

  @Override
  public Optional<Lease> claim(String name, Instant firing, String holder, Duration ttl) {
    return tryClaim(name, firing, holder, ttl).leaseIfWon();
  }

  @Override
  public ClaimResult tryClaim(String name, Instant firing, String holder, Duration ttl) {
    LeaseArguments.name(name);
    Instant at = LeaseArguments.firing(firing);
    LeaseArguments.holder(holder);
    long seconds = serverSeconds(ttl);
    long leaseId = grant(seconds);
    String token = LeaseArguments.newToken();
    String wm = EtcdKeys.encodeFiring(at);
    ArrayNode writes =
        array(
            put(keys.lease(name), token + " " + holder, leaseId),
            put(keys.watermark(name), wm, 0),
            put(keys.fence(name), holder, 0));
    ObjectNode inner =
        txn(
            array(absent(keys.lease(name)), EtcdKeys.valueLess(keys.watermark(name), wm)),
            writes.deepCopy(),
            array(range(keys.lease(name)), range(keys.watermark(name))));
    ObjectNode outer =
        txn(
            array(absent(keys.lease(name)), absent(keys.watermark(name))),
            writes,
            array(EtcdClient.object().set("request_txn", inner)));
    JsonNode answer = txnAnswer(outer);
    JsonNode nested = answer.path("responses").path(0).path("response_txn");
    if (answer.path("succeeded").asBoolean() || nested.path("succeeded").asBoolean()) {
      return ClaimResult.won(newLease(name, holder, token, answer, ttl));
    }
    revokeLater(leaseId);
    JsonNode responses = nested.path("responses");
    JsonNode watermark = kvs(responses, 1).path(0);
    Instant last =
        watermark.isMissingNode() ? null : EtcdKeys.decodeFiring(text(watermark.get("value")));
    if (last != null && !last.isBefore(at)) {
      return ClaimResult.alreadyRun(last);
    }
    JsonNode lease = kvs(responses, 0).path(0);
    return ClaimResult.held(lease.isMissingNode() ? null : holderOf(lease), last);
  }

  @Override
  public Optional<Lease> acquire(String name, String holder, Duration ttl) {
    LeaseArguments.name(name);
    LeaseArguments.holder(holder);
    long leaseId = grant(serverSeconds(ttl));
    String token = LeaseArguments.newToken();
    ObjectNode request =
        txn(
            array(absent(keys.lease(name))),
            array(
                put(keys.lease(name), token + " " + holder, leaseId),
                put(keys.fence(name), holder, 0)),
            array());
    JsonNode answer = txnAnswer(request);
    if (answer.path("succeeded").asBoolean()) {
      return Optional.of(newLease(name, holder, token, answer, ttl));
    }
    revokeLater(leaseId);
    return Optional.empty();
  }

  @Override
  public boolean renew(Lease lease, Duration ttl) {
    LeaseArguments.lease(lease);
    long seconds = serverSeconds(ttl);
    JsonNode kv =
        client.call("/v3/kv/range", rangeOf(keys.lease(lease.name()))).path("kvs").path(0);
    if (kv.isMissingNode() || !text(kv.get("value")).equals(valueOf(lease))) {
      return false;
    }
    long leaseId = kv.path("lease").asLong();
    JsonNode alive =
        client.call("/v3/lease/keepalive", EtcdClient.object().put("ID", Long.toString(leaseId)));
    long granted = alive.path("TTL").asLong(0);
    if (granted <= 0) {
      return false; // the etcd lease expired: the key is gone or about to be, never revived
    }
    return granted >= seconds || moveToLongerLease(lease, leaseId, seconds);
  }

  private boolean moveToLongerLease(Lease lease, long oldLeaseId, long seconds) {
    long newLeaseId = grant(seconds);
    ObjectNode compareLease =
        EtcdClient.object()
            .put("key", EtcdKeys.b64(keys.lease(lease.name())))
            .put("target", "LEASE")
            .put("result", "EQUAL")
            .put("lease", Long.toString(oldLeaseId));
    ObjectNode request =
        txn(
            array(EtcdKeys.valueIs(keys.lease(lease.name()), valueOf(lease)), compareLease),
            array(put(keys.lease(lease.name()), valueOf(lease), newLeaseId)),
            array());
    if (txnAnswer(request).path("succeeded").asBoolean()) {
      revokeLater(oldLeaseId);
      return true;
    }
    revokeLater(newLeaseId);
    return false;
  }

  @Override
  public boolean release(Lease lease) {
    LeaseArguments.lease(lease);
    ObjectNode request =
        txn(
            array(EtcdKeys.valueIs(keys.lease(lease.name()), valueOf(lease))),
            array(EtcdKeys.deleteReturningPrevious(keys.lease(lease.name()))),
            array());
    JsonNode answer = client.call("/v3/kv/txn", request);
    if (!answer.path("succeeded").asBoolean()) {
      return false;
    }
    JsonNode previous =
        answer.path("responses").path(0).path("response_delete_range").path("prev_kvs").path(0);
    long leaseId = previous.path("lease").asLong(0);
    if (leaseId != 0) {
      revokeLater(leaseId);
    }
    return true;
  }

  @Override
  public Optional<LeaseState> inspect(String name) {
    LeaseArguments.name(name);
    ObjectNode request =
        txn(
            array(),
            array(range(keys.lease(name)), range(keys.watermark(name)), range(keys.fence(name))),
            array());
    JsonNode responses = client.call("/v3/kv/txn", request).path("responses");
    JsonNode lease = kvs(responses, 0).path(0);
    JsonNode watermark = kvs(responses, 1).path(0);
    JsonNode fence = kvs(responses, 2).path(0);
    if (lease.isMissingNode() && watermark.isMissingNode() && fence.isMissingNode()) {
      return Optional.empty();
    }
    return Optional.of(state(name, lease, watermark, fence));
  }

  @Override
  public List<LeaseState> list() {
    ObjectNode request =
        txn(
            array(),
            array(
                rangePrefix(keys.leases()),
                rangePrefix(keys.watermarks()),
                rangePrefix(keys.fences())),
            array());
    JsonNode responses = client.call("/v3/kv/txn", request).path("responses");
    Map<String, JsonNode[]> byName = new TreeMap<>();
    for (int i = 0; i < 3; i++) {
      for (JsonNode kv : kvs(responses, i)) {
        String name = EtcdKeys.nameOf(text(kv.get("key")));
        byName.computeIfAbsent(name, n -> new JsonNode[3])[i] = kv;
      }
    }
    List<LeaseState> states = new ArrayList<>(byName.size());
    byName.forEach(
        (name, kv) ->
            states.add(
                state(name, missingIfNull(kv[0]), missingIfNull(kv[1]), missingIfNull(kv[2]))));
    return states;
  }

  private LeaseState state(String name, JsonNode lease, JsonNode watermark, JsonNode fence) {
    boolean held = !lease.isMissingNode();
    Instant until = held ? expiryOf(lease.path("lease").asLong()) : null;
    Instant last =
        watermark.isMissingNode() ? null : EtcdKeys.decodeFiring(text(watermark.get("value")));
    long fenceValue = fence.isMissingNode() ? 0 : fence.path("mod_revision").asLong();
    return new LeaseState(name, held ? holderOf(lease) : null, until, last, fenceValue, held);
  }

  /** When the etcd lease ends, on this client's clock (etcd only says how many seconds remain). */
  private Instant expiryOf(long leaseId) {
    JsonNode ttl =
        client.call("/v3/lease/timetolive", EtcdClient.object().put("ID", Long.toString(leaseId)));
    long remaining = Math.max(0, ttl.path("TTL").asLong(0));
    return clock.instant().plusSeconds(remaining);
  }

  private long grant(long seconds) {
    JsonNode granted = client.call("/v3/lease/grant", EtcdClient.object().put("TTL", seconds));
    long id = granted.path("ID").asLong(0);
    if (id == 0) {
      throw new LeaseStoreException("etcd granted no lease: " + granted.path("error").asText(""));
    }
    return id;
  }

  /**
   * Runs a transaction that attaches an etcd lease. When the call fails that lease is left to
   * expire on its own: the transaction may have been applied (the claim is then ambiguous, which
   * the caller treats as not acquired, and the key goes away with the lease).
   */
  private JsonNode txnAnswer(ObjectNode request) {
    return client.call("/v3/kv/txn", request);
  }

  private void revokeLater(long leaseId) {
    client.inBackground("/v3/lease/revoke", EtcdClient.object().put("ID", Long.toString(leaseId)));
  }

  private Lease newLease(String name, String holder, String token, JsonNode answer, Duration ttl) {
    long fence = answer.path("header").path("revision").asLong();
    return new Lease(name, holder, token, fence, ttl, clock.instant().plus(ttl));
  }

  private static ObjectNode rangeOf(String key) {
    return EtcdClient.object().put("key", EtcdKeys.b64(key));
  }

  private static String valueOf(Lease lease) {
    return lease.token() + " " + lease.holder();
  }

  private static String holderOf(JsonNode leaseKv) {
    String value = text(leaseKv.get("value"));
    int space = value.indexOf(' ');
    return space < 0 ? value : value.substring(space + 1);
  }

  private static JsonNode missingIfNull(JsonNode node) {
    return node == null ? com.fasterxml.jackson.databind.node.MissingNode.getInstance() : node;
  }

  @Override
  public void close() {
    client.close();
  }

  @Override
  public String toString() {
    return "etcd "
        + client.endpoints().stream().map(EtcdClient::redacted).toList()
        + " prefix "
        + keys;
  }
}
