package dev.leasehold.store.redis.node;

import io.lettuce.core.RedisClient;
import io.lettuce.core.RedisReadOnlyException;
import io.lettuce.core.RedisURI;
import io.lettuce.core.api.StatefulConnection;
import io.lettuce.core.codec.StringCodec;
import io.lettuce.core.pubsub.StatefulRedisPubSubConnection;
import java.util.concurrent.CompletableFuture;
import java.util.function.BooleanSupplier;

/**
 * The master that the sentinels of {@code uri} name. A call that failed because the connection is
 * down, or because it reached a server that refuses writes with {@code READONLY} (the old master,
 * back as a replica on the same address), drops the connection: the next call asks the sentinels
 * for the master afresh, instead of waiting for the client's own reconnection to an address that
 * may no longer be the master.
 */
record SentinelTopology(RedisClient client, RedisURI uri) implements Topology {
  @Override
  public String address() {
    return RedisUris.describe(uri);
  }

  @Override
  public String target() {
    return address();
  }

  @Override
  public CompletableFuture<StatefulConnection<String, String>> open() {
    return StandaloneTopology.connect(client, uri);
  }

  @Override
  public CompletableFuture<StatefulRedisPubSubConnection<String, String>> openPubSub() {
    return client.connectPubSubAsync(StringCodec.UTF8, uri).toCompletableFuture();
  }

  @Override
  public boolean dropAfter(Throwable cause, BooleanSupplier disconnected) {
    return cause instanceof RedisReadOnlyException || disconnected.getAsBoolean();
  }
}
