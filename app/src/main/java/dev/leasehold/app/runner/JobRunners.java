package dev.leasehold.app.runner;

import dev.leasehold.app.config.JobAction;
import dev.leasehold.core.job.JobRunner;
import java.net.http.HttpClient;
import java.util.function.Supplier;

/**
 * Builds the runner for each kind of job action. The HTTP client (whose TLS set-up costs a few
 * hundred milliseconds of start-up) is created only when the first HTTP job needs it.
 */
public final class JobRunners {
  private final Supplier<HttpClient> httpClient;
  private HttpClient client;

  public JobRunners(Supplier<HttpClient> httpClient) {
    this.httpClient = httpClient;
  }

  private synchronized HttpClient client() {
    if (client == null) {
      client = httpClient.get();
    }
    return client;
  }

  public JobRunner forAction(JobAction action) {
    if (action instanceof JobAction.Command c) {
      return new CommandJobRunner(c);
    }
    if (action instanceof JobAction.Http h) {
      return new HttpJobRunner(h, client());
    }
    return new JavaClassJobRunner((JobAction.JavaClass) action);
  }
}
