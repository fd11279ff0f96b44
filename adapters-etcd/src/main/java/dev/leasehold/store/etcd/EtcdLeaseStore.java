package dev.leasehold.store.etcd;

import static dev.leasehold.store.etcd.EtcdKeys.absent;
import static dev.leasehold.store.etcd.EtcdKeys.array;
import static dev.leasehold.store.etcd.EtcdKeys.kvs;
import static dev.leasehold.store.etcd.EtcdKeys.nested;
import static dev.leasehold.store.etcd.EtcdKeys.put;
import static dev.leasehold.store.etcd.EtcdKeys.range;
import static dev.leasehold.store.etcd.EtcdKeys.rangePrefix;
import static dev.leasehold.store.etcd.EtcdKeys.text;
import static dev.leasehold.store.etcd.EtcdKeys.txn;
import static dev.leasehold.store.etcd.EtcdKeys.valueLess;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.leasehold.core.lease.ClaimResult;
import dev.leasehold.core.lease.DeletedRecords;
import dev.leasehold.core.lease.Forgetting;
import dev.leasehold.core.lease.Lease;
import dev.leasehold.core.lease.LeaseArguments;
import dev.leasehold.core.lease.LeaseState;
import dev.leasehold.core.lease.LeaseStore;
import dev.leasehold.core.lease.LeaseStoreException;
import dev.leasehold.core.lease.NodeRecords;
import dev.leasehold.core.lease.Pause;
import dev.leasehold.core.lease.Pauses;
import dev.leasehold.core.store.StoreSelfCheck;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Leases on etcd. The lease key is attached to an etcd lease, so it is deleted by the cluster's
 * leader when the TTL runs out: expiry is decided on the leader's clock and survives the loss of a
 * minority of members, like every write here.
 *
 * <p><b>Claim</b> is one transaction (after granting the etcd lease it will be attached to): if the
 * lease key does not exist <em>and</em> the firing is new (the watermark is absent or older, and
 * without a watermark the high-water key is absent or older: {@link #firingTxn}), it puts the lease
 * key (attached), the new watermark, the high-water key and the fence key. A watermark key deleted
 * by hand is thus restored from the high-water key, with a warning, and never lets a firing run
 * twice. The fence is the revision of that transaction: etcd revisions rise strictly across the
 * whole cluster and are never reused, whatever happens to members, leaders or deleted keys. A
 * refused claim revokes the etcd lease it granted (not waiting for it); when the call fails that
 * lease is left to expire on its own, since the transaction may have been applied (the claim is
 * then ambiguous, which the caller treats as not acquired, and the key goes away with the lease).
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
final class EtcdLeaseStore implements LeaseStore, Pauses, NodeRecords, Forgetting {
  private static final Logger log = LoggerFactory.getLogger(EtcdLeaseStore.class);
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
  public ClaimResult tryClaim(String name, Instant firing, String holder, Duration ttl) {
    LeaseArguments.name(name);
    Instant at = LeaseArguments.firing(firing);
    LeaseArguments.holder(holder);
    long seconds = serverSeconds(ttl);
    long leaseId = client.grant(seconds);
    String token = LeaseArguments.newToken();
    String wm = EtcdKeys.encodeFiring(at);
    FiringTxn txn =
        firingTxn(
            name,
            wm,
            array(absent(keys.lease(name)), absent(keys.pause(name))),
            array(
                put(keys.lease(name), token + " " + holder, leaseId),
                put(keys.watermark(name), wm, 0),
                put(keys.highWater(name), wm, 0),
                put(keys.fence(name), holder, 0)),
            array(range(keys.lease(name)), range(keys.pause(name))));
    if (txn.applied()) {
      Lease lease = newLease(name, holder, token, txn.answer(), ttl);
      txn.warnIfRestored(name, lease.fence());
      return ClaimResult.won(lease);
    }
    client.revokeLater(leaseId);
    Instant last = txn.lastFiring();
    if (last != null && !last.isBefore(at)) {
      return ClaimResult.alreadyRun(last);
    }
    if (!kvs(txn.reads(), 1).path(0).isMissingNode()) {
      return recordPaused(name, at, wm);
    }
    JsonNode lease = kvs(txn.reads(), 0).path(0);
    return ClaimResult.held(lease.isMissingNode() ? null : holderOf(lease), last);
  }

  /**
   * A claim of a paused name: one transaction that, while the pause key exists and the firing is
   * new (as in the claim), moves the watermark, the high-water key and the paused-fire key to the
   * firing and attaches no lease. Its {@code succeeded} tells the one caller that recorded it.
   */
  private ClaimResult recordPaused(String name, Instant at, String wm) {
    FiringTxn txn =
        firingTxn(
            name,
            wm,
            array(EtcdKeys.present(keys.pause(name))),
            array(
                put(keys.watermark(name), wm, 0),
                put(keys.highWater(name), wm, 0),
                put(keys.pausedFire(name), wm, 0)),
            array());
    if (txn.applied()) {
      return ClaimResult.paused(at);
    }
    Instant last = txn.lastFiring();
    return last != null && !last.isBefore(at)
        ? ClaimResult.alreadyRun(last)
        : ClaimResult.held(null, last); // resumed meanwhile: a hint to try again
  }

  /**
   * One transaction that applies {@code writes} when the {@code guards} hold and the firing {@code
   * wm} is new: the watermark key is absent or {@code LESS} than it and, when the watermark key is
   * absent, the high-water key is absent or {@code LESS} too. So a watermark key deleted by hand
   * sends nothing back: the high-water key, written with every watermark and never lowered, stands
   * in for it. etcd compares are a conjunction and a value compare on a missing key is false, so
   * the three cases nest in failure branches (first nothing of the name's firings exists, then the
   * watermark, then the high-water key alone); the innermost failure reads the watermark, the
   * high-water key and {@code reads}, which gives the reason of a refusal in the same round trip.
   * Only one branch applies, so a nested branch may put the same keys.
   */
  private FiringTxn firingTxn(
      String name, String wm, ArrayNode guards, ArrayNode writes, ArrayNode reads) {
    ArrayNode refused = array(range(keys.watermark(name)), range(keys.highWater(name)));
    refused.addAll(reads);
    ArrayNode restoring = array(range(keys.highWater(name)));
    restoring.addAll(writes.deepCopy());
    ObjectNode fromHighWater =
        txn(
            with(guards, absent(keys.watermark(name)), valueLess(keys.highWater(name), wm)),
            restoring,
            refused);
    ObjectNode fromWatermark =
        txn(
            with(guards, valueLess(keys.watermark(name), wm)),
            writes.deepCopy(),
            array(nested(fromHighWater)));
    ObjectNode fresh =
        txn(
            with(guards, absent(keys.watermark(name)), absent(keys.highWater(name))),
            writes,
            array(nested(fromWatermark)));
    return new FiringTxn(client.call("/v3/kv/txn", fresh));
  }

  private static ArrayNode with(ArrayNode guards, ObjectNode... more) {
    ArrayNode all = guards.deepCopy();
    for (ObjectNode compare : more) {
      all.add(compare);
    }
    return all;
  }

  /** The answer of a {@link #firingTxn}. */
  private final class FiringTxn {
    private final JsonNode answer;
    private final JsonNode fromWatermark;
    private final JsonNode fromHighWater;

    FiringTxn(JsonNode answer) {
      this.answer = answer;
      this.fromWatermark = answer.path("responses").path(0).path("response_txn");
      this.fromHighWater = fromWatermark.path("responses").path(0).path("response_txn");
    }

    JsonNode answer() {
      return answer;
    }

    boolean applied() {
      return answer.path("succeeded").asBoolean()
          || fromWatermark.path("succeeded").asBoolean()
          || restored();
    }

    /** Applied because the high-water key stood in for a missing watermark key. */
    boolean restored() {
      return fromHighWater.path("succeeded").asBoolean();
    }

    /** The responses of a refusal: watermark, high-water key, then the reads asked for. */
    JsonNode reads() {
      JsonNode responses = fromHighWater.path("responses");
      ArrayNode asked = EtcdClient.JSON.createArrayNode();
      for (int i = 2; i < responses.size(); i++) {
        asked.add(responses.get(i));
      }
      return asked;
    }

    /** The firing a refusal judged by: the watermark, or the high-water mark without one. */
    Instant lastFiring() {
      JsonNode responses = fromHighWater.path("responses");
      JsonNode watermark = kvs(responses, 0).path(0);
      return EtcdKeys.firingOf(watermark.isMissingNode() ? kvs(responses, 1).path(0) : watermark);
    }

    void warnIfRestored(String name, long fence) {
      if (restored()) {
        JsonNode highWater = kvs(fromHighWater.path("responses"), 0).path(0);
        log.warn(
            DeletedRecords.restored(
                name,
                keys.watermark(name)
                    + " was missing; watermark "
                    + EtcdKeys.firingOf(highWater)
                    + " taken from "
                    + keys.highWater(name),
                highWater.path("mod_revision").asLong(),
                fence));
      }
    }
  }

  /**
   * Puts the pause key (JSON: since, by, reason, stop), by a transaction that creates it when
   * absent and otherwise replaces the value it read, keeping {@code since}. {@code since} is this
   * client's clock: etcd lends none.
   */
  @Override
  public Pause pause(String name, String by, String reason, boolean stopRunning) {
    LeaseArguments.name(name);
    Pause.check(by, reason);
    while (true) {
      JsonNode current = read(keys.pause(name)).get(0);
      Pause old = current.isMissingNode() ? null : pauseOf(current);
      Pause pause =
          new Pause(
              old == null ? clock.instant().truncatedTo(ChronoUnit.MILLIS) : old.since(),
              by,
              reason,
              stopRunning);
      ObjectNode guard =
          current.isMissingNode()
              ? absent(keys.pause(name))
              : EtcdKeys.valueIs(keys.pause(name), text(current.get("value")));
      ObjectNode request =
          txn(array(guard), array(put(keys.pause(name), encode(pause), 0)), array());
      if (client.call("/v3/kv/txn", request).path("succeeded").asBoolean()) {
        return pause;
      }
    }
  }

  /**
   * Deletes the pause key by a transaction that compares what it read (the pause, and the watermark
   * with catch-up); with catch-up, when the watermark is the paused-fire key's firing, the same
   * transaction lowers it by a millisecond.
   */
  @Override
  public boolean resume(String name, boolean catchUp) {
    LeaseArguments.name(name);
    while (true) {
      List<JsonNode> read = read(keys.pause(name), keys.watermark(name), keys.pausedFire(name));
      JsonNode pause = read.get(0);
      if (pause.isMissingNode()) {
        return false;
      }
      JsonNode watermark = read.get(1);
      JsonNode pausedFire = read.get(2);
      String wm = watermark.isMissingNode() ? null : text(watermark.get("value"));
      boolean rollBack =
          catchUp
              && wm != null
              && !pausedFire.isMissingNode()
              && wm.equals(text(pausedFire.get("value")));
      ArrayNode writes = array(EtcdKeys.deleteReturningPrevious(keys.pause(name)));
      if (rollBack) {
        Instant back = EtcdKeys.decodeFiring(wm).minusMillis(1);
        writes.add(put(keys.watermark(name), EtcdKeys.encodeFiring(back), 0));
      }
      ObjectNode request =
          txn(
              array(
                  EtcdKeys.valueIs(keys.pause(name), text(pause.get("value"))),
                  wm == null
                      ? absent(keys.watermark(name))
                      : EtcdKeys.valueIs(keys.watermark(name), wm)),
              writes,
              array());
      if (client.call("/v3/kv/txn", request).path("succeeded").asBoolean()) {
        return true;
      }
    }
  }

  private static String encode(Pause pause) {
    ObjectNode json =
        EtcdClient.object()
            .put("since", pause.since().toEpochMilli())
            .put("by", pause.by())
            .put("stop", pause.stopRunning());
    if (pause.reason() != null) {
      json.put("reason", pause.reason());
    }
    return json.toString();
  }

  private static Pause pauseOf(JsonNode kv) {
    try {
      JsonNode json = EtcdClient.JSON.readTree(text(kv.get("value")));
      return new Pause(
          Instant.ofEpochMilli(json.path("since").asLong()),
          json.path("by").asText(),
          json.hasNonNull("reason") ? json.get("reason").asText() : null,
          json.path("stop").asBoolean());
    } catch (java.io.IOException e) {
      throw new LeaseStoreException("etcd: a pause key holds no pause: " + e.getMessage(), e);
    }
  }

  @Override
  public Optional<Lease> acquire(String name, String holder, Duration ttl) {
    LeaseArguments.name(name);
    LeaseArguments.holder(holder);
    long leaseId = client.grant(serverSeconds(ttl));
    String token = LeaseArguments.newToken();
    ObjectNode request =
        txn(
            array(absent(keys.lease(name))),
            array(
                put(keys.lease(name), token + " " + holder, leaseId),
                put(keys.fence(name), holder, 0)),
            array());
    JsonNode answer = client.call("/v3/kv/txn", request);
    if (answer.path("succeeded").asBoolean()) {
      return Optional.of(newLease(name, holder, token, answer, ttl));
    }
    client.revokeLater(leaseId);
    return Optional.empty();
  }

  @Override
  public boolean renew(Lease lease, Duration ttl) {
    LeaseArguments.lease(lease);
    long seconds = serverSeconds(ttl);
    List<JsonNode> read = read(keys.lease(lease.name()), keys.pause(lease.name()));
    JsonNode kv = read.get(0);
    if (kv.isMissingNode() || !text(kv.get("value")).equals(valueOf(lease))) {
      return false;
    }
    JsonNode pause = read.get(1);
    if (!pause.isMissingNode() && pauseOf(pause).stopRunning()) {
      return false; // paused with stop: the holder stops as on a lost lease
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
    long newLeaseId = client.grant(seconds);
    ObjectNode request =
        txn(
            array(holds(lease), EtcdKeys.leaseIs(keys.lease(lease.name()), oldLeaseId)),
            array(put(keys.lease(lease.name()), valueOf(lease), newLeaseId)),
            array());
    if (client.call("/v3/kv/txn", request).path("succeeded").asBoolean()) {
      client.revokeLater(oldLeaseId);
      return true;
    }
    client.revokeLater(newLeaseId);
    return false;
  }

  @Override
  public boolean release(Lease lease) {
    LeaseArguments.lease(lease);
    ObjectNode request =
        txn(
            array(holds(lease)),
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
      client.revokeLater(leaseId);
    }
    return true;
  }

  @Override
  public Optional<LeaseState> inspect(String name) {
    LeaseArguments.name(name);
    List<JsonNode> read =
        read(keys.lease(name), keys.watermark(name), keys.fence(name), keys.pause(name));
    JsonNode lease = read.get(0);
    JsonNode watermark = read.get(1);
    JsonNode fence = read.get(2);
    JsonNode pause = read.get(3);
    if (lease.isMissingNode()
        && watermark.isMissingNode()
        && fence.isMissingNode()
        && pause.isMissingNode()) {
      return Optional.empty();
    }
    return Optional.of(state(name, lease, watermark, fence, pause));
  }

  /**
   * One transaction: when the lease key and the pause key are absent, the watermark, fence and
   * paused-firing keys are deleted. The fence is a revision of the store, which never goes back, so
   * the next claim's fence is above every fence given before without a mark kept. The high-water
   * key stays, so a firing already claimed stays spent (for a self-check scratch name, which
   * nothing is fenced by and whose check claims the same firings again, it goes too).
   */
  @Override
  public boolean forget(String name) {
    LeaseArguments.name(name);
    ArrayNode deletes =
        array(
            EtcdKeys.deleteReturningPrevious(keys.watermark(name)),
            EtcdKeys.deleteReturningPrevious(keys.fence(name)),
            EtcdKeys.deleteReturningPrevious(keys.pausedFire(name)));
    int record = deletes.size();
    if (StoreSelfCheck.isScratch(name)) {
      deletes.add(EtcdKeys.deleteReturningPrevious(keys.highWater(name)));
    }
    ObjectNode request =
        txn(array(absent(keys.lease(name)), absent(keys.pause(name))), deletes, array());
    JsonNode answer = client.call("/v3/kv/txn", request);
    if (!answer.path("succeeded").asBoolean()) {
      return false;
    }
    long deleted = 0;
    for (int i = 0; i < record; i++) {
      JsonNode response = answer.path("responses").path(i);
      deleted += response.path("response_delete_range").path("deleted").asLong(0);
    }
    return deleted > 0;
  }

  /** A key on an etcd lease of its own ({@link EtcdNodes}). */
  @Override
  public void publishNode(dev.leasehold.core.lease.NodeRecord node, Duration ttl) {
    new EtcdNodes(client, keys.toString()).publish(node, ttl);
  }

  @Override
  public List<dev.leasehold.core.lease.NodeRecord> nodes() {
    return new EtcdNodes(client, keys.toString()).read();
  }

  @Override
  public List<LeaseState> list() {
    ObjectNode request =
        txn(
            array(),
            array(
                rangePrefix(keys.leases()),
                rangePrefix(keys.watermarks()),
                rangePrefix(keys.fences()),
                rangePrefix(keys.pauses())),
            array());
    JsonNode responses = client.call("/v3/kv/txn", request).path("responses");
    Map<String, JsonNode[]> byName = new TreeMap<>();
    for (int i = 0; i < 4; i++) {
      for (JsonNode kv : kvs(responses, i)) {
        String name = EtcdKeys.nameOf(text(kv.get("key")));
        byName.computeIfAbsent(name, n -> new JsonNode[4])[i] = kv;
      }
    }
    List<LeaseState> states = new ArrayList<>(byName.size());
    byName.forEach(
        (name, kv) ->
            states.add(
                state(
                    name,
                    missingIfNull(kv[0]),
                    missingIfNull(kv[1]),
                    missingIfNull(kv[2]),
                    missingIfNull(kv[3]))));
    return states;
  }

  private LeaseState state(
      String name, JsonNode lease, JsonNode watermark, JsonNode fence, JsonNode pause) {
    boolean held = !lease.isMissingNode();
    Instant until = held ? expiryOf(lease.path("lease").asLong()) : null;
    Instant last =
        watermark.isMissingNode() ? null : EtcdKeys.decodeFiring(text(watermark.get("value")));
    long fenceValue = fence.isMissingNode() ? 0 : fence.path("mod_revision").asLong();
    return new LeaseState(
        name,
        held ? holderOf(lease) : null,
        until,
        last,
        fenceValue,
        held,
        pause.isMissingNode() ? null : pauseOf(pause));
  }

  /** When the etcd lease ends, on this client's clock (etcd only says how many seconds remain). */
  private Instant expiryOf(long leaseId) {
    JsonNode ttl =
        client.call("/v3/lease/timetolive", EtcdClient.object().put("ID", Long.toString(leaseId)));
    long remaining = Math.max(0, ttl.path("TTL").asLong(0));
    return clock.instant().plusSeconds(remaining);
  }

  /**
   * One consistent read (a transaction of ranges): the key-value of each key, a missing node for a
   * key that does not exist.
   */
  private List<JsonNode> read(String... keysToRead) {
    ArrayNode ranges = array();
    for (String key : keysToRead) {
      ranges.add(range(key));
    }
    JsonNode responses = client.call("/v3/kv/txn", txn(array(), ranges, array())).path("responses");
    List<JsonNode> read = new ArrayList<>(keysToRead.length);
    for (int i = 0; i < keysToRead.length; i++) {
      read.add(kvs(responses, i).path(0));
    }
    return read;
  }

  /** The compare that the lease key still holds {@code lease}'s token (renewals, release). */
  private ObjectNode holds(Lease lease) {
    return EtcdKeys.valueIs(keys.lease(lease.name()), valueOf(lease));
  }

  private Lease newLease(String name, String holder, String token, JsonNode answer, Duration ttl) {
    long fence = answer.path("header").path("revision").asLong();
    return new Lease(name, holder, token, fence, ttl, clock.instant().plus(ttl));
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
