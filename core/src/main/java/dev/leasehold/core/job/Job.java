package dev.leasehold.core.job;

/**
 * A job written in Java. The daemon finds an implementation on the classpath by class name (it
 * needs a public no-argument constructor). Returning normally is success; throwing is failure. The
 * job runs on its own thread, which is interrupted when the job must stop (lease lost, timeout,
 * shutdown).
 */
@FunctionalInterface
public interface Job {
  void execute(JobContext context) throws Exception;
}
