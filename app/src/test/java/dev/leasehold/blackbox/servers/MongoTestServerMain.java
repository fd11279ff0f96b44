package dev.leasehold.blackbox.servers;

import de.bwaldvogel.mongo.MongoServer;
import de.bwaldvogel.mongo.backend.memory.MemoryBackend;
import java.util.concurrent.CountDownLatch;

/**
 * Runs mongo-java-server (in-memory backend) as its own process: {@code MongoTestServerMain PORT}
 * listens on 127.0.0.1:PORT, prints {@code listening on PORT}, and runs until killed. A
 * wire-compatible test server, not a real mongod (none can be installed here; see
 * docs/stores/mongo.md). The same idea as adapters-mongo's test launcher, which app's tests cannot
 * see.
 */
public final class MongoTestServerMain {
  private MongoTestServerMain() {}

  public static void main(String[] args) throws InterruptedException {
    int port = Integer.parseInt(args[0]);
    MongoServer server = new MongoServer(new MemoryBackend());
    server.bind("127.0.0.1", port);
    Runtime.getRuntime().addShutdownHook(new Thread(server::shutdownNow, "mongo-test-server-stop"));
    System.out.println("listening on " + server.getLocalAddress().getPort());
    System.out.flush();
    new CountDownLatch(1).await();
  }
}
