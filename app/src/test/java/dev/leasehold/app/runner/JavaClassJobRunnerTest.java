package dev.leasehold.app.runner;

import static org.assertj.core.api.Assertions.assertThat;

import dev.leasehold.app.config.JobAction;
import dev.leasehold.core.job.Job;
import dev.leasehold.core.job.JobContext;
import dev.leasehold.core.job.JobResult;
import dev.leasehold.core.job.Outcome;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Test;

class JavaClassJobRunnerTest {
  static final AtomicReference<String> LAST = new AtomicReference<>();

  /** A job as users write one: public, public no-arg constructor. */
  public static class RecordingJob implements Job {
    @Override
    public void execute(JobContext context) {
      LAST.set(context.job() + "@" + context.fence() + " on " + context.node());
    }
  }

  public static class FailingJob implements Job {
    @Override
    public void execute(JobContext context) {
      throw new IllegalStateException("the scale is offline");
    }
  }

  private static JobResult run(Class<?> type) throws Exception {
    return new JavaClassJobRunner(new JobAction.JavaClass(type.getName()))
        .run(JobContexts.of("weigh-in", 3));
  }

  @Test
  void theClassIsFoundByNameAndRunWithTheContext() throws Exception {
    JobResult result = run(RecordingJob.class);

    assertThat(result.outcome()).isEqualTo(Outcome.SUCCEEDED);
    assertThat(LAST.get()).isEqualTo("weigh-in@3 on node-a");
  }

  @Test
  void anExceptionIsAFailureWithItsMessage() throws Exception {
    JobResult result = run(FailingJob.class);

    assertThat(result.outcome()).isEqualTo(Outcome.FAILED);
    assertThat(result.detail()).isEqualTo("IllegalStateException: the scale is offline");
  }
}
