package dev.leasehold.app.runner;

import static org.assertj.core.api.Assertions.assertThat;

import dev.leasehold.core.job.AsyncJobRunner;
import dev.leasehold.core.job.JobResult;
import dev.leasehold.core.job.JobRunner;
import dev.leasehold.core.job.Outcome;
import java.util.concurrent.CompletableFuture;
import org.junit.jupiter.api.Test;

/** Tagging keeps an asynchronous runner asynchronous, scrubbed, and stoppable. */
class TaggedJobRunnerTest {
  @Test
  void anAsynchronousRunnerStaysAsynchronousAndItsDetailIsScrubbed() throws Exception {
    CompletableFuture<JobResult> inner = new CompletableFuture<>();
    JobRunner tagged = TaggedJobRunner.tag((AsyncJobRunner) context -> inner);

    assertThat(tagged).isInstanceOf(AsyncJobRunner.class);
    CompletableFuture<JobResult> body = ((AsyncJobRunner) tagged).start(JobContexts.of("r", 1));
    assertThat(body).isNotDone();
    inner.complete(JobResult.failed("GET http://u:Pa55word@example.org/ failed"));

    JobResult result = body.get();
    assertThat(result.outcome()).isEqualTo(Outcome.FAILED);
    assertThat(result.detail()).doesNotContain("Pa55word");
  }

  @Test
  void cancellingTheTaggedBodyCancelsTheRunnersOwn() {
    CompletableFuture<JobResult> inner = new CompletableFuture<>();
    AsyncJobRunner tagged = (AsyncJobRunner) TaggedJobRunner.tag((AsyncJobRunner) context -> inner);

    tagged.start(JobContexts.of("r", 1)).cancel(true);

    assertThat(inner).isCancelled();
  }

  @Test
  void aStartThatThrowsIsAFailedResult() throws Exception {
    AsyncJobRunner tagged =
        (AsyncJobRunner)
            TaggedJobRunner.tag(
                (AsyncJobRunner)
                    context -> {
                      throw new IllegalStateException("no client");
                    });

    JobResult result = tagged.start(JobContexts.of("r", 1)).get();

    assertThat(result.outcome()).isEqualTo(Outcome.FAILED);
    assertThat(result.detail()).contains("no client");
  }
}
