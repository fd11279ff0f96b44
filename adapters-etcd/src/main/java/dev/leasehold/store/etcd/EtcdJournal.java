package dev.leasehold.store.etcd;

import static dev.leasehold.store.etcd.EtcdKeys.absent;
import static dev.leasehold.store.etcd.EtcdKeys.array;
import static dev.leasehold.store.etcd.EtcdKeys.b64;
import static dev.leasehold.store.etcd.EtcdKeys.kvs;
import static dev.leasehold.store.etcd.EtcdKeys.put;
import static dev.leasehold.store.etcd.EtcdKeys.range;
import static dev.leasehold.store.etcd.EtcdKeys.txn;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.leasehold.core.lease.Journal;
import dev.leasehold.core.lease.JournalArguments;
import dev.leasehold.core.lease.JournalEntry;
import dev.leasehold.core.lease.LeaseStoreException;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;

/**
 * The journal on etcd: an entry is the key {@code <prefix>journal/<stream>/<id>} holding its body
 * (the id sorts by time first, {@link JournalArguments}); {@code recent} is one range of the
 * stream's keys sorted by key, descending, with a limit; {@code prune} one range delete from the
 * stream's first key up to the id floor. A key is {@code <prefix>journalkey/<key>}, written by one
 * transaction: if the key has no version, put the value, else read it.
 */
final class EtcdJournal implements Journal {
  private final EtcdClient client;
  private final String streams;
  private final String keys;

  EtcdJournal(EtcdClient client, String keyPrefix) {
    this.client = client;
    this.streams = keyPrefix + "journal/";
    this.keys = keyPrefix + "journalkey/";
  }

  private String stream(String stream) {
    return streams + JournalArguments.stream(stream) + "/";
  }

  @Override
  public JournalEntry append(String stream, Instant at, String body) {
    JournalEntry entry = JournalArguments.newEntry(stream, at, body);
    String prefix = stream(stream);
    client.call(
        "/v3/kv/put",
        EtcdClient.object().put("key", b64(prefix + entry.id())).put("value", b64(body)));
    return entry;
  }

  @Override
  public List<JournalEntry> recent(String stream, int limit) {
    String prefix = stream(stream);
    JournalArguments.limit(limit);
    ObjectNode range =
        EtcdKeys.prefixRange(prefix, prefix)
            .put("sort_order", "DESCEND")
            .put("sort_target", "KEY")
            .put("limit", limit);
    List<JournalEntry> out = new ArrayList<>();
    for (JsonNode kv : client.call("/v3/kv/range", range).path("kvs")) {
      String id = EtcdKeys.text(kv.get("key")).substring(prefix.length());
      out.add(JournalArguments.entry(stream, id, EtcdKeys.text(kv.get("value"))));
    }
    return List.copyOf(out);
  }

  @Override
  public int prune(String stream, Instant before) {
    String prefix = stream(stream);
    String floor = JournalArguments.idFloor(before);
    ObjectNode range =
        EtcdClient.object().put("key", b64(prefix)).put("range_end", b64(prefix + floor));
    return client.call("/v3/kv/deleterange", range).path("deleted").asInt(0);
  }

  @Override
  public String putIfAbsent(String key, String value) {
    String path = keys + JournalArguments.key(key);
    JournalArguments.value(value);
    JsonNode answer =
        client.call(
            "/v3/kv/txn", txn(array(absent(path)), array(put(path, value, 0)), array(range(path))));
    if (answer.path("succeeded").asBoolean()) {
      return value;
    }
    JsonNode kv = kvs(answer.path("responses"), 0).path(0);
    if (kv.isMissingNode()) {
      throw new LeaseStoreException(
          "etcd journal key " + key + ": refused as present, then not found");
    }
    return EtcdKeys.text(kv.get("value"));
  }
}
