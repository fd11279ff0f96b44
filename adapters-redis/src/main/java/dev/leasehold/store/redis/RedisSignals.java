package dev.leasehold.store.redis;

import dev.leasehold.core.lease.RequestSignals;
import dev.leasehold.store.redis.node.LeaseKeys;
import dev.leasehold.store.redis.node.RedisNode;
import io.lettuce.core.pubsub.RedisPubSubAdapter;
import io.lettuce.core.pubsub.StatefulRedisPubSubConnection;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Redis pub/sub as the store's request signals: {@code PUBLISH} on the channel {@code
 * <prefix>requests} on every node (one for Redis, Sentinel's master and a cluster, which delivers
 * it on every node; each master for Redlock), and a listener that holds one {@code SUBSCRIBE}
 * connection per node. The client reconnects and subscribes again by itself after a cut; a signal
 * sent meanwhile is lost, and the daemon finds the request at its next look at the marker.
 */
final class RedisSignals implements RequestSignals {
  private static final Logger log = LoggerFactory.getLogger(RedisSignals.class);

  private final List<RedisNode> nodes;
  private final String channel;

  RedisSignals(List<RedisNode> nodes, LeaseKeys keys) {
    this.nodes = List.copyOf(nodes);
    this.channel = keys.prefix() + "requests";
  }

  @Override
  public void signal() {
    List<CompletableFuture<Long>> sent =
        nodes.stream().map(n -> n.call(c -> c.publish(channel, ""))).toList();
    for (int i = 0; i < sent.size(); i++) {
      try {
        sent.get(i).get(nodes.get(i).timeout().toMillis() + 500, TimeUnit.MILLISECONDS);
      } catch (Exception e) {
        if (e instanceof InterruptedException) {
          Thread.currentThread().interrupt();
        }
        log.debug("request signal not sent to {}: {}", nodes.get(i).address(), e.toString());
      }
    }
  }

  /**
   * Subscribes on every node, waiting for their answers (a command timeout at most); fails when no
   * node took the subscription (a user without the channel's permission, every node down), so that
   * the daemon reads the marker at its usual pace instead.
   */
  @Override
  public AutoCloseable listen(Runnable wake) {
    AtomicBoolean closed = new AtomicBoolean();
    List<StatefulRedisPubSubConnection<String, String>> open = new CopyOnWriteArrayList<>();
    AutoCloseable handle =
        () -> {
          closed.set(true);
          open.forEach(StatefulRedisPubSubConnection::closeAsync);
        };
    List<CompletableFuture<Void>> subscribed = new ArrayList<>();
    for (RedisNode node : nodes) {
      subscribed.add(
          node.openPubSub()
              .thenCompose(
                  c -> {
                    open.add(c);
                    if (closed.get()) {
                      c.closeAsync(); // answered after the handle was closed
                    }
                    c.addListener(
                        new RedisPubSubAdapter<>() {
                          @Override
                          public void message(String from, String message) {
                            wake.run();
                          }
                        });
                    return c.async().subscribe(channel).toCompletableFuture();
                  }));
    }
    int heard = 0;
    String why = null;
    for (int i = 0; i < nodes.size(); i++) {
      try {
        subscribed.get(i).get(nodes.get(i).timeout().toMillis() + 500, TimeUnit.MILLISECONDS);
        heard++;
      } catch (Exception e) {
        if (e instanceof InterruptedException) {
          Thread.currentThread().interrupt();
        }
        why = nodes.get(i).address() + ": " + e;
        log.warn("request signals of {} not heard ({})", nodes.get(i).address(), e.toString());
      }
    }
    if (heard == 0) {
      try {
        handle.close();
      } catch (Exception e) {
        // closing is asynchronous and does not fail
      }
      throw new IllegalStateException("no node took SUBSCRIBE " + channel + " (" + why + ")");
    }
    wake.run(); // a signal may have come before this listener
    return handle;
  }
}
