package dev.leasehold.store.redis.node;

import io.lettuce.core.RedisClient;
import io.lettuce.core.RedisURI;
import io.lettuce.core.api.StatefulConnection;
import io.lettuce.core.codec.StringCodec;
import io.lettuce.core.pubsub.StatefulRedisPubSubConnection;
import java.util.concurrent.CompletableFuture;

/** One Redis server at a fixed address; the client reconnects to it by itself. */
record StandaloneTopology(RedisClient client, RedisURI uri) implements Topology {
  @Override
  public String address() {
    return RedisUris.describe(uri);
  }

  @Override
  public CompletableFuture<StatefulConnection<String, String>> open() {
    return connect(client, uri);
  }

  @Override
  public CompletableFuture<StatefulRedisPubSubConnection<String, String>> openPubSub() {
    return client.connectPubSubAsync(StringCodec.UTF8, uri).toCompletableFuture();
  }

  static CompletableFuture<StatefulConnection<String, String>> connect(
      RedisClient client, RedisURI uri) {
    return client
        .connectAsync(StringCodec.UTF8, uri)
        .toCompletableFuture()
        .thenApply(c -> (StatefulConnection<String, String>) c);
  }
}
