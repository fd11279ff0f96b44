package dev.leasehold.store.mongo.testserver;

import de.bwaldvogel.mongo.MongoServer;
import de.bwaldvogel.mongo.backend.memory.MemoryBackend;
import java.net.InetSocketAddress;
import java.util.concurrent.CountDownLatch;

/**
 * Runs mongo-java-server (in-memory backend) as its own process, for black-box tests of daemons on
 * the {@code mongo} store. It is a wire-compatible test server, not a real mongod: see {@code
 * docs/stores/mongo.md} for what it does not emulate.
 *
 * <pre>{@code java -cp <adapters-mongo test classpath> \
 *     dev.leasehold.store.mongo.testserver.MongoTestServerMain [port] [host]}</pre>
 *
 * <p>Listens on {@code host} (default {@code 127.0.0.1}) and {@code port} (default 0: any free
 * port), prints {@code listening on <port>} on stdout once it accepts connections, and runs until
 * the process is killed. Data lives in memory only, so killing the process loses it.
 */
public final class MongoTestServerMain {
  private MongoTestServerMain() {}

  public static void main(String[] args) throws InterruptedException {
    if (args.length > 2) {
      System.err.println("usage: MongoTestServerMain [port] [host]");
      System.exit(2);
    }
    int port;
    try {
      port = args.length > 0 ? Integer.parseInt(args[0]) : 0;
    } catch (NumberFormatException e) {
      System.err.println("port: expected a number, got " + args[0]);
      System.exit(2);
      return;
    }
    String host = args.length > 1 ? args[1] : "127.0.0.1";
    MongoServer server = new MongoServer(new MemoryBackend());
    server.bind(host, port);
    Runtime.getRuntime().addShutdownHook(new Thread(server::shutdownNow, "mongo-test-server-stop"));
    InetSocketAddress address = server.getLocalAddress();
    System.out.println("listening on " + address.getPort());
    System.out.flush();
    new CountDownLatch(1).await();
  }
}
