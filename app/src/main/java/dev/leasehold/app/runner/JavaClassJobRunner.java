package dev.leasehold.app.runner;

import dev.leasehold.app.config.JobAction;
import dev.leasehold.core.job.Job;
import dev.leasehold.core.job.JobContext;
import dev.leasehold.core.job.JobResult;
import dev.leasehold.core.job.JobRunner;
import java.lang.reflect.InvocationTargetException;

/**
 * Runs a Java job: a fresh instance of the configured class (public, implementing {@link Job}, with
 * a public no-arg constructor; checked when the configuration is validated) for every execution.
 * Returning normally is success; an exception is failure, summarised in the history.
 */
public final class JavaClassJobRunner implements JobRunner {
  private final Class<? extends Job> type;

  public JavaClassJobRunner(JobAction.JavaClass action) {
    try {
      this.type =
          Class.forName(action.className(), true, Thread.currentThread().getContextClassLoader())
              .asSubclass(Job.class);
    } catch (ClassNotFoundException e) {
      throw new IllegalArgumentException("class " + action.className() + " not found", e);
    }
  }

  @Override
  public JobResult run(JobContext context) throws Exception {
    Job job;
    try {
      job = type.getConstructor().newInstance();
    } catch (InvocationTargetException e) {
      return JobResult.failed("constructor of " + type.getName() + " failed: " + e.getCause());
    }
    try {
      job.execute(context);
      return JobResult.succeeded();
    } catch (InterruptedException e) {
      throw e;
    } catch (Exception e) {
      return JobResult.failed(
          e.getClass().getSimpleName() + (e.getMessage() == null ? "" : ": " + e.getMessage()));
    }
  }
}
