import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;
import java.io.BufferedWriter;
import java.io.IOException;
import java.io.InputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;

/**
 * The HTTP sink of scripts/measure-storm.sh: answers every request 204 and records, per request,
 * the headers a Leasehold HTTP job sends (job, fire time, fence, node) and the receive time (epoch
 * microseconds, taken before anything else is done with the request).
 *
 * <p>Usage: {@code java scripts/StormSink.java PORT-FILE LEDGER [MAX-RECORDS] [THREADS]}. Binds
 * 127.0.0.1 on a free port and writes the port to PORT-FILE once it listens. {@code POST /dump}
 * writes the ledger (one line per request: receive-micros job fire-time fence node) and answers
 * with the number of lines; so does SIGTERM. At most MAX-RECORDS requests are kept (default
 * 2,000,000); later ones are answered and counted as dropped.
 */
public final class StormSink {
  private static long[] received;
  private static String[] jobs;
  private static String[] fires;
  private static String[] fences;
  private static String[] nodes;
  private static final AtomicInteger next = new AtomicInteger();
  private static final AtomicLong dropped = new AtomicLong();
  private static Path ledger;
  private static volatile boolean dumped;

  public static void main(String[] args) throws Exception {
    if (args.length < 2) {
      System.err.println("usage: java StormSink.java PORT-FILE LEDGER [MAX-RECORDS] [THREADS]");
      System.exit(2);
    }
    Path portFile = Path.of(args[0]);
    ledger = Path.of(args[1]);
    int max = args.length > 2 ? Integer.parseInt(args[2]) : 2_000_000;
    int threads = args.length > 3 ? Integer.parseInt(args[3]) : 8;
    received = new long[max];
    jobs = new String[max];
    fires = new String[max];
    fences = new String[max];
    nodes = new String[max];
    ExecutorService pool = Executors.newFixedThreadPool(threads);
    HttpServer server =
        HttpServer.create(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 1024);
    server.createContext("/", StormSink::record);
    server.createContext("/dump", StormSink::dump);
    server.setExecutor(pool);
    server.start();
    Runtime.getRuntime().addShutdownHook(new Thread(StormSink::writeLedgerQuietly));
    Path tmp = Path.of(args[0] + ".tmp");
    Files.writeString(tmp, Integer.toString(server.getAddress().getPort()));
    Files.move(tmp, portFile);
  }

  private static void record(HttpExchange exchange) throws IOException {
    long micros = ChronoUnit.MICROS.between(Instant.EPOCH, Instant.now());
    try (InputStream in = exchange.getRequestBody()) {
      in.readAllBytes();
    }
    var h = exchange.getRequestHeaders();
    int i = next.getAndIncrement();
    if (i < received.length) {
      jobs[i] = orDash(h.getFirst("X-Leasehold-Job"));
      fires[i] = orDash(h.getFirst("X-Leasehold-Fire-Time"));
      fences[i] = orDash(h.getFirst("X-Leasehold-Fence"));
      nodes[i] = orDash(h.getFirst("X-Leasehold-Node"));
      received[i] = micros; // written last: a nonzero time marks a complete record
    } else {
      dropped.incrementAndGet();
    }
    exchange.sendResponseHeaders(204, -1);
    exchange.close();
  }

  private static void dump(HttpExchange exchange) throws IOException {
    int lines = writeLedger();
    byte[] body = (lines + "\n").getBytes(StandardCharsets.UTF_8);
    exchange.sendResponseHeaders(200, body.length);
    exchange.getResponseBody().write(body);
    exchange.close();
  }

  private static synchronized int writeLedger() throws IOException {
    int n = Math.min(next.get(), received.length);
    int written = 0;
    try (BufferedWriter w = Files.newBufferedWriter(ledger)) {
      for (int i = 0; i < n; i++) {
        if (received[i] == 0) {
          continue; // still being recorded when the dump began
        }
        w.write(received[i] + " " + jobs[i] + " " + fires[i] + " " + fences[i] + " " + nodes[i]);
        w.newLine();
        written++;
      }
      if (dropped.get() > 0) {
        w.write("# dropped " + dropped.get());
        w.newLine();
      }
    }
    dumped = true;
    return written;
  }

  private static void writeLedgerQuietly() {
    if (dumped) {
      return;
    }
    try {
      writeLedger();
    } catch (IOException e) {
      System.err.println("sink: cannot write " + ledger + ": " + e.getMessage());
    }
  }

  private static String orDash(String s) {
    return s == null || s.isBlank() ? "-" : s.replace(' ', '_');
  }
}
