package dev.leasehold.store.etcd;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.leasehold.core.lease.NodeCodec;
import dev.leasehold.core.lease.NodeRecord;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;

/**
 * Node records on etcd: {@code <prefix>node/<node id in hex>}, holding {@link NodeCodec}'s line and
 * attached to an etcd lease of {@link NodeRecord#keepFor} (rounded up to whole seconds), so etcd
 * deletes the key on its own. Each publication grants a new etcd lease and puts the key on it in
 * one request; the lease of the record it replaced is revoked in the background (the previous value
 * comes back with the put).
 */
final class EtcdNodes {
  private final EtcdClient client;
  private final String prefix;

  EtcdNodes(EtcdClient client, String keyPrefix) {
    this.client = client;
    this.prefix = keyPrefix + "node/";
  }

  private String key(String nodeId) {
    return prefix
        + java.util.HexFormat.of()
            .formatHex(nodeId.getBytes(java.nio.charset.StandardCharsets.UTF_8));
  }

  void publish(NodeRecord record, Duration ttl) {
    NodeRecord n = record.publishedFor(ttl);
    long seconds = Math.max(1, (NodeRecord.keepFor(ttl).toMillis() + 999) / 1000);
    long id = client.grant(seconds);
    ObjectNode put =
        EtcdClient.object()
            .put("key", EtcdKeys.b64(key(n.nodeId())))
            .put("value", EtcdKeys.b64(NodeCodec.encode(n)))
            .put("lease", Long.toString(id))
            .put("prev_kv", true);
    JsonNode answer = client.call("/v3/kv/put", put);
    long previous = answer.path("prev_kv").path("lease").asLong(0);
    if (previous != 0 && previous != id) {
      client.revokeLater(previous);
    }
  }

  List<NodeRecord> read() {
    JsonNode kvs = client.call("/v3/kv/range", EtcdKeys.prefixRange(prefix, prefix)).path("kvs");
    Instant now = Instant.now();
    List<NodeRecord> out = new ArrayList<>();
    for (JsonNode kv : kvs) {
      NodeRecord r = NodeCodec.decode(EtcdKeys.text(kv.get("value")));
      if (r != null && now.isBefore(r.keptUntil())) {
        out.add(r);
      }
    }
    out.sort(Comparator.comparing(NodeRecord::nodeId));
    return out;
  }
}
