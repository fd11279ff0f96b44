package dev.leasehold.app.runner;

import java.io.ByteArrayOutputStream;
import java.net.http.HttpResponse;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.Flow;

/**
 * A response body of which at most {@link #MAX_KEPT} bytes are kept: once that much has arrived the
 * subscription is cancelled (the client then closes the connection instead of reading on), so a
 * huge or endless body costs neither memory nor time.
 */
final class BoundedBody implements HttpResponse.BodySubscriber<BoundedBody.Text> {
  /** Bytes of a response body kept (64 KiB). */
  static final int MAX_KEPT = 64 * 1024;

  /** The kept text, and whether more was sent than kept. */
  record Text(String text, boolean truncated) {}

  private final ByteArrayOutputStream kept = new ByteArrayOutputStream();
  private final CompletableFuture<Text> result = new CompletableFuture<>();
  private Flow.Subscription subscription;

  static HttpResponse.BodyHandler<Text> handler() {
    return info -> new BoundedBody();
  }

  @Override
  public CompletionStage<Text> getBody() {
    return result;
  }

  @Override
  public void onSubscribe(Flow.Subscription subscription) {
    this.subscription = subscription;
    subscription.request(1);
  }

  @Override
  public void onNext(List<ByteBuffer> buffers) {
    for (ByteBuffer b : buffers) {
      int take = Math.min(b.remaining(), MAX_KEPT - kept.size());
      byte[] bytes = new byte[take];
      b.get(bytes);
      kept.write(bytes, 0, take);
      if (b.hasRemaining()) {
        subscription.cancel();
        finish(true);
        return;
      }
    }
    subscription.request(1);
  }

  @Override
  public void onError(Throwable error) {
    result.completeExceptionally(error);
  }

  @Override
  public void onComplete() {
    finish(false);
  }

  private void finish(boolean truncated) {
    result.complete(new Text(kept.toString(StandardCharsets.UTF_8), truncated));
  }
}
