package dev.leasehold.blackbox;

import com.mongodb.client.MongoClient;
import com.mongodb.client.MongoClients;
import com.mongodb.client.model.Filters;
import dev.leasehold.blackbox.servers.MongoServerProcess;

/**
 * The {@code mongo} store on a mongo-java-server process the test started (its data lives and dies
 * with that process, so there is nothing to drop).
 */
final class MongoTestStore implements BlackBoxStore {
  private final String url;

  MongoTestStore(MongoServerProcess server) {
    this.url = server.url("lh_bb");
  }

  @Override
  public String yaml() {
    return "type: mongo\nurl: " + url + "\n";
  }

  /** Deletes the lease document ({@code _id} = the name) from the default collection. */
  @Override
  public void stealLease(String name) {
    try (MongoClient client = MongoClients.create(url)) {
      long deleted =
          client
              .getDatabase("lh_bb")
              .getCollection("leasehold_locks")
              .deleteOne(Filters.eq("_id", name))
              .getDeletedCount();
      if (deleted != 1) {
        throw new AssertionError("no lease document for " + name + " in " + url);
      }
    }
  }

  @Override
  public void close() {}
}
