package dev.leasehold.store.mongo;

import dev.leasehold.core.store.StoreBackend;
import dev.leasehold.storekit.lease.LeaseStoreContract;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;

/**
 * The contract kit on {@link MongoLeaseStore} against <b>mongo-java-server</b>, the in-process
 * wire-compatible test server (in-memory backend) — not a real mongod, which cannot be installed on
 * these machines. Every {@link #createBackend()} is a new {@code MongoClient} with its own
 * connection pool, so the races are between independent clients over the wire protocol.
 */
class MongoWireServerLeaseStoreContractTest extends LeaseStoreContract {
  private static WireServer server;

  @BeforeAll
  static void startServer() {
    server = WireServer.start();
  }

  @AfterAll
  static void stopServer() {
    server.close();
  }

  @Override
  protected StoreBackend createBackend() {
    return server.newBackend("contract");
  }
}
