package dev.leasehold.app.logging;

import java.lang.management.ManagementFactory;
import java.lang.management.ThreadMXBean;

/**
 * A wall-clock trace of start-up phases, for profiling only: with {@code
 * -Dleasehold.trace.startup=true} (e.g. through {@code LEASEHOLD_JAVA_OPTS}) each {@link #mark}
 * prints one line on stderr: the JVM's uptime, the time since the previous mark, the calling
 * thread's and the process's CPU time and the number of classes loaded so far. Off by default, and
 * then a mark costs one field read: nothing of {@code java.lang.management} is loaded.
 */
public final class StartupTrace {
  private static final boolean ON = Boolean.getBoolean("leasehold.trace.startup");
  private static long previous;

  private StartupTrace() {}

  /** Records that start-up has reached {@code phase}. */
  public static void mark(String phase) {
    if (ON) {
      print(phase);
    }
  }

  private static synchronized void print(String phase) {
    long uptime = ManagementFactory.getRuntimeMXBean().getUptime();
    ThreadMXBean threads = ManagementFactory.getThreadMXBean();
    long cpu = threads.getCurrentThreadCpuTime() / 1_000_000;
    long processCpu =
        ManagementFactory.getOperatingSystemMXBean()
                instanceof com.sun.management.OperatingSystemMXBean os
            ? os.getProcessCpuTime() / 1_000_000
            : -1;
    int classes = ManagementFactory.getClassLoadingMXBean().getLoadedClassCount();
    System.err.printf(
        "startup-trace: %5d ms (+%4d) cpu %5d ms (process %5d ms), %5d classes  %s%n",
        uptime, uptime - previous, cpu, processCpu, classes, phase);
    previous = uptime;
  }
}
