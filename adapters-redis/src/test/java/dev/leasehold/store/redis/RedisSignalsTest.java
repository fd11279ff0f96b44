package dev.leasehold.store.redis;

import static org.assertj.core.api.Assertions.assertThat;

import dev.leasehold.core.lease.RequestSignals;
import dev.leasehold.core.store.StoreBackend;
import java.util.concurrent.Semaphore;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * Redis pub/sub as the request signals, between two independent clients of the real redis-server on
 * 127.0.0.1:6379. The waits are generous limits, never measured.
 */
class RedisSignalsTest {
  private static final String PREFIX = RedisServers.freshPrefix();

  @BeforeAll
  static void requireRedis() {
    SharedRedis.requireLocal();
  }

  @AfterAll
  static void deleteKeys() {
    SharedRedis.deleteKeys(PREFIX);
  }

  @Test
  void aSignalOfOneClientWakesTheListenerOfAnother() throws Exception {
    RedisStoreFactory factory = new RedisStoreFactory();
    try (StoreBackend listening = factory.open(RedisLeaseStoreContractTest.settings(PREFIX));
        StoreBackend sending = factory.open(RedisLeaseStoreContractTest.settings(PREFIX))) {
      RequestSignals heard = listening.requestSignals().orElseThrow();
      Semaphore wakes = new Semaphore(0);
      try (AutoCloseable handle = heard.listen(wakes::release)) {
        assertThat(wakes.tryAcquire(30, TimeUnit.SECONDS)).as("woken once subscribed").isTrue();
        sending.requestSignals().orElseThrow().signal();
        assertThat(wakes.tryAcquire(30, TimeUnit.SECONDS)).as("woken by the signal").isTrue();
        sending.requestSignals().orElseThrow().signal();
        assertThat(wakes.tryAcquire(30, TimeUnit.SECONDS)).as("woken again").isTrue();
      }
    }
  }
}
