package dev.leasehold.app.admin;

import static java.nio.charset.StandardCharsets.UTF_8;
import static org.assertj.core.api.Assertions.assertThat;

import dev.leasehold.app.daemon.Daemon;
import dev.leasehold.app.testing.MemoryStoreType;
import dev.leasehold.app.testing.Poll;
import dev.leasehold.app.wiring.PreparedConfig;
import dev.leasehold.app.wiring.StoreModules;
import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;

/**
 * The admin endpoint as an attacker meets it, on two running daemons (test-only in-memory store)
 * shared by every test here: one on loopback (reading needs no token there), one on every interface
 * (reading needs the token). Requests go over plain sockets ({@link RawHttp}) so that the {@code
 * Host} header and the source address can be chosen.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class AdminEndpointSecurityTest {
  private static final Duration LIMIT = Duration.ofSeconds(90);
  private static final String TOKEN = "hardening-token-0123456789";

  /**
   * How long a /health probe may take while others stall: below the server's 5 s request deadline
   * (so a server blocked by the stalled clients until they are cut off fails it), with room for a
   * loaded build machine, where a 1 s bound (a Kubernetes probe's {@code timeoutSeconds: 1}) failed
   * a connect at load 19 while the server was answering.
   */
  private static final Duration PROBE = Duration.ofSeconds(3);

  private final List<Daemon> daemons = new ArrayList<>();
  private final List<CompletableFuture<Integer>> running = new ArrayList<>();
  private InetSocketAddress loopback;
  private int exposedPort;

  /** A network namespace joined to this one by a veth pair: clients beyond loopback. */
  private static final String NETNS = "lhhard";

  private static final String HOST_SIDE = "10.231.77.1";

  @BeforeAll
  void startDaemons() throws Exception {
    // before the daemons, so that the listen-everywhere one knows the veth address as its own
    namespace();
    loopback =
        new InetSocketAddress(
            "127.0.0.1",
            start(
                "admin:\n  listen: 127.0.0.1:0\n  token: "
                    + TOKEN
                    + "\n"
                    + "  allowed-hosts: [leasehold.test]\n"));
    exposedPort = start("admin:\n  listen: 0.0.0.0:0\n  token: " + TOKEN + "\n");
  }

  private int start(String admin) throws Exception {
    String name = "security-" + UUID.randomUUID();
    MemoryStoreType.server(name);
    Path dir = Files.createTempDirectory("admin-security");
    Path config = dir.resolve("admin.yaml");
    Files.writeString(
        config,
        "node: security-node\nstore:\n  type: memory\n  url: memory:"
            + name
            + "\n"
            + admin
            + "jobs:\n  - name: daily\n    cron: \"0 2 * * *\"\n    command: [\"true\"]\n");
    Daemon daemon = new Daemon(PreparedConfig.load(config, Map.of(), StoreModules.discover()));
    daemons.add(daemon);
    running.add(
        CompletableFuture.supplyAsync(
            () -> {
              try {
                return daemon.run();
              } catch (Exception e) {
                throw new IllegalStateException(e);
              }
            }));
    Poll.until("the admin endpoint listens", LIMIT, () -> daemon.adminPort().isPresent());
    return daemon.adminPort().orElseThrow();
  }

  @AfterAll
  void stopDaemons() throws Exception {
    sh("ip netns del " + NETNS + " 2>/dev/null; ip link del " + NETNS + "0 2>/dev/null; true");
    for (Daemon daemon : daemons) {
      daemon.shutdown();
    }
    for (CompletableFuture<Integer> run : running) {
      assertThat(run.get(LIMIT.toSeconds(), TimeUnit.SECONDS)).isZero();
    }
  }

  /**
   * Namespace {@value #NETNS} with 50 addresses (10.231.77.2-51) on its end of a veth pair, this
   * side 10.231.77.1. Needs root and iproute2.
   */
  private static void namespace() throws Exception {
    StringBuilder script =
        new StringBuilder(
            "ip netns del NS 2>/dev/null; ip link del NS0 2>/dev/null;"
                + " set -e; ip netns add NS; ip link add NS0 type veth peer name NS1;"
                + " ip link set NS1 netns NS; ip addr add HOST/24 dev NS0; ip link set NS0 up;"
                + " ip -n NS link set lo up; ip -n NS link set NS1 up;");
    for (int i = 2; i <= 51; i++) {
      script.append(" ip -n NS addr add 10.231.77.").append(i).append("/24 dev NS1;");
    }
    sh(script.toString().replace("NS", NETNS).replace("HOST", HOST_SIDE));
  }

  private static void sh(String script) throws Exception {
    Process p = new ProcessBuilder("sh", "-c", script).redirectErrorStream(true).start();
    String out = new String(p.getInputStream().readAllBytes(), UTF_8);
    if (!p.waitFor(60, TimeUnit.SECONDS) || p.exitValue() != 0) {
      throw new AssertionError(
          "setting up the network namespace failed (needs root and iproute2): " + out);
    }
  }

  private String self() {
    return "127.0.0.1:" + loopback.getPort();
  }

  private RawHttp.Answer send(
      InetAddress from, String method, String path, Map<String, String> headers)
      throws IOException {
    return RawHttp.send(from, loopback, method, path, headers, Duration.ofSeconds(30));
  }

  // --- host names, origins, headers, the token --------------------------------------------

  @Test
  void aPageThatRebindsItsNameToLoopbackReadsNothing() throws Exception {
    for (String path : List.of("/", "/api/status", "/jobs", "/metrics", "/health", "/status.js")) {
      RawHttp.Answer foreign =
          RawHttp.get(loopback, "attacker.example:" + loopback.getPort(), path);
      assertThat(foreign.status()).as(path).isEqualTo(403);
      assertThat(foreign.body()).as(path).doesNotContain("daily").doesNotContain("leasehold_");
    }
    for (String host :
        List.of(
            self(),
            "localhost:" + loopback.getPort(),
            "LOCALHOST",
            "leasehold.test:80",
            "[::1]:" + loopback.getPort())) {
      assertThat(RawHttp.get(loopback, host, "/jobs").status()).as(host).isEqualTo(200);
    }
  }

  @Test
  void aStateChangingRequestFromAnotherOriginIsRefusedEvenWithTheToken() throws Exception {
    Map<String, String> base = Map.of("Host", self(), "Authorization", "Bearer " + TOKEN);
    for (Map<String, String> extra :
        List.of(
            Map.of("Origin", "http://attacker.example"),
            Map.of("Origin", "http://127.0.0.1:1"),
            Map.of("Origin", "https://" + self()),
            Map.of("Origin", "null"),
            Map.of("Sec-Fetch-Site", "cross-site"),
            Map.of("Sec-Fetch-Site", "same-site"))) {
      Map<String, String> headers = new LinkedHashMap<>(base);
      headers.putAll(extra);
      RawHttp.Answer refused = send(null, "POST", "/jobs/daily/trigger", headers);
      assertThat(refused.status()).as(extra.toString()).isEqualTo(403);
      assertThat(refused.body()).contains("another origin");
    }
    Map<String, String> same = new LinkedHashMap<>(base);
    same.put("Origin", "http://" + self());
    same.put("Sec-Fetch-Site", "same-origin");
    assertThat(send(null, "POST", "/jobs/daily/trigger", same).status()).isEqualTo(200);
  }

  @Test
  void everyAnswerCarriesTheSecurityHeaders() throws Exception {
    List<RawHttp.Answer> answers = new ArrayList<>();
    for (String path :
        List.of(
            "/",
            "/status.js",
            "/status.css",
            "/api/status",
            "/jobs",
            "/metrics",
            "/health",
            "/nope",
            "/jobs/daily/trigger")) {
      answers.add(RawHttp.get(loopback, self(), path));
    }
    answers.add(send(null, "POST", "/jobs/daily/trigger", Map.of("Host", self())));
    answers.add(RawHttp.get(loopback, "attacker.example", "/"));
    for (RawHttp.Answer a : answers) {
      assertThat(a.header("Content-Security-Policy"))
          .as(a.status() + " " + a.headers())
          .isEqualTo(
              "default-src 'none'; script-src 'self'; style-src 'self'; connect-src 'self';"
                  + " img-src 'self'; form-action 'self'; base-uri 'none'; frame-ancestors"
                  + " 'none'");
      assertThat(a.header("X-Content-Type-Options")).isEqualTo("nosniff");
      assertThat(a.header("Referrer-Policy")).isEqualTo("no-referrer");
    }
    for (String path : List.of("/", "/api/status", "/jobs", "/metrics", "/health")) {
      assertThat(RawHttp.get(loopback, self(), path).header("Cache-Control"))
          .as(path)
          .isEqualTo("no-store");
    }
  }

  @Test
  void bearerIsAcceptedInAnyCaseAndRepeatedWrongTokensAreLimited() throws Exception {
    for (String scheme : List.of("Bearer", "bearer", "BEARER", "bEaReR")) {
      Map<String, String> headers = Map.of("Host", self(), "Authorization", scheme + "  " + TOKEN);
      assertThat(send(null, "POST", "/jobs/nope/trigger", headers).status())
          .as(scheme)
          .isEqualTo(404);
    }
    // a guesser of its own, so that the limit it earns touches no other test
    InetAddress guesser = InetAddress.getByName("127.0.0.77");
    int refused = 0;
    RawHttp.Answer last = null;
    for (int i = 0; i < AuthFailures.PER_CLIENT + 2; i++) {
      last =
          send(
              guesser,
              "POST",
              "/jobs/daily/trigger",
              Map.of("Host", self(), "Authorization", "Bearer guess-" + i));
      refused += last.status() == 429 ? 1 : 0;
    }
    assertThat(refused).isEqualTo(2);
    assertThat(last.header("Retry-After")).isNotNull();
    RawHttp.Answer rightButLimited =
        send(
            guesser,
            "POST",
            "/jobs/nope/trigger",
            Map.of("Host", self(), "Authorization", "Bearer " + TOKEN));
    assertThat(rightButLimited.status())
        .as("the right token waits out the limit too")
        .isEqualTo(429);
    assertThat(
            send(
                    null,
                    "POST",
                    "/jobs/nope/trigger",
                    Map.of("Host", self(), "Authorization", "Bearer " + TOKEN))
                .status())
        .as("another client is not limited")
        .isEqualTo(404);
  }

  // --- /health while hundreds of clients stall --------------------------------------------

  @Test
  void healthAnswersWhileFiveHundredClientsStallOnLoopback() throws Exception {
    // 500 stalled clients from 50 loopback addresses: every one of them holds its connection
    List<InetAddress> sources = new ArrayList<>();
    for (int i = 0; i < 50; i++) {
      sources.add(InetAddress.getByName("127.0.1." + (10 + i)));
    }
    assertHealthAnswersWhileStalled(loopback, sources, InetAddress.getByName("127.0.0.1"));
  }

  @Test
  void healthAnswersWhileFiveHundredClientsStallBeyondLoopback() throws Exception {
    // 500 stalled clients in another network namespace, from 50 addresses there, through a veth
    // pair to the daemon listening on every interface; the probe to the same address
    Path script = Files.createTempFile("stallers", ".py");
    try (var in = getClass().getResourceAsStream("stallers.py")) {
      Files.write(script, in.readAllBytes());
    }
    List<String> sources = new ArrayList<>();
    for (int i = 2; i <= 51; i++) {
      sources.add("10.231.77." + i);
    }
    Process stallers =
        new ProcessBuilder(
                "ip",
                "netns",
                "exec",
                NETNS,
                "/usr/bin/python3",
                script.toString(),
                HOST_SIDE,
                Integer.toString(exposedPort),
                String.join(",", sources),
                "500")
            .redirectErrorStream(true)
            .start();
    List<String> lines = java.util.Collections.synchronizedList(new ArrayList<>());
    Thread reader =
        new Thread(
            () -> {
              try (var out =
                  new java.io.BufferedReader(
                      new java.io.InputStreamReader(stallers.getInputStream(), UTF_8))) {
                for (String line; (line = out.readLine()) != null; ) {
                  lines.add(line);
                }
              } catch (IOException e) {
                // the process ended
              }
            });
    reader.setDaemon(true);
    reader.start();
    try {
      Poll.until(
          "500 clients in the namespace hold connections",
          LIMIT,
          () -> lines.contains("held 500") || !stallers.isAlive());
      assertThat(lines).as("the stallers' output").contains("held 500");
      InetSocketAddress target = new InetSocketAddress(HOST_SIDE, exposedPort);
      assertThat(probeHealth(target, null))
          .as("/health probes that failed or took over " + PROBE)
          .isEmpty();
      assertThat(stallers.isAlive()).as("the stallers kept at it: " + lines).isTrue();
      assertThat(lines.stream().filter(l -> l.startsWith("reopened ") && !l.equals("reopened 0")))
          .as("the server closed stalled connections after their request deadline")
          .isNotEmpty();
    } finally {
      stallers.destroyForcibly().waitFor(30, TimeUnit.SECONDS);
      Files.deleteIfExists(script);
    }
  }

  @Test
  void oneClientHoldsAtMostItsShareOfConnections() throws Exception {
    InetAddress greedy = InetAddress.getByName("127.0.2.1");
    List<Socket> sockets = stall(loopback, List.of(greedy), 200);
    try {
      Poll.until(
          "connections beyond the per-client bound are closed",
          LIMIT,
          () -> openCount(sockets) <= AdminTransport.MAX_PER_CLIENT);
    } finally {
      closeAll(sockets);
    }
  }

  @Test
  void allClientsTogetherHoldAtMostTheTotalBound() throws Exception {
    // 1100 connections from 20 addresses, each under its own bound of 64
    List<InetAddress> sources = new ArrayList<>();
    for (int i = 0; i < 20; i++) {
      sources.add(InetAddress.getByName("127.0.3." + (1 + i)));
    }
    try (Stallers many = new Stallers(loopback, sources, 1100)) {
      Poll.until(
          "connections beyond the total bound are closed",
          LIMIT,
          () -> openCount(many.sockets()) <= AdminTransport.MAX_CONNECTIONS);
      RawHttp.Answer health =
          RawHttp.send(null, loopback, "GET", "/health", Map.of("Host", self()), PROBE);
      assertThat(health.status()).isEqualTo(200);
    }
  }

  private void assertHealthAnswersWhileStalled(
      InetSocketAddress target, List<InetAddress> sources, InetAddress prober) throws Exception {
    try (Stallers stallers = new Stallers(target, sources, 500)) {
      assertThat(openCount(stallers.sockets()))
          .as("stalled connections held")
          .isGreaterThanOrEqualTo(Math.min(500, sources.size() * AdminTransport.MAX_PER_CLIENT));
      stallers.keepUp();
      assertThat(probeHealth(target, prober))
          .as("/health probes that failed or took over " + PROBE)
          .isEmpty();
      assertThat(stallers.reopened())
          .as("the stalled clients kept at it (the server closes each after its request deadline)")
          .isPositive();
    }
  }

  /**
   * 20 probes of {@code /health} over 8 s (longer than the request deadline), each bounded by
   * {@link #PROBE} from connect to the last byte of the answer; the ones that failed.
   */
  private static List<String> probeHealth(InetSocketAddress target, InetAddress prober)
      throws InterruptedException {
    List<String> late = new ArrayList<>();
    for (int probe = 0; probe < 20; probe++) {
      long start = System.nanoTime();
      try {
        RawHttp.Answer health =
            RawHttp.send(
                prober,
                target,
                "GET",
                "/health",
                Map.of("Host", target.getAddress().getHostAddress()),
                PROBE);
        if (health.status() != 200) {
          late.add("probe " + probe + ": HTTP " + health.status());
        }
      } catch (IOException e) {
        late.add(
            "probe "
                + probe
                + ": "
                + e
                + " after "
                + Duration.ofNanos(System.nanoTime() - start).toMillis()
                + " ms");
      }
      Thread.sleep(400);
    }
    return late;
  }

  /**
   * {@code count} clients that each send half a request and then nothing, spread over {@code
   * sources}; once {@link #keepUp} is called, a thread reopens every connection the server closed,
   * as an attacker would, so that the pressure lasts.
   */
  private static final class Stallers implements AutoCloseable {
    private final InetSocketAddress target;
    private final List<InetAddress> sources;
    private final Socket[] sockets;
    private final Thread thread;
    private volatile boolean stop;
    private int reopened;

    Stallers(InetSocketAddress target, List<InetAddress> sources, int count) throws IOException {
      this.target = target;
      this.sources = sources;
      this.sockets = new Socket[count];
      for (int i = 0; i < count; i++) {
        sockets[i] = open(i);
      }
      this.thread = new Thread(this::reopenClosed, "stallers");
      thread.setDaemon(true);
    }

    private Socket open(int i) throws IOException {
      Socket s = new Socket();
      s.bind(new InetSocketAddress(sources.get(i % sources.size()), 0));
      s.connect(target, 5_000);
      s.getOutputStream().write("GET /jobs HTTP/1.1\r\nHost: x\r\n".getBytes(UTF_8));
      s.getOutputStream().flush();
      return s;
    }

    List<Socket> sockets() {
      return List.of(sockets);
    }

    void keepUp() {
      thread.start();
    }

    synchronized int reopened() {
      return reopened;
    }

    private void reopenClosed() {
      while (!stop) {
        for (int i = 0; i < sockets.length && !stop; i++) {
          if (!isOpen(sockets[i])) {
            try {
              sockets[i].close();
              sockets[i] = open(i);
              synchronized (this) {
                reopened++;
              }
            } catch (IOException e) {
              // refused or reset: try again on the next round
            }
          }
        }
        try {
          Thread.sleep(50);
        } catch (InterruptedException e) {
          return;
        }
      }
    }

    @Override
    public void close() throws InterruptedException {
      stop = true;
      thread.interrupt();
      if (thread.isAlive()) {
        thread.join(10_000);
      }
      closeAll(List.of(sockets));
    }
  }

  /** {@code count} connections spread over {@code sources}, each sending half a request. */
  private static List<Socket> stall(InetSocketAddress target, List<InetAddress> sources, int count)
      throws IOException {
    List<Socket> sockets = new ArrayList<>();
    for (int i = 0; i < count; i++) {
      Socket s = new Socket();
      s.bind(new InetSocketAddress(sources.get(i % sources.size()), 0));
      s.connect(target, 5_000);
      s.getOutputStream().write("GET /jobs HTTP/1.1\r\nHost: x\r\n".getBytes(UTF_8));
      s.getOutputStream().flush();
      sockets.add(s);
    }
    return sockets;
  }

  private static boolean isOpen(Socket s) {
    try {
      s.setSoTimeout(1);
      return s.getInputStream().read() >= 0;
    } catch (java.net.SocketTimeoutException e) {
      return true;
    } catch (IOException e) {
      return false;
    }
  }

  /** How many of {@code sockets} the server has not closed (a closed one reads end of stream). */
  private static int openCount(List<Socket> sockets) {
    return (int) sockets.stream().filter(AdminEndpointSecurityTest::isOpen).count();
  }

  private static void closeAll(List<Socket> sockets) {
    for (Socket s : sockets) {
      try {
        s.close();
      } catch (IOException e) {
        // already gone
      }
    }
  }
}
