package dev.leasehold.app.runner;

import dev.leasehold.app.config.JobAction;
import dev.leasehold.core.job.JobRunner;
import java.net.http.HttpClient;

/** Builds the runner for each kind of job action. */
public final class JobRunners {
  private final HttpClient httpClient;

  public JobRunners(HttpClient httpClient) {
    this.httpClient = httpClient;
  }

  public JobRunner forAction(JobAction action) {
    if (action instanceof JobAction.Command c) {
      return new CommandJobRunner(c);
    }
    if (action instanceof JobAction.Http h) {
      return new HttpJobRunner(h, httpClient);
    }
    return new JavaClassJobRunner((JobAction.JavaClass) action);
  }
}
