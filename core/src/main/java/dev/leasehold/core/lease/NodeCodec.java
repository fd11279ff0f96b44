package dev.leasehold.core.lease;

import java.net.URLDecoder;
import java.net.URLEncoder;
import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

/**
 * A {@link NodeRecord} (published, with its expiry) as one line of text, for stores that keep it as
 * a single value (Redis, etcd, ZooKeeper): {@code n1 <node> <version> <started ms> <last-seen ms>
 * <expires ms> <digest> <lease>...}, each field percent-encoded so that no field holds a space.
 */
public final class NodeCodec {
  private static final String TAG = "n1";

  private NodeCodec() {}

  public static String encode(NodeRecord node) {
    if (node.expiresAt() == null) {
      throw new IllegalArgumentException("a node record is encoded once published");
    }
    StringBuilder out = new StringBuilder(TAG);
    for (String field :
        List.of(
            node.nodeId(),
            node.version(),
            "" + node.startedAt().toEpochMilli(),
            "" + node.lastSeen().toEpochMilli(),
            "" + node.expiresAt().toEpochMilli(),
            node.jobDigest())) {
      out.append(' ').append(enc(field));
    }
    node.leases().forEach(l -> out.append(' ').append(enc(l)));
    return out.toString();
  }

  /** The record, or {@code null} when {@code text} is not one (another version, damaged). */
  public static NodeRecord decode(String text) {
    if (text == null) {
      return null;
    }
    String[] f = text.split(" ", -1);
    if (f.length < 7 || !f[0].equals(TAG)) {
      return null;
    }
    try {
      List<String> leases = new ArrayList<>();
      Arrays.stream(f, 7, f.length).map(NodeCodec::dec).forEach(leases::add);
      return new NodeRecord(
          dec(f[1]),
          dec(f[2]),
          Instant.ofEpochMilli(Long.parseLong(f[3])),
          Instant.ofEpochMilli(Long.parseLong(f[4])),
          dec(f[6]),
          leases,
          Instant.ofEpochMilli(Long.parseLong(f[5])));
    } catch (IllegalArgumentException e) {
      return null;
    }
  }

  private static String enc(String s) {
    return URLEncoder.encode(s, StandardCharsets.UTF_8);
  }

  private static String dec(String s) {
    return URLDecoder.decode(s, StandardCharsets.UTF_8);
  }
}
