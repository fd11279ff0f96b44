package dev.leasehold.store.redis.redlock;

import dev.leasehold.core.lease.LeaseStoreException;
import dev.leasehold.store.redis.node.RedisNode;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.function.Function;
import java.util.function.Predicate;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/** One round of a Redlock step: the same call on every node in parallel, within a deadline. */
public final class Quorum {
  private static final Logger log = LoggerFactory.getLogger(Quorum.class);

  private Quorum() {}

  /**
   * Sends {@code call} to every node at once and waits until all answered or {@code deadlineNanos}
   * (a {@link System#nanoTime()} instant) passed. Returns the answers in node order, {@code null}
   * for a node that failed or was late: its answer is unknown, never assumed.
   */
  public static <T> List<T> ask(
      List<RedisNode> nodes, Function<RedisNode, CompletableFuture<T>> call, long deadlineNanos) {
    List<CompletableFuture<T>> futures = new ArrayList<>();
    for (RedisNode node : nodes) {
      try {
        futures.add(call.apply(node));
      } catch (RuntimeException e) {
        futures.add(CompletableFuture.failedFuture(e));
      }
    }
    List<T> answers = await(futures, deadlineNanos);
    for (int i = 0; i < futures.size(); i++) {
      CompletableFuture<T> f = futures.get(i);
      if (answers.get(i) == null && log.isDebugEnabled()) {
        String reason =
            f.isDone()
                ? f.handle((v, e) -> e == null ? "no answer" : RedisNode.unwrap(e).toString())
                    .join()
                : "no answer in time";
        log.debug("Redis {} did not answer: {}", nodes.get(i).address(), reason);
      }
    }
    return answers;
  }

  /**
   * Waits until every call answered or {@code deadlineNanos} passed; the answers in order, {@code
   * null} for a call that failed or was late.
   */
  static <T> List<T> await(List<CompletableFuture<T>> calls, long deadlineNanos) {
    try {
      CompletableFuture.allOf(calls.toArray(CompletableFuture[]::new))
          .get(Math.max(0, deadlineNanos - System.nanoTime()), TimeUnit.NANOSECONDS);
    } catch (ExecutionException | TimeoutException e) {
      // some call failed or is late: looked at one by one below
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
    List<T> answers = new ArrayList<>(calls.size());
    for (CompletableFuture<T> f : calls) {
      answers.add(f.isDone() && !f.isCompletedExceptionally() ? f.join() : null);
    }
    return Collections.unmodifiableList(answers);
  }

  /** How many answers are known and satisfy {@code test}. */
  public static <T> int count(List<T> answers, Predicate<T> test) {
    return (int) answers.stream().filter(a -> a != null && test.test(a)).count();
  }

  /** The failure of a step that fewer than a majority of {@code nodes} answered. */
  static LeaseStoreException tooFew(String what, int answered, List<RedisNode> nodes) {
    return new LeaseStoreException(
        "Redlock: "
            + what
            + ": only "
            + answered
            + " of "
            + nodes.size()
            + " nodes answered, "
            + RedisNode.majority(nodes)
            + " needed");
  }
}
