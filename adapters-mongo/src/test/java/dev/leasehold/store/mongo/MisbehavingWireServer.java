package dev.leasehold.store.mongo;

import de.bwaldvogel.mongo.MongoServer;
import de.bwaldvogel.mongo.backend.memory.MemoryBackend;
import de.bwaldvogel.mongo.bson.Document;
import de.bwaldvogel.mongo.bson.ObjectId;
import de.bwaldvogel.mongo.exception.MongoServerError;
import io.netty.channel.Channel;
import java.util.EnumSet;
import java.util.List;
import java.util.Set;

/**
 * A broken MongoDB-compatible server, scripted at the wire level: mongo-java-server with a backend
 * that rewrites or refuses some commands before they reach the real one, the way wire-compatible
 * servers have been seen to get MongoDB's semantics subtly wrong (FerretDB 1.24 inserted an upsert
 * under a generated ObjectId and answered error 238 for {@code $lte} inside {@code $expr}). It
 * stands for a broken server, never for MongoDB: the store's own tests run on the plain {@link
 * WireServer}. Flaws can be switched while clients are connected.
 */
final class MisbehavingWireServer implements AutoCloseable {

  /** One way a server can get MongoDB wrong. */
  enum Flaw {
    /** Inserts store a generated ObjectId instead of the {@code _id} they were given. */
    INSERTS_UNDER_A_GENERATED_ID,
    /** {@code $expr} in a query filter is answered with error 238 (NotImplemented). */
    NO_EXPR_IN_FILTERS,
    /** findAndModify drops the {@code _id} equality of its filter (takes another document). */
    IGNORES_ID_IN_FIND_AND_MODIFY,
    /** findAndModify drops its {@code $expr} condition (takes a live lease). */
    IGNORES_EXPIRY_IN_FIND_AND_MODIFY,
    /** update drops the token equality of its filter (releases for any token). */
    IGNORES_TOKEN_IN_UPDATES,
    /** aggregate is answered with error 238 ({@code $add} not implemented). */
    NO_AGGREGATION_OPERATORS,
    /** createIndexes with {@code expireAfterSeconds} is answered with error 238. */
    NO_TTL_INDEXES
  }

  private final Set<Flaw> flaws = EnumSet.noneOf(Flaw.class);
  private final MongoServer server;
  private final int port;

  MisbehavingWireServer(Flaw... initial) {
    flaws.addAll(List.of(initial));
    server = new MongoServer(new Backend());
    server.bind("127.0.0.1", 0);
    port = server.getLocalAddress().getPort();
  }

  synchronized void set(Flaw... now) {
    flaws.clear();
    flaws.addAll(List.of(now));
  }

  private synchronized boolean has(Flaw flaw) {
    return flaws.contains(flaw);
  }

  String url(String database) {
    return "mongodb://127.0.0.1:" + port + "/" + database;
  }

  @Override
  public void close() {
    server.shutdownNow();
  }

  private final class Backend extends MemoryBackend {
    @Override
    public Document handleCommand(
        Channel channel, String database, String command, Document query) {
      switch (command) {
        case "insert" -> {
          if (has(Flaw.INSERTS_UNDER_A_GENERATED_ID)) {
            for (Object d : (List<?>) query.get("documents")) {
              ((Document) d).put("_id", new ObjectId());
            }
          }
        }
        case "findAndModify", "findandmodify" -> {
          Document filter = (Document) query.get("query");
          refuseExpr(filter);
          if (has(Flaw.IGNORES_ID_IN_FIND_AND_MODIFY)) {
            filter.remove("_id");
          }
          if (has(Flaw.IGNORES_EXPIRY_IN_FIND_AND_MODIFY)) {
            filter.remove("$expr");
          }
        }
        case "update" -> {
          for (Object u : (List<?>) query.get("updates")) {
            Document filter = (Document) ((Document) u).get("q");
            refuseExpr(filter);
            if (has(Flaw.IGNORES_TOKEN_IN_UPDATES)) {
              filter.remove("token");
            }
          }
        }
        case "find", "count" ->
            refuseExpr((Document) query.get(command.equals("find") ? "filter" : "query"));
        case "aggregate" -> {
          if (has(Flaw.NO_AGGREGATION_OPERATORS)) {
            throw new MongoServerError(238, "NotImplemented", "$add is not implemented yet");
          }
        }
        case "createIndexes" -> {
          if (has(Flaw.NO_TTL_INDEXES) && query.toString().contains("expireAfterSeconds")) {
            throw new MongoServerError(
                238, "NotImplemented", "Index option expireAfterSeconds is not implemented yet");
          }
        }
        default -> {}
      }
      return super.handleCommand(channel, database, command, query);
    }

    private void refuseExpr(Document filter) {
      if (filter != null && filter.containsKey("$expr") && has(Flaw.NO_EXPR_IN_FILTERS)) {
        throw new MongoServerError(
            238, "NotImplemented", "$lte is not implemented inside $expr yet");
      }
    }
  }
}
