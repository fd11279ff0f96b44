package dev.leasehold.app.admin;

import io.netty.bootstrap.ServerBootstrap;
import io.netty.buffer.Unpooled;
import io.netty.channel.Channel;
import io.netty.channel.ChannelFutureListener;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.channel.ChannelInitializer;
import io.netty.channel.ChannelOption;
import io.netty.channel.EventLoopGroup;
import io.netty.channel.MultiThreadIoEventLoopGroup;
import io.netty.channel.nio.NioIoHandler;
import io.netty.channel.socket.SocketChannel;
import io.netty.channel.socket.nio.NioServerSocketChannel;
import io.netty.handler.codec.http.DefaultFullHttpResponse;
import io.netty.handler.codec.http.FullHttpRequest;
import io.netty.handler.codec.http.FullHttpResponse;
import io.netty.handler.codec.http.HttpHeaderNames;
import io.netty.handler.codec.http.HttpHeaderValues;
import io.netty.handler.codec.http.HttpObjectAggregator;
import io.netty.handler.codec.http.HttpResponseStatus;
import io.netty.handler.codec.http.HttpServerCodec;
import io.netty.handler.codec.http.HttpUtil;
import io.netty.handler.codec.http.HttpVersion;
import io.netty.handler.codec.http.QueryStringDecoder;
import io.netty.handler.timeout.WriteTimeoutHandler;
import io.netty.util.concurrent.DefaultThreadFactory;
import io.netty.util.concurrent.ScheduledFuture;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.time.Duration;
import java.util.ArrayDeque;
import java.util.HashMap;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.concurrent.ArrayBlockingQueue;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.function.Function;
import java.util.function.Predicate;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The admin endpoint's HTTP server (Netty): it reads requests on one event-loop thread, without a
 * thread per connection, and hands each complete request to an executor. What a client can hold:
 *
 * <ul>
 *   <li>at most {@link #MAX_CONNECTIONS} connections in all and {@link #MAX_PER_CLIENT} per client
 *       address. A connection beyond a bound does not wait or get refused: the <em>oldest idle</em>
 *       connection (no request being answered) of that client, or of all, is closed to make room,
 *       so a probe that just connected gets in while stalled clients are dropped;
 *   <li>{@link #REQUEST_TIMEOUT} to send a whole request (on a new connection or after the previous
 *       answer), else the connection is closed;
 *   <li>one request at a time per connection (reading pauses until the answer is written);
 *   <li>small requests only: an 8 KiB head and a 64 KiB body.
 * </ul>
 *
 * <p>Requests for which {@code urgent} holds ({@code /health}) run on a thread of their own; all
 * others share {@link #WORKERS} threads with a queue of {@link #QUEUE}, beyond which they get 503.
 * So no other request, slow store call or stalled client can delay {@code /health}.
 */
final class AdminTransport implements AutoCloseable {
  private static final Logger log = LoggerFactory.getLogger(AdminTransport.class);

  static final int MAX_CONNECTIONS = 1024;
  static final int MAX_PER_CLIENT = 64;
  static final Duration REQUEST_TIMEOUT = Duration.ofSeconds(5);
  static final int WORKERS = 4;
  static final int QUEUE = 64;
  private static final int MAX_HEAD = 8192;
  private static final int MAX_BODY = 65_536;

  private final EventLoopGroup loop;
  private final Channel server;
  private final ExecutorService workers;
  private final ExecutorService urgentThread;
  private final Function<AdminRequest, AdminResponse> answer;
  private final Predicate<AdminRequest> urgent;

  /** Open connections, oldest first; touched on the event loop only. */
  private final Map<Channel, Connection> open = new LinkedHashMap<>();

  private final Map<InetAddress, ArrayDeque<Connection>> byClient = new HashMap<>();

  private AdminTransport(
      InetSocketAddress address,
      Function<AdminRequest, AdminResponse> answer,
      Predicate<AdminRequest> urgent)
      throws InterruptedException {
    this.answer = answer;
    this.urgent = urgent;
    this.workers =
        new ThreadPoolExecutor(
            WORKERS,
            WORKERS,
            30,
            TimeUnit.SECONDS,
            new ArrayBlockingQueue<>(QUEUE),
            new DefaultThreadFactory("leasehold-admin", true));
    ((ThreadPoolExecutor) workers).allowCoreThreadTimeOut(true);
    this.urgentThread =
        new ThreadPoolExecutor(
            1,
            1,
            0,
            TimeUnit.SECONDS,
            new ArrayBlockingQueue<>(QUEUE),
            new DefaultThreadFactory("leasehold-admin-health", true));
    this.loop =
        new MultiThreadIoEventLoopGroup(
            1, new DefaultThreadFactory("leasehold-admin-io", true), NioIoHandler.newFactory());
    try {
      this.server =
          new ServerBootstrap()
              .group(loop)
              .channel(NioServerSocketChannel.class)
              .option(ChannelOption.SO_BACKLOG, 256)
              .childOption(ChannelOption.TCP_NODELAY, true)
              .childHandler(
                  new ChannelInitializer<SocketChannel>() {
                    @Override
                    protected void initChannel(SocketChannel ch) {
                      ch.pipeline()
                          .addLast(
                              new WriteTimeoutHandler(
                                  REQUEST_TIMEOUT.toSeconds() * 2, TimeUnit.SECONDS))
                          .addLast(new HttpServerCodec(MAX_HEAD, MAX_HEAD, MAX_HEAD))
                          .addLast(new HttpObjectAggregator(MAX_BODY))
                          .addLast(new Connection());
                    }
                  })
              .bind(address)
              .sync()
              .channel();
    } catch (InterruptedException | RuntimeException e) {
      close();
      throw e;
    }
  }

  static AdminTransport start(
      InetSocketAddress address,
      Function<AdminRequest, AdminResponse> answer,
      Predicate<AdminRequest> urgent)
      throws InterruptedException {
    return new AdminTransport(address, answer, urgent);
  }

  InetSocketAddress address() {
    return (InetSocketAddress) server.localAddress();
  }

  /** One client connection; all its state is read and written on the event loop. */
  private final class Connection extends ChannelInboundHandlerAdapter {
    private Channel channel;
    private InetAddress client;
    private boolean answering;
    private ScheduledFuture<?> deadline;

    @Override
    public void channelActive(ChannelHandlerContext ctx) {
      channel = ctx.channel();
      client = ((InetSocketAddress) channel.remoteAddress()).getAddress();
      ArrayDeque<Connection> mine = byClient.get(client);
      if (mine != null && mine.size() >= MAX_PER_CLIENT && !closeOldestIdle(mine)) {
        channel.close();
        return;
      }
      if (open.size() >= MAX_CONNECTIONS && !closeOldestIdle(open.values())) {
        channel.close();
        return;
      }
      open.put(channel, this);
      byClient.computeIfAbsent(client, c -> new ArrayDeque<>()).addLast(this);
      awaitRequest();
      ctx.fireChannelActive();
    }

    @Override
    public void channelInactive(ChannelHandlerContext ctx) {
      forget(this);
      if (deadline != null) {
        deadline.cancel(false);
      }
      ctx.fireChannelInactive();
    }

    private void awaitRequest() {
      deadline =
          channel
              .eventLoop()
              .schedule(
                  () -> {
                    if (!answering) {
                      channel.close();
                    }
                  },
                  REQUEST_TIMEOUT.toMillis(),
                  TimeUnit.MILLISECONDS);
    }

    @Override
    public void channelRead(ChannelHandlerContext ctx, Object msg) {
      if (!(msg instanceof FullHttpRequest http)) {
        ctx.fireChannelRead(msg);
        return;
      }
      try {
        if (answering) {
          // a pipelined request: answers would need ordering; clients retry on a new connection
          channel.close();
          return;
        }
        answering = true;
        deadline.cancel(false);
        channel.config().setAutoRead(false);
        boolean keepAlive = HttpUtil.isKeepAlive(http);
        if (http.decoderResult().isFailure()) {
          write(AdminResponse.text(400, "bad request\n"), false);
          return;
        }
        AdminRequest request = request(http, client);
        Runnable work = () -> write(safely(request), keepAlive);
        try {
          (urgent.test(request) ? urgentThread : workers).execute(work);
        } catch (RejectedExecutionException e) {
          write(AdminResponse.text(503, "busy, try again\n").with("Retry-After", "1"), false);
        }
      } finally {
        http.release();
      }
    }

    private AdminResponse safely(AdminRequest request) {
      try {
        return answer.apply(request);
      } catch (RuntimeException e) {
        log.warn("admin request {} failed: {}", request.path(), e.getMessage());
        return AdminResponse.text(500, "error: " + e.getClass().getSimpleName() + "\n");
      }
    }

    private void write(AdminResponse response, boolean keepAlive) {
      FullHttpResponse http =
          new DefaultFullHttpResponse(
              HttpVersion.HTTP_1_1,
              HttpResponseStatus.valueOf(response.status()),
              Unpooled.wrappedBuffer(response.body()));
      http.headers().set(HttpHeaderNames.CONTENT_TYPE, response.contentType());
      response.headers().forEach(http.headers()::set);
      http.headers().setInt(HttpHeaderNames.CONTENT_LENGTH, response.body().length);
      if (!keepAlive) {
        http.headers().set(HttpHeaderNames.CONNECTION, HttpHeaderValues.CLOSE);
      }
      channel
          .writeAndFlush(http)
          .addListener(
              (ChannelFutureListener)
                  done -> {
                    if (!keepAlive || !done.isSuccess()) {
                      channel.close();
                      return;
                    }
                    answering = false;
                    awaitRequest();
                    channel.config().setAutoRead(true);
                  });
    }

    @Override
    public void exceptionCaught(ChannelHandlerContext ctx, Throwable cause) {
      log.debug("admin connection from {}: {}", client, cause.toString());
      ctx.close();
    }
  }

  /** Closes the oldest connection among {@code connections} that is not being answered. */
  private boolean closeOldestIdle(Iterable<Connection> connections) {
    for (Iterator<Connection> it = connections.iterator(); it.hasNext(); ) {
      Connection c = it.next();
      if (!c.answering) {
        forget(c);
        c.channel.close();
        return true;
      }
    }
    return false;
  }

  private void forget(Connection c) {
    if (open.remove(c.channel) != null) {
      ArrayDeque<Connection> theirs = byClient.get(c.client);
      theirs.remove(c);
      if (theirs.isEmpty()) {
        byClient.remove(c.client);
      }
    }
  }

  private static AdminRequest request(FullHttpRequest http, InetAddress client) {
    QueryStringDecoder uri = new QueryStringDecoder(http.uri());
    Map<String, String> query = new LinkedHashMap<>();
    uri.parameters().forEach((k, v) -> query.put(k, v.isEmpty() ? "" : v.get(0)));
    return new AdminRequest(http.method().name(), uri.path(), query, http.headers()::get, client);
  }

  @Override
  public void close() {
    if (server != null) {
      server.close().awaitUninterruptibly();
    }
    loop.shutdownGracefully(0, 1, TimeUnit.SECONDS).awaitUninterruptibly();
    workers.shutdownNow();
    urgentThread.shutdownNow();
  }
}
