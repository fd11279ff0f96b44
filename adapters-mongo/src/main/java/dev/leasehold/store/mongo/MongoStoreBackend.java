package dev.leasehold.store.mongo;

import com.mongodb.MongoCommandException;
import com.mongodb.client.MongoClient;
import com.mongodb.client.MongoClients;
import com.mongodb.client.MongoCollection;
import com.mongodb.client.MongoDatabase;
import com.mongodb.connection.ServerDescription;
import dev.leasehold.core.job.ExecutionLog;
import dev.leasehold.core.lease.Forgetting;
import dev.leasehold.core.lease.IncompatibleStoreException;
import dev.leasehold.core.lease.Journal;
import dev.leasehold.core.lease.LeaseStore;
import dev.leasehold.core.lease.LeaseStoreException;
import dev.leasehold.core.lease.NodeRecords;
import dev.leasehold.core.lease.Pauses;
import dev.leasehold.core.lease.StoreUnreachableException;
import dev.leasehold.core.store.ConnectFailures;
import dev.leasehold.core.store.StoreBackend;
import java.time.Duration;
import java.util.Date;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import java.util.function.Supplier;
import java.util.stream.Collectors;
import org.bson.Document;

/**
 * One MongoDB client shared by the lease store and the execution log. Creating the client does no
 * I/O: the driver connects in the background and each call waits at most the command timeout for a
 * usable server.
 */
final class MongoStoreBackend implements StoreBackend {
  private final MongoClient client;
  private final MongoDatabase database;
  private final MongoLeaseStore leases;
  private final MongoExecutionLog executions;
  private final MongoJournal journal;
  private final Duration commandTimeout;

  MongoStoreBackend(MongoStoreConfig config) {
    this.commandTimeout = config.commandTimeout();
    this.client =
        MongoErrors.call("client creation", () -> MongoClients.create(config.clientSettings()));
    this.database = client.getDatabase(config.database());
    // the client belongs to this backend: closing the lease store alone leaves it open
    this.leases =
        new MongoLeaseStore(
                database.getCollection(config.leaseCollection()),
                highWater(database, config),
                serverClock(database),
                () -> {})
            .keepingNodes(nodeCollection(database, config));
    this.executions =
        new MongoExecutionLog(
            database.getCollection(config.executionCollection()), config.historyRetention());
    this.journal =
        new MongoJournal(
            database.getCollection(config.leaseCollection() + "_journal"),
            database.getCollection(config.leaseCollection() + "_journal_keys"));
  }

  /** A lease store that owns its own client, for callers that need nothing else. */
  static MongoLeaseStore leaseStoreOwningItsClient(MongoStoreConfig config) {
    MongoClient client =
        MongoErrors.call("client creation", () -> MongoClients.create(config.clientSettings()));
    MongoDatabase database = client.getDatabase(config.database());
    return new MongoLeaseStore(
            database.getCollection(config.leaseCollection()),
            highWater(database, config),
            serverClock(database),
            client::close)
        .keepingNodes(nodeCollection(database, config));
  }

  /** {@code <lease collection>.fences}: the high-water marks of the lease documents. */
  static MongoCollection<Document> highWater(MongoDatabase database, MongoStoreConfig config) {
    return database.getCollection(config.leaseCollection() + ".fences");
  }

  /** The node records: {@code <lease collection>_nodes}, next to the leases. */
  static MongoCollection<Document> nodeCollection(MongoDatabase database, MongoStoreConfig config) {
    return database.getCollection(config.leaseCollection() + "_nodes");
  }

  /**
   * The server's own time, from {@code hello.localTime} (or the older {@code isMaster}, for servers
   * that predate {@code hello}).
   */
  private static Supplier<Date> serverClock(MongoDatabase database) {
    return () -> {
      Document answer;
      try {
        answer = database.runCommand(new Document("hello", 1));
      } catch (MongoCommandException e) {
        answer = database.runCommand(new Document("isMaster", 1));
      }
      Date now = answer.getDate("localTime");
      if (now == null) {
        throw new IncompatibleStoreException(
            "MongoDB read of the server's time: the server does not tell its time (no localTime in"
                + " hello or isMaster)");
      }
      return now;
    };
  }

  @Override
  public LeaseStore leaseStore() {
    return leases;
  }

  /** Every part: pauses, node records and forgetting, all by the lease store's client. */
  @Override
  public Optional<Pauses> pauses() {
    return Optional.of(leases);
  }

  @Override
  public Optional<NodeRecords> nodeRecords() {
    return Optional.of(leases);
  }

  @Override
  public Optional<Forgetting> forgetting() {
    return Optional.of(leases);
  }

  /**
   * The journal: {@code <lease collection>_journal} and {@code _journal_keys} ({@link
   * MongoJournal}).
   */
  @Override
  public Optional<Journal> journal() {
    return Optional.of(journal);
  }

  @Override
  public ExecutionLog executionLog() {
    return executions;
  }

  @Override
  public void ping() {
    awaitAServer();
    MongoErrors.call("ping", () -> database.runCommand(new Document("ping", 1)));
  }

  /**
   * Waits (at most the command timeout) until the driver has reached a server, and fails at once,
   * naming each server and why, when it has tried every one and reached none: a refused connection
   * or an unknown host is then reported without waiting out the server selection timeout, and
   * without the driver's description of its cluster state.
   */
  private void awaitAServer() {
    long deadline = System.nanoTime() + commandTimeout.toNanos();
    while (true) {
      List<ServerDescription> servers = client.getClusterDescription().getServerDescriptions();
      if (servers.stream().anyMatch(ServerDescription::isOk)) {
        return;
      }
      boolean allFailed =
          !servers.isEmpty() && servers.stream().allMatch(d -> d.getException() != null);
      if (allFailed || System.nanoTime() > deadline) {
        String where =
            servers.stream()
                .map(
                    d -> {
                      String reason =
                          d.getException() == null
                              ? ConnectFailures.timedOut(commandTimeout)
                              : ConnectFailures.reason(d.getException(), commandTimeout);
                      return ConnectFailures.hostPort(
                              d.getAddress().getHost(), d.getAddress().getPort())
                          + ": "
                          + (reason == null ? "connection failed" : reason);
                    })
                .collect(Collectors.joining("; "));
        throw new StoreUnreachableException(
            "MongoDB store: cannot connect to MongoDB at "
                + (where.isEmpty() ? ConnectFailures.timedOut(commandTimeout) : where),
            servers.stream()
                .map(ServerDescription::getException)
                .filter(Objects::nonNull)
                .findFirst()
                .orElse(null));
      }
      try {
        Thread.sleep(20);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        throw new LeaseStoreException("interrupted while connecting to MongoDB", e);
      }
    }
  }

  @Override
  public void close() {
    client.close();
  }
}
